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
	"syscall"
	"time"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
	"github.com/mnemobank/mnemobank/internal/lockfile"
	"github.com/mnemobank/mnemobank/memories"
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
	_ memories.Store        = (*Store)(nil)
	_ memories.Appender     = (*Store)(nil)
	_ memories.Sizer        = (*Store)(nil)
	_ memories.Peeker       = (*Store)(nil)
	_ memories.Versioner    = (*Store)(nil)
	_ memories.CondAppender = (*Store)(nil)
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
// on the first write). A link leading outside the store's directory and the
// primary worktree is an *OutsideError.
func (s *Store) Resolve() (string, error) {
	pl, err := s.locate()
	if err != nil {
		return "", s.fail("resolve", "", err)
	}
	return pl.target, nil
}

func (s *Store) fail(op, resolved string, err error) error {
	if errors.Is(err, lockfile.ErrTimeout) {
		err = fmt.Errorf("%w: %w", ErrLockTimeout, err)
	}
	return &Error{Op: op, Path: s.path, Resolved: resolved, Err: err}
}

// UnreadableError reports a memories file that exists but cannot be read:
// not a regular file (a directory, a device), or no permission. It unwraps
// to memories.ErrUnreadable and to the cause, so memories.Manager reads it
// as no memories (with a warning) and reports it on writes.
type UnreadableError struct {
	Path   string
	Reason string
	Err    error
}

func (e *UnreadableError) Error() string {
	return "cannot read " + e.Path + ": " + e.Reason
}

func (e *UnreadableError) Unwrap() []error {
	if e.Err == nil {
		return []error{memories.ErrUnreadable}
	}
	return []error{memories.ErrUnreadable, e.Err}
}

// readOnly reports a failure to create or open the lock file for writing
// that means nobody can write here: a read-only directory or file system.
func readOnly(err error) bool {
	return errors.Is(err, fs.ErrPermission) || errors.Is(err, syscall.EROFS)
}

// Load returns the file's bytes and version; (nil, "", nil) if it is missing.
// A file that exists but cannot be read (a directory, no permission) is an
// *UnreadableError (memories.ErrUnreadable).
func (s *Store) Load(ctx context.Context) ([]byte, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	pl, err := s.locate()
	if errors.Is(err, fs.ErrNotExist) || err == nil && pl.homeMissing {
		return nil, "", nil // a directory is missing, so is the file
	}
	if err != nil {
		return nil, "", s.fail("load", "", err)
	}
	root, err := os.OpenRoot(pl.root)
	if err != nil {
		return nil, "", s.fail("load", pl.target, err)
	}
	defer root.Close()
	fi, err := root.Stat(pl.rel)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", s.fail("load", pl.target, err)
	}
	if !fi.Mode().IsRegular() {
		return nil, "", s.fail("load", pl.target, &UnreadableError{Path: pl.target,
			Reason: fmt.Sprintf("it is not a regular file (%s)", fileKind(fi.Mode()))})
	}
	l, err := s.lock(ctx, root, pl)
	if readOnly(err) {
		// A read-only directory or file system: no lock file can be made,
		// so no writer through this package can be at work; read without it.
		l, err = &held{root: root, rel: pl.rel, gen: -1}, nil
	}
	if err != nil {
		return nil, "", s.fail("load", pl.target, err)
	}
	defer l.unlock()
	f, err := openFile(root, pl)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", s.fail("load", pl.target, err)
	}
	defer f.Close()
	if fi, err = f.Stat(); err != nil {
		return nil, "", s.fail("load", pl.target, err)
	}
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, "", s.fail("load", pl.target, &UnreadableError{Path: pl.target, Reason: err.Error(), Err: err})
	}
	return data, l.version(fi), nil
}

// Version returns the version Load would return, "" if the file is
// missing, without reading the file: one stat under the lock. A
// memories.Manager uses it to skip reading a file it has indexed already.
func (s *Store) Version(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	pl, err := s.locate()
	if errors.Is(err, fs.ErrNotExist) || err == nil && pl.homeMissing {
		return "", nil
	}
	if err != nil {
		return "", s.fail("version", "", err)
	}
	root, err := os.OpenRoot(pl.root)
	if err != nil {
		return "", s.fail("version", pl.target, err)
	}
	defer root.Close()
	if _, err := root.Stat(pl.rel); errors.Is(err, fs.ErrNotExist) {
		return "", nil
	} else if err != nil {
		return "", s.fail("version", pl.target, err)
	}
	l, err := s.lock(ctx, root, pl)
	if readOnly(err) {
		l, err = &held{root: root, rel: pl.rel, gen: -1}, nil
	}
	if err != nil {
		return "", s.fail("version", pl.target, err)
	}
	defer l.unlock()
	f, err := openFile(root, pl)
	if errors.Is(err, fs.ErrNotExist) {
		return "", nil
	}
	if err != nil {
		return "", s.fail("version", pl.target, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return "", s.fail("version", pl.target, err)
	}
	if !fi.Mode().IsRegular() {
		return "", s.fail("version", pl.target, &UnreadableError{Path: pl.target,
			Reason: fmt.Sprintf("it is not a regular file (%s)", fileKind(fi.Mode()))})
	}
	return l.version(fi), nil
}

// openFile opens the file for reading; no permission is an
// *UnreadableError.
func openFile(root *os.Root, pl place) (*os.File, error) {
	f, err := openRead(root, pl.rel)
	if errors.Is(err, fs.ErrPermission) {
		return nil, &UnreadableError{Path: pl.target, Reason: "permission denied", Err: err}
	}
	return f, err
}

// openRead is root.Open; tests replace it to deny permission, which running
// as root cannot reproduce.
var openRead = func(root *os.Root, name string) (*os.File, error) { return root.Open(name) }

func fileKind(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a named pipe"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return m.Type().String()
}

// Save replaces the file atomically (a temporary file beside the resolved
// target, synced, renamed over it, directory synced) if its version is still
// ifVersion; otherwise memories.ErrConflict and nothing changes. A symbolic
// link at the Store's path stays a link.
func (s *Store) Save(ctx context.Context, data []byte, ifVersion string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	root, pl, err := s.prepare()
	if err != nil {
		return "", s.fail("save", pl.target, err)
	}
	defer root.Close()
	l, err := s.lock(ctx, root, pl)
	if err != nil {
		return "", s.fail("save", pl.target, err)
	}
	defer l.unlock()
	cur, err := l.current()
	if err != nil {
		return "", s.fail("save", pl.target, err)
	}
	if cur != ifVersion {
		return "", memories.ErrConflict
	}
	dir, err := root.OpenRoot(filepath.Dir(pl.rel))
	if err != nil {
		return "", s.fail("save", pl.target, err)
	}
	defer dir.Close()
	if err := atomicfile.Write(dir, filepath.Base(pl.rel), data, nil); err != nil {
		return "", s.fail("save", pl.target, err)
	}
	if err := l.commit(); err != nil {
		return "", s.fail("save", pl.target, err)
	}
	v, err := l.current()
	if err != nil {
		return "", s.fail("save", pl.target, err)
	}
	return v, nil
}

// Append adds entry at the end of the file under the lock, in one write,
// without reading more than the file's last byte: O(len(entry)) whatever the
// file's size. See memories.Appender for the header and newline rules. The
// append is journalled in the lock file first, so if the process dies
// halfway, the next operation cuts the torn tail off.
func (s *Store) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	return s.appendIf(ctx, header, entry, false, "")
}

// AppendIf is Append if the file's version is still ifVersion (checked
// under the lock); otherwise memories.ErrConflict and nothing changes.
func (s *Store) AppendIf(ctx context.Context, header, entry []byte, ifVersion string) (int64, string, error) {
	return s.appendIf(ctx, header, entry, true, ifVersion)
}

func (s *Store) appendIf(ctx context.Context, header, entry []byte, check bool, ifVersion string) (int64, string, error) {
	if err := ctx.Err(); err != nil {
		return 0, "", err
	}
	root, pl, err := s.prepare()
	if err != nil {
		return 0, "", s.fail("append", pl.target, err)
	}
	defer root.Close()
	l, err := s.lock(ctx, root, pl)
	if err != nil {
		return 0, "", s.fail("append", pl.target, err)
	}
	defer l.unlock()
	if check {
		cur, err := l.current()
		if err != nil {
			return 0, "", s.fail("append", pl.target, err)
		}
		if cur != ifVersion {
			return 0, "", memories.ErrConflict
		}
	}
	size, v, err := l.append(header, entry)
	if err != nil {
		return 0, "", s.fail("append", pl.target, err)
	}
	return size, v, nil
}

// Size returns the file's size in bytes, 0 if it is missing.
func (s *Store) Size(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	pl, err := s.locate()
	if errors.Is(err, fs.ErrNotExist) || err == nil && pl.homeMissing {
		return 0, nil
	}
	if err != nil {
		return 0, s.fail("size", "", err)
	}
	root, err := os.OpenRoot(pl.root)
	if err != nil {
		return 0, s.fail("size", pl.target, err)
	}
	defer root.Close()
	fi, err := root.Stat(pl.rel)
	if errors.Is(err, fs.ErrNotExist) {
		return 0, nil
	}
	if err != nil {
		return 0, s.fail("size", pl.target, err)
	}
	return fi.Size(), nil
}

// Peek returns the first n bytes of the file, nil if it is missing. It
// takes no lock: only Save changes bytes before the end, and it does so by
// an atomic rename.
func (s *Store) Peek(ctx context.Context, n int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: Peek of %d bytes: n must be 0 or more", memories.ErrInvalid, n)
	}
	pl, err := s.locate()
	if errors.Is(err, fs.ErrNotExist) || err == nil && pl.homeMissing {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail("peek", "", err)
	}
	root, err := os.OpenRoot(pl.root)
	if err != nil {
		return nil, s.fail("peek", pl.target, err)
	}
	defer root.Close()
	f, err := openFile(root, pl)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, s.fail("peek", pl.target, err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		if err == nil {
			err = &UnreadableError{Path: pl.target, Reason: fmt.Sprintf("it is not a regular file (%s)", fileKind(fi.Mode()))}
		}
		return nil, s.fail("peek", pl.target, err)
	}
	buf := make([]byte, n)
	k, err := io.ReadFull(f, buf)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return nil, s.fail("peek", pl.target, err)
	}
	return buf[:k], nil
}

// prepare locates the file for a write, creating the store's own directory
// (only that one, never missing parents) if needed, and opens its root.
func (s *Store) prepare() (*os.Root, place, error) {
	pl, err := s.locate()
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			err = fmt.Errorf("%w (a Store creates only its own directory, %s, never missing parents)",
				err, filepath.Dir(s.path))
		}
		return nil, pl, err
	}
	if pl.homeMissing {
		if err := os.Mkdir(pl.root, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
			return nil, pl, err
		}
		if pl, err = s.locate(); err != nil {
			return nil, pl, err
		}
	}
	root, err := os.OpenRoot(pl.root)
	if err != nil {
		return nil, pl, err
	}
	return root, pl, nil
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }
