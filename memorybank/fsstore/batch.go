package fsstore

import (
	"context"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"time"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
	"github.com/mnemobank/mnemobank/memorybank"
)

var _ memorybank.BatchPutter = (*Store)(nil)

// PutBatch writes each object's Data at its Key if cond holds for that
// key, under one hold of the store lock, and returns one error per object
// (nil when written; an error matching memorybank.ErrConflict when cond
// did not hold; the key's error when it is refused) and an error that
// stopped the batch, after which nothing more of it was written.
//
// It is as durable as Put, and cheaper for many keys: Put syncs every file
// and its directory (two journal commits per key), PutBatch writes the new
// files to temporary names, makes their data durable at once (one
// syncfs(2) on Linux; elsewhere a sync per file), renames them into place
// in order and makes the renames durable at once. A crash leaves each key
// of the batch either as it was or whole with its new data, never torn;
// when PutBatch returns, all of the batch is on disk. Importers (the
// archive package) use it through memorybank.BatchPutter. Keys that are
// symbolic links are written as Put writes them, one by one.
func (s *Store) PutBatch(ctx context.Context, objs []memorybank.Object, cond memorybank.Condition) ([]error, error) {
	if err := cond.Validate(); err != nil {
		return nil, err
	}
	errs := make([]error, len(objs))
	unlock, err := s.lock(ctx)
	if err != nil {
		return nil, err
	}
	defer unlock()

	type pending struct {
		i         int
		tmp, file string
	}
	var todo []pending
	inBatch := map[string]bool{}
	// isDir holds the directories this batch found or made, so the keys
	// after the first in a directory skip its checks (the lock is held).
	isDir := map[string]bool{".": true}
	cleanup := func() {
		for _, p := range todo {
			s.root.Remove(p.tmp)
		}
	}
	fullSync, err := syncFS(s.root)
	if err != nil {
		return nil, fmt.Errorf("fsstore: put batch: %w", err)
	}
	for i, o := range objs {
		if err := ctx.Err(); err != nil {
			cleanup()
			return errs, err
		}
		if err := validateKey(o.Key); err != nil {
			errs[i] = err
			continue
		}
		cur, exists, err := s.stat("put", o.Key)
		if err != nil {
			cleanup()
			return errs, err
		}
		if exists && cur.IsDir() {
			errs[i] = fmt.Errorf("%w: key %q is a directory holding other keys", ErrPathConflict, o.Key)
			continue
		}
		var curVersion string
		if exists {
			curVersion = version(cur)
		}
		if err := cond.Check(o.Key, exists, curVersion); err != nil {
			errs[i] = err
			continue
		}
		if !isDir[path.Dir(o.Key)] {
			if parent := s.fileParent(o.Key); parent != "" {
				errs[i] = fmt.Errorf("%w: key %q needs %q to be a directory, but it is a file holding a key", ErrPathConflict, o.Key, parent)
				continue
			}
		}
		if fi, err := s.root.Lstat(o.Key); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
			// A link is kept as Put keeps it: written one by one.
			file, err := s.linkTarget(o.Key)
			if err != nil {
				errs[i] = err
				continue
			}
			done, err := s.countChange()
			if err != nil {
				cleanup()
				return errs, err
			}
			err = atomicfile.Write(s.root, file, o.Data, &atomicfile.Options{Perm: s.opts.FileMode, DirPerm: s.opts.DirMode})
			done()
			if err != nil {
				cleanup()
				return errs, fmt.Errorf("fsstore: put %q: %w", o.Key, err)
			}
			continue
		}
		if inBatch[o.Key] && (cond.IfAbsent || cond.IfVersion != "") {
			// twice in one batch: the second sees the first
			errs[i] = fmt.Errorf("%w: key %q is written earlier in the same batch", memorybank.ErrConflict, o.Key)
			continue
		}
		inBatch[o.Key] = true
		var prev = cur
		tmp, err := s.writeTemp(o.Key, o.Data, prev, !fullSync, isDir[path.Dir(o.Key)])
		if err != nil {
			cleanup()
			return errs, fmt.Errorf("fsstore: put %q: %w", o.Key, err)
		}
		for d := path.Dir(o.Key); !isDir[d]; d = path.Dir(d) {
			isDir[d] = true
		}
		todo = append(todo, pending{i: i, tmp: tmp, file: o.Key})
	}
	if len(todo) == 0 {
		return errs, nil
	}
	done, err := s.countChanges(uint64(len(todo)))
	if err != nil {
		cleanup()
		return errs, err
	}
	defer done()
	if fullSync {
		if _, err := syncFS(s.root); err != nil {
			cleanup()
			return errs, fmt.Errorf("fsstore: put batch: sync: %w", err)
		}
	}
	dirs := map[string]bool{}
	for n, p := range todo {
		if err := s.root.Rename(p.tmp, p.file); err != nil {
			todo = todo[n:]
			cleanup()
			return errs, fmt.Errorf("fsstore: put %q: %w", p.file, err)
		}
		for d := path.Dir(p.file); ; d = path.Dir(d) { // and the parents of new directories
			dirs[d] = true
			if d == "." {
				break
			}
		}
	}
	todo = nil
	if fullSync {
		_, err = syncFS(s.root)
	} else {
		for d := range dirs {
			if err = atomicfile.SyncDir(s.root, d); err != nil {
				break
			}
		}
	}
	if err != nil {
		return errs, fmt.Errorf("fsstore: put batch: written, but: %w", err)
	}
	return errs, nil
}

// writeTemp writes data to a new temporary file beside key, with a
// modification time after prev's (see setModTimeAfter), synced when sync
// is set, and returns its name. dirExists skips making key's directory.
func (s *Store) writeTemp(key string, data []byte, prev fs.FileInfo, sync, dirExists bool) (string, error) {
	dir := path.Dir(key)
	if dir != "." && !dirExists {
		if err := s.root.MkdirAll(dir, s.opts.DirMode); err != nil {
			return "", err
		}
	}
	var f *os.File
	var tmp string
	var b [8]byte
	for range 100 {
		binary.LittleEndian.PutUint64(b[:], rand.Uint64())
		tmp = path.Join(dir, atomicfile.TempPrefix+hex.EncodeToString(b[:])+atomicfile.TempSuffix)
		var err error
		f, err = s.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, s.opts.FileMode)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		break
	}
	if f == nil {
		return "", fmt.Errorf("cannot create a unique temporary file in %s", dir)
	}
	_, err := f.Write(data)
	if err == nil && prev != nil {
		err = f.Chmod(prev.Mode().Perm())
	}
	if err == nil {
		var pt time.Time
		if prev != nil {
			pt = prev.ModTime()
		}
		_, err = setModTimeAfter(s.root, tmp, pt)
	}
	if err == nil && sync {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		s.root.Remove(tmp)
		return "", err
	}
	return tmp, nil
}
