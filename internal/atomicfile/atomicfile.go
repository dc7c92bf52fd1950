// Package atomicfile writes files so that a crash at any instant leaves
// either the old content or the new, never a torn file: the data goes to a
// temporary file in the same directory, which is synced to disk, renamed
// over the target, and the directory is synced so the rename itself is
// durable.
//
// All paths are names inside an [os.Root], so a write can never land
// outside the root, even through symbolic links planted in it.
//
// Temporary files are named ".atomicfile-<random>.tmp" (see [IsTemp]), so
// a reader listing a directory can skip the ones a killed writer left
// behind. Removing leftovers is the caller's business (only the caller
// knows when no writer is running); [RemoveTemp] and [RemoveTempBefore] help.
//
// The package does not lock: two concurrent writers of the same name both
// succeed and the last rename wins. Callers that need compare-and-swap hold
// a lock (see internal/lockfile) around their read-check-write.
package atomicfile

import (
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path"
	"strings"
	"syscall"
	"time"
)

// Name pattern of temporary files: TempPrefix + 16 hex digits + TempSuffix.
const (
	TempPrefix = ".atomicfile-"
	TempSuffix = ".tmp"
)

// IsTemp reports whether base, a file name without directory, is the name of
// a temporary file made by Write.
func IsTemp(base string) bool {
	return strings.HasPrefix(base, TempPrefix) && strings.HasSuffix(base, TempSuffix)
}

// Options configure Write. A nil *Options means the zero value.
type Options struct {
	// Perm is the mode of a new file (before the umask); 0 means 0o644.
	// An existing file keeps its mode.
	Perm fs.FileMode
	// DirPerm is the mode of parent directories Write creates (before the
	// umask); 0 means 0o755.
	DirPerm fs.FileMode
	// BeforeCommit, if set, is called with the name (in the root) of the
	// temporary file once the data is written, before it is synced and
	// renamed, e.g. to set its modification time. An error aborts the write.
	BeforeCommit func(tempName string) error
	// NoSync skips the fsync of the file and of its directory: the
	// replace is still atomic for readers (they see the old file or the
	// new one), but not durable. After a crash of the machine the file may
	// hold its old content, or be missing, empty or torn. For data that
	// may be lost, never for data a reader must trust after a crash.
	// Parent directories Write creates are still synced, so a durable
	// write made into them later is never lost with its directory, unless
	// Created is set.
	NoSync bool
	// Created, with NoSync, is called with each parent directory Write
	// creates (outermost first) instead of syncing the directory holding
	// it: the caller makes those entries durable (SyncDir of each one's
	// parent) before it trusts a durable write inside them.
	Created func(dir string)
}

// Write replaces the file name in root with data, atomically and durably,
// creating missing parent directories. On error the old file, if any, is
// unchanged and the temporary file is removed.
func Write(root *os.Root, name string, data []byte, opts *Options) (err error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Perm == 0 {
		o.Perm = 0o644
	}
	if o.DirPerm == 0 {
		o.DirPerm = 0o755
	}
	if !fs.ValidPath(name) || name == "." {
		return &fs.PathError{Op: "atomicfile.Write", Path: name, Err: fs.ErrInvalid}
	}
	dir := path.Dir(name)
	created := func(d string) error { return SyncDir(root, path.Dir(d)) }
	if o.NoSync && o.Created != nil {
		created = func(d string) error { o.Created(d); return nil }
	}
	if err := mkdirAll(root, dir, o.DirPerm, created); err != nil {
		return err
	}
	keepMode := false
	if fi, err := root.Stat(name); err == nil && fi.Mode().IsRegular() {
		o.Perm, keepMode = fi.Mode().Perm(), true
	}

	f, tmp, err := createTemp(root, dir, o.Perm)
	if err != nil {
		return err
	}
	defer func() {
		if f != nil {
			f.Close()
		}
		if err != nil {
			root.Remove(tmp)
		}
	}()
	if keepMode {
		// The umask usually leaves the mode as asked; a chmod is one more
		// change the file system journals, so it is made only when not.
		if fi, err := f.Stat(); err != nil || fi.Mode().Perm() != o.Perm {
			if err := f.Chmod(o.Perm); err != nil {
				return err
			}
		}
	}
	if _, err := f.Write(data); err != nil {
		return err
	}
	if o.BeforeCommit != nil {
		if err := o.BeforeCommit(tmp); err != nil {
			return err
		}
	}
	if !o.NoSync {
		if err := f.Sync(); err != nil {
			return err
		}
	}
	if err := f.Close(); err != nil {
		f = nil
		return err
	}
	f = nil
	if err := root.Rename(tmp, name); err != nil {
		return err
	}
	if o.NoSync {
		return nil
	}
	return SyncDir(root, dir)
}

func createTemp(root *os.Root, dir string, perm fs.FileMode) (*os.File, string, error) {
	var b [8]byte
	for range 100 {
		binary.LittleEndian.PutUint64(b[:], rand.Uint64())
		tmp := path.Join(dir, TempPrefix+hex.EncodeToString(b[:])+TempSuffix)
		f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		return f, tmp, err
	}
	return nil, "", &fs.PathError{Op: "atomicfile.Write", Path: dir, Err: errors.New("cannot create a unique temporary file")}
}

// MkdirAll creates dir in root and its missing parents, with mode perm
// (before the umask), calling created with each directory it creates,
// outermost first; an error from created stops it. Write makes its
// directories this way; created is where a caller syncs (or notes) the
// parent of each new directory.
func MkdirAll(root *os.Root, dir string, perm fs.FileMode, created func(dir string) error) error {
	return mkdirAll(root, dir, perm, created)
}

// mkdirAll creates dir and its missing parents, calling created with each
// directory it creates (Write's syncs its parent, so the new entries
// survive a crash).
func mkdirAll(root *os.Root, dir string, perm fs.FileMode, created func(dir string) error) error {
	if dir == "." {
		return nil
	}
	if fi, err := root.Stat(dir); err == nil {
		if fi.IsDir() {
			return nil
		}
		return &fs.PathError{Op: "mkdir", Path: dir, Err: syscall.ENOTDIR}
	}
	if err := mkdirAll(root, path.Dir(dir), perm, created); err != nil {
		return err
	}
	if err := root.Mkdir(dir, perm); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	return created(dir)
}

// SyncDir fsyncs the directory dir in root, making renames, creations and
// removals of its entries durable.
func SyncDir(root *os.Root, dir string) error {
	d, err := root.Open(dir)
	if err != nil {
		return err
	}
	err = d.Sync()
	if cerr := d.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("atomicfile: sync directory %s: %w", dir, err)
	}
	return nil
}

// RemoveTemp removes the temporary files Write left in dir (not recursing)
// when a writer was killed, and returns how many it removed. Call it only
// when no Write into dir can be in progress (e.g. under the caller's lock).
func RemoveTemp(root *os.Root, dir string) (int, error) {
	return RemoveTempBefore(root, dir, time.Time{})
}

// RemoveTempBefore is RemoveTemp for the temporary files last modified
// before cutoff only (every one when cutoff is zero). With a cutoff well in
// the past, a Write still in progress keeps its file even without a lock.
func RemoveTempBefore(root *os.Root, dir string, cutoff time.Time) (int, error) {
	entries, err := fs.ReadDir(root.FS(), dir)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, e := range entries {
		if !e.Type().IsRegular() || !IsTemp(e.Name()) {
			continue
		}
		if !cutoff.IsZero() {
			fi, err := e.Info()
			if err != nil || !fi.ModTime().Before(cutoff) {
				continue // gone already, or recent
			}
		}
		if err := root.Remove(path.Join(dir, e.Name())); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return n, err
		}
		n++
	}
	if n > 0 {
		return n, SyncDir(root, dir)
	}
	return n, nil
}
