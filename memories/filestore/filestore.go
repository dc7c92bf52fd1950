package filestore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/agentmemory/agentmemory/internal/atomicfile"
	"github.com/agentmemory/agentmemory/internal/lockfile"
	"github.com/agentmemory/agentmemory/memories"
)

// FileName is the conventional name of the memories file inside an agent
// directory (".agent/memories.md").
const FileName = "memories.md"

// DefaultLockTimeout bounds how long an operation waits for another
// process's lock.
const DefaultLockTimeout = 10 * time.Second

// Sentinel errors, checked with errors.Is.
var (
	// ErrLockTimeout: another process held the lock for the whole
	// Options.LockTimeout.
	ErrLockTimeout = errors.New("filestore: timed out waiting for the lock")
	// ErrNotLink: LinkWorktree found a real file (or a link elsewhere)
	// where the link should go.
	ErrNotLink = errors.New("filestore: memories file in the worktree is not a link to the primary")
)

// Error reports a failed operation on a file: Op ("load", "save", "append",
// "size", "link"), Path (as given, and the resolved target when it differs)
// and the cause.
type Error struct {
	Op       string
	Path     string
	Resolved string
	Err      error
}

func (e *Error) Error() string {
	where := e.Path
	if e.Resolved != "" && e.Resolved != e.Path {
		where += " (-> " + e.Resolved + ")"
	}
	return "filestore: " + e.Op + " " + where + ": " + e.Err.Error()
}

func (e *Error) Unwrap() error { return e.Err }

// Options configure a Store. nil means defaults.
type Options struct {
	// LockTimeout bounds the wait for the lock; 0 means DefaultLockTimeout,
	// negative means wait until ctx is done.
	LockTimeout time.Duration
}

// Store is the file-backed memories.Store (with Appender and Sizer) for one
// memories.md. It holds no open files between calls and is safe for
// concurrent use by goroutines and processes.
type Store struct {
	path    string
	timeout time.Duration
}

var (
	_ memories.Store    = (*Store)(nil)
	_ memories.Appender = (*Store)(nil)
	_ memories.Sizer    = (*Store)(nil)
)

// New returns the Store for the file at path (usually
// filepath.Join(dir, FileName)). Nothing is opened or created until the
// first write; path may be, or later become, a symbolic link.
func New(path string, opts *Options) *Store {
	s := &Store{path: path, timeout: DefaultLockTimeout}
	if opts != nil && opts.LockTimeout != 0 {
		s.timeout = opts.LockTimeout
	}
	return s
}

// Path returns the path the Store was made with.
func (s *Store) Path() string { return s.path }

// Resolve returns the file the Store reads and writes now: its path with
// every symbolic link followed, also a dangling one (the target is created
// on the first write).
func (s *Store) Resolve() (string, error) { return resolve(s.path) }

func (s *Store) fail(op, resolved string, err error) error {
	if errors.Is(err, lockfile.ErrTimeout) {
		err = fmt.Errorf("%w: %w", ErrLockTimeout, err)
	}
	return &Error{Op: op, Path: s.path, Resolved: resolved, Err: err}
}

// Load returns the file's bytes and version; (nil, "", nil) if it is missing.
func (s *Store) Load(ctx context.Context) ([]byte, string, error) {
	target, err := resolve(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil // the directory is missing, so is the file
	}
	if err != nil {
		return nil, "", s.fail("load", "", err)
	}
	if _, err := os.Stat(target); errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	l, err := s.lock(ctx, target)
	if errors.Is(err, fs.ErrPermission) {
		// A read-only directory: no lock file can be made, so no writer
		// through this package can be at work; read without it.
		l, err = &held{target: target, gen: -1}, nil
	}
	if err != nil {
		return nil, "", s.fail("load", target, err)
	}
	defer l.unlock()
	f, err := os.Open(target)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", s.fail("load", target, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, "", s.fail("load", target, err)
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, "", s.fail("load", target, err)
	}
	return data, l.version(fi), nil
}

// Save replaces the file atomically (a temporary file beside the resolved
// target, synced, renamed over it, directory synced) if its version is still
// ifVersion; otherwise memories.ErrConflict and nothing changes. A symbolic
// link at the Store's path stays a link.
func (s *Store) Save(ctx context.Context, data []byte, ifVersion string) (string, error) {
	target, err := s.prepare()
	if err != nil {
		return "", s.fail("save", target, err)
	}
	l, err := s.lock(ctx, target)
	if err != nil {
		return "", s.fail("save", target, err)
	}
	defer l.unlock()
	cur, err := l.current()
	if err != nil {
		return "", s.fail("save", target, err)
	}
	if cur != ifVersion {
		return "", memories.ErrConflict
	}
	root, err := os.OpenRoot(filepath.Dir(target))
	if err != nil {
		return "", s.fail("save", target, err)
	}
	defer root.Close()
	if err := atomicfile.Write(root, filepath.Base(target), data, nil); err != nil {
		return "", s.fail("save", target, err)
	}
	if err := l.commit(); err != nil {
		return "", s.fail("save", target, err)
	}
	v, err := l.current()
	if err != nil {
		return "", s.fail("save", target, err)
	}
	return v, nil
}

// Append adds entry at the end of the file under the lock, in one write,
// without reading more than the file's last byte: O(len(entry)) whatever the
// file's size. See memories.Appender for the header and newline rules. The
// append is journalled in the lock file first, so if the process dies
// halfway, the next operation cuts the torn tail off.
func (s *Store) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	target, err := s.prepare()
	if err != nil {
		return 0, "", s.fail("append", target, err)
	}
	l, err := s.lock(ctx, target)
	if err != nil {
		return 0, "", s.fail("append", target, err)
	}
	defer l.unlock()
	size, v, err := l.append(header, entry)
	if err != nil {
		return 0, "", s.fail("append", target, err)
	}
	return size, v, nil
}

// Size returns the file's size in bytes, 0 if it is missing.
func (s *Store) Size(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	target, err := resolve(s.path)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, s.fail("size", "", err)
	}
	fi, err := os.Stat(target)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, s.fail("size", target, err)
	}
	return fi.Size(), nil
}

// prepare creates the directory of the Store's path if needed and returns
// the resolved target.
func (s *Store) prepare() (string, error) {
	target, err := resolve(s.path)
	if errors.Is(err, fs.ErrNotExist) && target != "" {
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		target, err = resolve(s.path)
	}
	if err != nil {
		return "", err
	}
	return target, nil
}

// resolve follows every symbolic link of path, also a dangling last one,
// and returns an absolute path. fs.ErrNotExist means a directory is missing;
// the path returned with it is where the file would be.
func resolve(path string) (string, error) {
	p, err := filepath.Abs(path)
	if err != nil {
		return "", err
	}
	for range 40 {
		fi, err := os.Lstat(p)
		if err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			dir, err := filepath.EvalSymlinks(filepath.Dir(p))
			if err != nil {
				return p, err // p: where the file would be, for MkdirAll
			}
			return filepath.Join(dir, filepath.Base(p)), nil
		}
		t, err := os.Readlink(p)
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(t) {
			t = filepath.Join(filepath.Dir(p), t)
		}
		p = t
	}
	return "", fmt.Errorf("too many levels of symbolic links at %s", path)
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
