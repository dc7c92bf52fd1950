package fsstore

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"syscall"
	"time"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
	"github.com/mnemobank/mnemobank/internal/lockfile"
	"github.com/mnemobank/mnemobank/memorybank"
)

// LockFileName is the name, in the store's directory, of the file every
// writer locks. It is not a key: List skips it and methods reject it.
const LockFileName = ".memorybank.lock"

// DefaultLockTimeout is how long a write waits for the store lock when
// Options.LockTimeout is zero.
const DefaultLockTimeout = 10 * time.Second

var (
	// ErrLockTimeout: another writer (in this or another process) held the
	// store lock for longer than Options.LockTimeout. Nothing was changed;
	// the write may be retried.
	ErrLockTimeout = errors.New("fsstore: timed out waiting for the store lock")
	// ErrPathConflict: the key cannot be a file because a directory of that
	// name exists ("a" when "a/b" exists), or because one of its parents is
	// a file ("a/b" when "a" exists). Nothing was changed. It wraps
	// memorybank.ErrPathConflict.
	ErrPathConflict error = &pathConflict{}
)

// Options configure a Store. A nil *Options means the zero value.
type Options struct {
	// LockTimeout bounds how long Put and Delete wait for the store lock.
	// Zero means DefaultLockTimeout; negative means no bound but the
	// context's.
	LockTimeout time.Duration
	// FileMode is the mode of new files (before the umask); 0 means 0o644.
	// Existing files keep their mode.
	FileMode fs.FileMode
	// DirMode is the mode of directories the store creates (before the
	// umask); 0 means 0o755.
	DirMode fs.FileMode
}

// Store is a memorybank.Store kept in a directory: key "a/b.json" is the
// file "a/b.json" under it. See the package documentation for the details.
type Store struct {
	dir  string
	root *os.Root
	opts Options
	// sem serialises this Store's writers before they take the file lock,
	// so goroutines queue on a channel instead of polling the lock file.
	sem chan struct{}
	// lazy: a view made by Lazy, whose writes skip the fsyncs.
	lazy bool
	// ordered: a view made by Ordered, whose journalled writes skip the
	// journal's sync.
	ordered bool
	// watch: the listeners of WatchChanges, shared with the Lazy views.
	watch *watchers
	// unsynced: the directories lazy Puts created (lazy.go).
	unsynced *lazyDirs
	// syncHook, when set (by tests), sees every directory syncDir syncs.
	syncHook func(dir string)
	// sweep: the background removal of stale temporary files (cleanup.go).
	sweep *sweeper
	// jnl: the write-ahead journal (journal.go), shared with the Lazy
	// views; nil where it is not supported.
	jnl *journal
	// afterJournal, when set (by tests), runs after each journal append.
	afterJournal func()
	// fds: the lock file and the change counter, kept open (handles.go).
	fds *handles
}

var _ memorybank.Store = (*Store)(nil)

// Open returns a Store on dir, creating the directory (and its parents) if
// it does not exist, and removes the temporary files killed writers left
// there more than a minute ago (best effort, at most about a second, under
// the store lock). Close the Store when done.
func Open(dir string, opts *Options) (*Store, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.LockTimeout == 0 {
		o.LockTimeout = DefaultLockTimeout
	}
	if o.FileMode == 0 {
		o.FileMode = 0o644
	}
	if o.DirMode == 0 {
		o.DirMode = 0o755
	}
	if err := os.MkdirAll(dir, o.DirMode); err != nil {
		return nil, fmt.Errorf("fsstore: open %s: %w", dir, err)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("fsstore: open %s: %w", dir, err)
	}
	s := &Store{dir: dir, root: root, opts: o, sem: make(chan struct{}, 1), watch: newWatchers(), unsynced: &lazyDirs{}, fds: &handles{}}
	if journalSupported {
		s.jnl = &journal{boot: bootID()}
		if err := s.recoverJournal(); err != nil {
			root.Close()
			return nil, fmt.Errorf("fsstore: open %s: %w", dir, err)
		}
	}
	s.startSweep()
	return s, nil
}

// Close releases the directory. Methods called after Close return errors.
func (s *Store) Close() error {
	if s.lazy || s.ordered {
		return nil
	}
	s.stopSweep()
	s.fds.close()
	jerr := s.jnl.close()
	if err := s.root.Close(); err != nil {
		return err
	}
	return jerr
}

// Dir returns the directory the Store was opened on.
func (s *Store) Dir() string { return s.dir }

// CheckKey reports whether Put would accept key by its name: nil, or the
// *memorybank.KeyError (matching memorybank.ErrInvalidKey) of a key that
// is not valid or is a name the store keeps for itself (its lock, its
// change count, its temporary files). It does no I/O, so whoever writes
// many keys (an import) can judge all of them before writing one.
func (s *Store) CheckKey(key string) error { return validateKey(key) }

// validateKey applies memorybank.ValidateKey and rejects the names the store
// keeps for itself.
func validateKey(key string) error {
	if err := memorybank.ValidateKey(key); err != nil {
		return err
	}
	if reason := reservedProblem(key); reason != "" {
		return &memorybank.KeyError{Key: key, Reason: reason}
	}
	return nil
}

func reservedProblem(key string) string {
	if key == LockFileName {
		return fmt.Sprintf("%q is the lock file of the directory store", LockFileName)
	}
	if key == JournalFileName {
		return fmt.Sprintf("%q is the write-ahead journal of the directory store", JournalFileName)
	}
	if key == ChangesFileName {
		return fmt.Sprintf("%q is the change counter of the directory store", ChangesFileName)
	}
	if atomicfile.IsTemp(path.Base(key)) {
		return fmt.Sprintf("names like %q are the directory store's temporary files",
			atomicfile.TempPrefix+"0123456789abcdef"+atomicfile.TempSuffix)
	}
	return ""
}

// Get reads the file for key. Reads take no lock: writes replace files by
// rename, so a read sees the whole old file or the whole new one.
func (s *Store) Get(ctx context.Context, key string) (memorybank.Object, error) {
	if err := validateKey(key); err != nil {
		return memorybank.Object{}, err
	}
	if err := ctx.Err(); err != nil {
		return memorybank.Object{}, err
	}
	// O_NONBLOCK so that a FIFO planted at key cannot hang the read; it has
	// no effect on regular files.
	f, err := s.root.OpenFile(key, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		if isNotExist(err) {
			return memorybank.Object{}, notFound(key)
		}
		return memorybank.Object{}, fmt.Errorf("fsstore: get %q: %w", key, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return memorybank.Object{}, fmt.Errorf("fsstore: get %q: %w", key, err)
	}
	if !fi.Mode().IsRegular() {
		return memorybank.Object{}, notFound(key)
	}
	data, err := readAll(f, fi.Size())
	if err != nil {
		return memorybank.Object{}, fmt.Errorf("fsstore: get %q: %w", key, err)
	}
	return memorybank.Object{Key: key, Data: data, Version: version(fi), ModTime: fi.ModTime()}, nil
}

// Put writes data to key's file under the store lock, if cond holds.
func (s *Store) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	if err := validateKey(key); err != nil {
		return memorybank.Object{}, err
	}
	if err := cond.Validate(); err != nil {
		return memorybank.Object{}, err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return memorybank.Object{}, err
	}
	defer unlock()

	if obj, done, err := s.putInDir(key, data, cond); done {
		return obj, err
	}
	cur, exists, err := s.stat("put", key)
	if err != nil {
		return memorybank.Object{}, err
	}
	if exists && cur.IsDir() {
		return memorybank.Object{}, fmt.Errorf("%w: key %q is a directory holding other keys (list them with prefix %q)",
			ErrPathConflict, key, key+"/")
	}
	var curVersion string
	if exists {
		curVersion = version(cur)
	}
	if err := cond.Check(key, exists, curVersion); err != nil {
		return memorybank.Object{}, err
	}
	if parent := s.fileParent(key); parent != "" {
		return memorybank.Object{}, fmt.Errorf("%w: key %q needs %q to be a directory, but it is a file holding a key",
			ErrPathConflict, key, parent)
	}
	file, err := s.linkTarget(key)
	if err != nil {
		return memorybank.Object{}, err
	}
	done, err := s.countChange()
	if err != nil {
		return memorybank.Object{}, err
	}
	defer done()
	var createdErr error
	var prev time.Time
	if exists {
		prev = cur.ModTime()
	}
	created := func(dir string) {
		if err := s.created(dir); createdErr == nil {
			createdErr = err
		}
	}
	jsize, err := s.writeFile(s.root, file, file, data, prev, created, func() error { return createdErr })
	if err != nil {
		return memorybank.Object{}, fmt.Errorf("fsstore: put %q: %w", key, err)
	}
	if err := s.afterWrite(file, len(data), jsize); err != nil {
		return memorybank.Object{}, fmt.Errorf("fsstore: put %q: written, but: %w", key, err)
	}
	fi, err := s.root.Stat(key)
	if err != nil {
		return memorybank.Object{}, fmt.Errorf("fsstore: put %q: written, but: %w", key, err)
	}
	return memorybank.Object{Key: key, Version: version(fi), ModTime: fi.ModTime()}, nil
}

// putInDir is Put, under the store lock, for the common key: its directory
// exists and it is not a symbolic link. Every step works in the directory
// opened once, so each is one system call rather than a walk from the
// store's root, and the directory's existence answers the path-conflict
// checks; a missing directory is made here. done is false, with nothing
// changed, when the key needs Put's general path (a parent that is a file,
// a link to follow), which also reports those cases' errors.
func (s *Store) putInDir(key string, data []byte, cond memorybank.Condition) (obj memorybank.Object, done bool, err error) {
	d := s.root
	dir, base := path.Split(key)
	if dir != "" {
		dir = dir[:len(dir)-1]
		sub, err := s.root.OpenRoot(dir)
		if err != nil {
			// A missing directory is made here, after the condition, unless
			// a parent is a file (Put reports the conflict).
			if !isNotExist(err) || s.fileParent(key) != "" {
				return memorybank.Object{}, false, nil
			}
			if err := cond.Check(key, false, ""); err != nil {
				return memorybank.Object{}, true, err
			}
			if atomicfile.MkdirAll(s.root, dir, s.opts.DirMode, s.madeDir(len(data))) != nil {
				return memorybank.Object{}, false, nil
			}
			if sub, err = s.root.OpenRoot(dir); err != nil {
				return memorybank.Object{}, false, nil
			}
		}
		defer sub.Close()
		d = sub
	}
	cur, err := d.Lstat(base)
	exists := err == nil
	switch {
	case err != nil && !isNotExist(err), exists && cur.Mode()&fs.ModeSymlink != 0:
		return memorybank.Object{}, false, nil
	case exists && cur.IsDir():
		return memorybank.Object{}, true, fmt.Errorf("%w: key %q is a directory holding other keys (list them with prefix %q)",
			ErrPathConflict, key, key+"/")
	}
	var curVersion string
	var prev time.Time
	if exists {
		curVersion, prev = version(cur), cur.ModTime()
	}
	if err := cond.Check(key, exists, curVersion); err != nil {
		return memorybank.Object{}, true, err
	}
	counted, err := s.countChange()
	if err != nil {
		return memorybank.Object{}, true, err
	}
	defer counted()
	jsize, err := s.writeFile(d, base, key, data, prev, nil, nil)
	if err != nil {
		return memorybank.Object{}, true, fmt.Errorf("fsstore: put %q: %w", key, err)
	}
	if err := s.afterWrite(key, len(data), jsize); err != nil {
		return memorybank.Object{}, true, fmt.Errorf("fsstore: put %q: written, but: %w", key, err)
	}
	fi, err := d.Stat(base)
	if err != nil {
		return memorybank.Object{}, true, fmt.Errorf("fsstore: put %q: written, but: %w", key, err)
	}
	return memorybank.Object{Key: key, Version: version(fi), ModTime: fi.ModTime()}, true, nil
}

// madeDir returns what a Put of n bytes does with each directory it
// creates: a lazy or journalled one notes it (see Store.created), another
// syncs its parent.
func (s *Store) madeDir(n int) func(dir string) error {
	if s.lazy || s.journalled(n) {
		return s.created
	}
	return func(dir string) error { return s.syncDir(s.root, path.Dir(dir)) }
}

// setModTimeAfter gives the temporary file tmp in root the current time, to the
// nanosecond, as modification time, and one later than prev (the replaced
// file's), so that the version changes even when a rewrite of identical
// bytes reuses the inode number of the file it replaces. The kernel stamps
// other programs' writes with a coarse clock, which almost never matches a
// nanosecond time, so their edits change the version too. File systems with
// coarse timestamps get a bigger step.
func setModTimeAfter(root *os.Root, tmp string, prev time.Time) (fs.FileInfo, error) {
	now := time.Now()
	for _, step := range []time.Duration{time.Nanosecond, time.Microsecond, time.Millisecond, time.Second, 2 * time.Second} {
		t := now
		if !t.After(prev) {
			t = prev.Add(step)
		}
		if err := root.Chtimes(tmp, t, t); err != nil {
			return nil, err
		}
		fi, err := root.Stat(tmp)
		if err != nil {
			return nil, err
		}
		if fi.ModTime().After(prev) {
			return fi, nil
		}
		now = prev // the clock was not enough: step past prev
	}
	return nil, fmt.Errorf("cannot give %s a modification time after %v", tmp, prev)
}

// writeFile replaces name in d, which is file in the store's root, with
// data, giving it a modification time after prev. A journalled write
// appends its record, with that time, and syncs the journal before the
// rename and syncs nothing else; it returns the journal's size. Otherwise
// atomicfile syncs the file and its directory (a lazy view: nothing).
// created sees the directories a lazy or journalled write creates; check,
// when set, can refuse the write before it is committed.
func (s *Store) writeFile(d *os.Root, name, file string, data []byte, prev time.Time, created func(string), check func() error) (jsize int64, err error) {
	journalled := s.journalled(len(data))
	if journalled && created == nil {
		created = func(dir string) { _ = s.created(dir) } // the journal's replay makes them again
	}
	err = atomicfile.Write(d, name, data, &atomicfile.Options{
		Perm:    s.opts.FileMode,
		DirPerm: s.opts.DirMode,
		NoSync:  s.lazy || journalled,
		Created: created,
		BeforeCommit: func(tmp string) error {
			if check != nil {
				if err := check(); err != nil {
					return err
				}
			}
			fi, err := setModTimeAfter(d, tmp, prev)
			if err != nil || !journalled {
				return err
			}
			jsize, err = s.appendSync(record{op: opPut, perm: fi.Mode().Perm(), mtime: fi.ModTime().UnixNano(), key: file, data: data})
			return err
		},
	})
	return jsize, err
}

// afterWrite finishes a Put of n bytes to file: a journalled one
// checkpoints the journal when it is due (jsize is its size), another
// makes durable the directories lazy writes created above file.
func (s *Store) afterWrite(file string, n int, jsize int64) error {
	if s.journalled(n) {
		return s.maybeCheckpoint(jsize)
	}
	return s.durableDirs(file)
}

// Delete removes key's file under the store lock, if it exists and cond
// holds, then removes the parent directories it leaves empty.
func (s *Store) Delete(ctx context.Context, key string, cond memorybank.Condition) error {
	if err := validateKey(key); err != nil {
		return err
	}
	if err := cond.Validate(); err != nil {
		return err
	}
	unlock, err := s.lock(ctx)
	if err != nil {
		return err
	}
	defer unlock()

	cur, exists, err := s.stat("delete", key)
	if err != nil {
		return err
	}
	if !exists || !cur.Mode().IsRegular() {
		return notFound(key)
	}
	if err := cond.Check(key, true, version(cur)); err != nil {
		return err
	}
	done, err := s.countChange()
	if err != nil {
		return err
	}
	defer done()
	journalled := s.journalled(0)
	var jsize int64
	if journalled {
		if jsize, err = s.appendSync(record{op: opDelete, mtime: cur.ModTime().UnixNano(), key: key}); err != nil {
			return fmt.Errorf("fsstore: delete %q: %w", key, err)
		}
	}
	if err := s.root.Remove(key); err != nil {
		return fmt.Errorf("fsstore: delete %q: %w", key, err)
	}
	// Remove emptied parents (real directories only, never a symlink to
	// one); Remove fails on the first one that is not empty.
	dir := s.removeEmptyParents(path.Dir(key))
	if journalled {
		if err := s.maybeCheckpoint(jsize); err != nil {
			return fmt.Errorf("fsstore: delete %q: removed, but: %w", key, err)
		}
		return nil
	}
	if s.lazy {
		return nil
	}
	if err := atomicfile.SyncDir(s.root, dir); err != nil {
		return fmt.Errorf("fsstore: delete %q: removed, but: %w", key, err)
	}
	return nil
}

// lock takes the in-process semaphore and then the file lock, both within
// Options.LockTimeout, and returns the function that releases them.
func (s *Store) lock(ctx context.Context) (unlock func(), err error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	start := time.Now()
	var deadline <-chan time.Time
	if s.opts.LockTimeout > 0 {
		t := time.NewTimer(s.opts.LockTimeout)
		defer t.Stop()
		deadline = t.C
	}
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-deadline:
		return nil, s.timeoutError(time.Since(start), nil)
	}
	remaining := time.Duration(-1)
	if s.opts.LockTimeout > 0 {
		remaining = max(s.opts.LockTimeout-time.Since(start), time.Millisecond)
	}
	l, err := s.lockFile(ctx, remaining)
	if err != nil {
		<-s.sem
		if errors.Is(err, lockfile.ErrTimeout) {
			return nil, s.timeoutError(time.Since(start), err)
		}
		if ctxErr := ctx.Err(); ctxErr != nil && errors.Is(err, ctxErr) {
			return nil, err
		}
		return nil, fmt.Errorf("fsstore: lock %s: %w", path.Join(s.dir, LockFileName), err)
	}
	return func() {
		l.Unlock()
		<-s.sem
		s.watch.written()
	}, nil
}

func (s *Store) timeoutError(waited time.Duration, cause error) error {
	msg := fmt.Sprintf("%s %s after %v: another writer holds it (raise Options.LockTimeout if writes are slow, or retry)",
		ErrLockTimeout.Error(), path.Join(s.dir, LockFileName), waited.Round(time.Millisecond))
	if cause != nil {
		return &lockError{msg: msg, errs: []error{ErrLockTimeout, cause}}
	}
	return &lockError{msg: msg, errs: []error{ErrLockTimeout}}
}

type lockError struct {
	msg  string
	errs []error
}

func (e *lockError) Error() string   { return e.msg }
func (e *lockError) Unwrap() []error { return e.errs }

// stat returns key's file info, following symlinks within the root. A key
// whose file or parent does not exist is reported as not existing.
func (s *Store) stat(op, key string) (fs.FileInfo, bool, error) {
	fi, err := s.root.Stat(key)
	if err != nil {
		if isNotExist(err) {
			return nil, false, nil
		}
		return nil, false, fmt.Errorf("fsstore: %s %q: %w", op, key, err)
	}
	return fi, true, nil
}

// fileParent returns the first parent of key that exists and is not a
// directory, or "".
func (s *Store) fileParent(key string) string {
	for i := range len(key) {
		if key[i] != '/' {
			continue
		}
		fi, err := s.root.Stat(key[:i])
		if err != nil {
			return ""
		}
		if !fi.IsDir() {
			return key[:i]
		}
	}
	return ""
}

// isNotExist reports whether err means the file is absent: ENOENT, or
// ENOTDIR because a parent is a file.
func isNotExist(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR)
}

func notFound(key string) error {
	return fmt.Errorf("%w: key %q (no such file in the store's directory)", memorybank.ErrNotFound, key)
}

// version derives the opaque version from file metadata: device, inode,
// size, modification and change times. Every Put replaces the file by a new
// inode with a modification time later than the old one, so the version
// changes on every write, and edits by other programs change at least the
// change time. Hashing keeps the string short and opaque.
func version(fi fs.FileInfo) string {
	dev, ino, ctime := fileIdentity(fi)
	var b [40]byte
	binary.LittleEndian.PutUint64(b[0:], dev)
	binary.LittleEndian.PutUint64(b[8:], ino)
	binary.LittleEndian.PutUint64(b[16:], uint64(fi.Size()))
	binary.LittleEndian.PutUint64(b[24:], uint64(fi.ModTime().UnixNano()))
	binary.LittleEndian.PutUint64(b[32:], uint64(ctime))
	sum := sha256.Sum256(b[:])
	return hex.EncodeToString(sum[:12])
}

// readAll reads f, whose size is probably size, in one allocation.
func readAll(f io.Reader, size int64) ([]byte, error) {
	buf := make([]byte, 0, size+1) // +1 to see EOF without growing
	for {
		n, err := f.Read(buf[len(buf):cap(buf)])
		buf = buf[:len(buf)+n]
		if err == io.EOF {
			return buf, nil
		}
		if err != nil {
			return nil, err
		}
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
	}
}

// pathConflict is ErrPathConflict: its own sentinel, which also matches
// memorybank.ErrPathConflict.
type pathConflict struct{}

func (*pathConflict) Error() string { return "fsstore: key collides with a directory or file" }
func (*pathConflict) Unwrap() error { return memorybank.ErrPathConflict }

// maxLinks bounds the symbolic links Put follows from one key.
const maxLinks = 8

// linkTarget returns the file Put writes for key: key itself, or, when key
// is a symbolic link, the file it points to, so that the link is kept (a
// rename over the link would replace it with a plain file). A link that
// leaves the store, points at the store's own files or forms a loop is an
// error, and nothing is written.
func (s *Store) linkTarget(key string) (string, error) {
	k := key
	for range maxLinks {
		fi, err := s.root.Lstat(k)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			if k != key {
				if a, err1 := s.root.Stat(key); err1 == nil {
					if b, err2 := s.root.Stat(k); err2 == nil && !os.SameFile(a, b) {
						return "", fmt.Errorf("fsstore: put %q: it is a symbolic link whose target cannot be resolved inside the store (a parent folder is a link too); write the target %q instead", key, k)
					}
				}
			}
			return k, nil
		}
		target, err := s.root.Readlink(k)
		if err != nil {
			return "", fmt.Errorf("fsstore: put %q: %w", key, err)
		}
		next := path.Join(path.Dir(k), filepath.ToSlash(target))
		if filepath.IsAbs(target) || !filepath.IsLocal(next) {
			return "", fmt.Errorf("fsstore: put %q: it is a symbolic link to %q, outside the store; nothing was written", key, target)
		}
		if err := validateKey(next); err != nil {
			return "", fmt.Errorf("fsstore: put %q: it is a symbolic link to %q: %w", key, next, err)
		}
		k = next
	}
	return "", fmt.Errorf("fsstore: put %q: more than %d symbolic links in a row (a loop?)", key, maxLinks)
}
