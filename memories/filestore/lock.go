package filestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/mnemobank/mnemobank/internal/lockfile"
)

// The lock file "<resolved target>.lock" is both the flock that serialises
// every operation on the target (across goroutines, processes and
// worktrees, since it sits beside the resolved file) and a small state
// record, rewritten in place under the lock:
//
//	memories-lock v1 <generation> <pending offset> <pending length>\n
//
// generation counts the writes made through this package, so a version
// never repeats even if a file system hands a new file the inode and mtime
// of an old one; the pending pair journals an append in progress.
const stateFormat = "memories-lock v1 %020d %020d %020d\n"

type held struct {
	lk    *lockfile.Lock
	state *os.File
	root  *os.Root // every access to the file and the lock goes through it
	rel   string   // the file inside root
	gen   int64
}

// lock takes the lock of the file at pl (its lock file is opened inside
// root, so a link cannot lead it out) and repairs the tail of an append
// that a killed process left unfinished.
func (s *Store) lock(ctx context.Context, root *os.Root, pl place) (*held, error) {
	lk, err := acquire(ctx, root, pl.rel+".lock", s.timeout)
	if err != nil {
		return nil, err
	}
	st, err := root.OpenFile(pl.rel+".lock", os.O_RDWR, 0)
	if err != nil {
		lk.Unlock()
		return nil, err
	}
	h := &held{lk: lk, state: st, root: root, rel: pl.rel}
	if err := h.recover(); err != nil {
		h.unlock()
		return nil, err
	}
	return h, nil
}

func (h *held) unlock() {
	if h.lk == nil {
		return // read-only fallback of Load: nothing held
	}
	h.state.Close()
	h.lk.Unlock()
}

// readState parses the state record; a missing or unreadable record is
// generation 0 with nothing pending.
func (h *held) readState() (gen, off, n int64) {
	buf := make([]byte, 128)
	k, err := h.state.ReadAt(buf, 0)
	if err != nil && !errors.Is(err, io.EOF) {
		return 0, 0, 0
	}
	return parseState(buf[:k])
}

// parseState reads a state record written with stateFormat. Anything else
// (torn, foreign, negative numbers) is generation 0 with nothing pending:
// a journal that cannot be read is never used to cut the file.
func parseState(b []byte) (gen, off, n int64) {
	if _, err := fmt.Sscanf(string(b), stateFormat, &gen, &off, &n); err != nil || gen < 0 || off < 0 || n < 0 {
		return 0, 0, 0
	}
	return gen, off, n
}

func (h *held) writeState(off, n int64, sync bool) error {
	if _, err := h.state.WriteAt(fmt.Appendf(nil, stateFormat, h.gen, off, n), 0); err != nil {
		return err
	}
	if sync {
		return h.state.Sync()
	}
	return nil
}

// recover finishes the journal of an interrupted append: a tail shorter
// than the journalled length is cut off (the file is as before the
// append), a complete one is kept.
func (h *held) recover() error {
	gen, off, n := h.readState()
	h.gen = gen
	if n == 0 {
		return nil
	}
	fi, err := h.root.Stat(h.rel)
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err == nil && fi.Size() > off && fi.Size() < off+n {
		if err := h.truncate(off); err != nil {
			return fmt.Errorf("cutting off a torn append at byte %d: %w", off, err)
		}
	}
	return h.commit()
}

func (h *held) truncate(size int64) error {
	f, err := h.root.OpenFile(h.rel, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	err = f.Truncate(size)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// commit records a finished write: a new generation, nothing pending.
func (h *held) commit() error {
	h.gen++
	return h.writeState(0, 0, false)
}

// version of the file described by fi: generation, inode, size and
// modification time. Any write through this package changes the
// generation; a hand edit changes the inode, size or mtime.
func (h *held) version(fi fs.FileInfo) string {
	return itoa(h.gen) + "-" + itoa(int64(inode(fi))) + "-" + itoa(fi.Size()) + "-" + itoa(fi.ModTime().UnixNano())
}

// current returns the version of the target now, "" if it is missing.
func (h *held) current() (string, error) {
	fi, err := h.root.Stat(h.rel)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return h.version(fi), nil
}

func (h *held) append(header, entry []byte) (int64, string, error) {
	_, statErr := h.root.Stat(h.rel)
	created := errors.Is(statErr, fs.ErrNotExist)
	f, err := h.root.OpenFile(h.rel, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return 0, "", err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return 0, "", err
	}
	size := fi.Size()
	last := byte('\n')
	var buf []byte
	if size == 0 {
		buf = append(buf, header...)
		if len(buf) > 0 {
			last = buf[len(buf)-1]
		}
	} else {
		var b [1]byte
		if _, err := f.ReadAt(b[:], size-1); err != nil {
			return 0, "", err
		}
		last = b[0]
	}
	if last != '\n' {
		buf = append(buf, '\n')
	}
	buf = append(buf, entry...)
	if len(buf) > 0 {
		if err := h.writeState(size, int64(len(buf)), true); err != nil {
			return 0, "", err
		}
		if _, err := writeAt(f, buf, size); err != nil {
			return 0, "", errors.Join(err, h.rollback(f, size))
		}
		if err := f.Sync(); err != nil {
			return 0, "", errors.Join(err, h.rollback(f, size))
		}
		if created {
			if err := syncDir(h.root, filepath.Dir(h.rel)); err != nil {
				return 0, "", err
			}
		}
		if err := h.commit(); err != nil {
			return 0, "", err
		}
	}
	fi, err = f.Stat()
	if err != nil {
		return 0, "", err
	}
	return fi.Size(), h.version(fi), nil
}

// acquire takes the flock; tests replace it to fail the way a read-only
// directory does, which running as root cannot reproduce.
var acquire = lockfile.AcquireIn

// writeAt is the one write of an append; tests replace it to die halfway.
var writeAt = func(f *os.File, b []byte, off int64) (int, error) { return f.WriteAt(b, off) }

// rollback undoes a failed append, leaving the file as it was.
func (h *held) rollback(f *os.File, size int64) error {
	if err := f.Truncate(size); err != nil {
		return fmt.Errorf("restoring the file to %d bytes: %w", size, err)
	}
	return h.writeState(0, 0, false)
}

func syncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	return err
}
