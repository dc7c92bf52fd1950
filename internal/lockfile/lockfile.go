// Package lockfile provides an exclusive lock, held on a lock file, that
// serialises critical sections across OS processes (and across goroutines
// that acquire it separately).
//
// Each Acquire opens the lock file itself and locks that open file (with
// flock(2) on Unix, with LockFileEx on one byte far past the end on
// Windows), so two acquisitions conflict whether they come from two
// processes or from two goroutines of one process. The lock is advisory:
// it excludes only code that takes the same lock. The kernel releases it
// when the holder exits or is killed, so a crash never leaves a stale lock;
// the lock file itself is left in place (deleting it would let a waiter
// lock an unlinked file while a newcomer locks a fresh one).
//
// Waiting is bounded: Acquire polls with a short exponential back-off until
// the lock is free, the timeout passes (error wrapping ErrTimeout) or ctx is
// done (error wrapping ctx.Err()). Polling is used because a blocking
// flock cannot be cancelled.
//
// Supported on Linux, macOS, the BSDs and Windows. Elsewhere (Plan 9,
// wasm) Acquire returns an error wrapping errors.ErrUnsupported. File locks
// are not reliable on some network file systems (older NFS); keep lock
// files on a local disk.
//
// github.com/gofrs/flock does not fit: it opens the lock file by path
// itself, so it cannot lock a file opened inside an os.Root (AcquireIn),
// and on Windows it locks byte 0, which would make the record some callers
// keep in the lock file unreadable to their other handles.
package lockfile

import (
	"context"
	"errors"
	"fmt"
	"os"
	"time"
)

// ErrTimeout is wrapped by the error Acquire returns when the lock stayed
// held by someone else for the whole timeout.
var ErrTimeout = errors.New("lockfile: timed out waiting for the lock")

// TimeoutError reports a lock that could not be acquired in time.
type TimeoutError struct {
	Path   string        // the lock file
	Waited time.Duration // how long Acquire waited
}

func (e *TimeoutError) Error() string {
	return fmt.Sprintf("%s %s: still held by another process or goroutine after %v",
		ErrTimeout.Error(), e.Path, e.Waited.Round(time.Millisecond))
}

// Unwrap returns ErrTimeout.
func (e *TimeoutError) Unwrap() error { return ErrTimeout }

// Lock is a held lock. Release it with Unlock.
type Lock struct {
	f *os.File
	// keep: the caller owns f (AcquireFile); Unlock leaves it open.
	keep bool
}

// Unlock releases the lock. Calling it more than once is a no-op.
func (l *Lock) Unlock() error {
	if l == nil || l.f == nil {
		return nil
	}
	f := l.f
	l.f = nil
	uerr := unlock(f)
	var cerr error
	if !l.keep {
		cerr = f.Close() // closing also releases the lock
	}
	if uerr != nil {
		return fmt.Errorf("lockfile: unlock %s: %w", f.Name(), uerr)
	}
	return cerr
}

// Acquire creates path if needed (mode 0o644) and takes an exclusive lock on
// it, waiting at most timeout (timeout <= 0: until ctx is done).
func Acquire(ctx context.Context, path string, timeout time.Duration) (*Lock, error) {
	return acquire(ctx, path, timeout, func() (*os.File, error) {
		return os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	}, false)
}

// AcquireFile takes the lock on f, a lock file the caller opened and keeps
// open between acquisitions (saving an open and a close per lock); Unlock
// releases the lock and leaves f open. Acquisitions through two open files
// of one lock file still exclude each other; two through the same f do not
// (the caller serialises its own users of f). The caller checks that f is
// still the file at its name if others may replace it.
func AcquireFile(ctx context.Context, f *os.File, timeout time.Duration) (*Lock, error) {
	return acquire(ctx, f.Name(), timeout, func() (*os.File, error) { return f, nil }, true)
}

// AcquireIn is Acquire for the file name inside root, so the lock file
// cannot be outside root even through a symbolic link.
func AcquireIn(ctx context.Context, root *os.Root, name string, timeout time.Duration) (*Lock, error) {
	return acquire(ctx, name, timeout, func() (*os.File, error) {
		return root.OpenFile(name, os.O_RDWR|os.O_CREATE, 0o644)
	}, false)
}

const (
	firstBackoff = 200 * time.Microsecond
	maxBackoff   = 10 * time.Millisecond
)

func acquire(ctx context.Context, name string, timeout time.Duration, open func() (*os.File, error), keep bool) (*Lock, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if err := supported(); err != nil {
		return nil, fmt.Errorf("lockfile: lock %s: %w", name, err)
	}
	f, err := open()
	if err != nil {
		return nil, fmt.Errorf("lockfile: open lock file: %w", err)
	}
	closeF := func() {
		if !keep {
			f.Close()
		}
	}
	start := time.Now()
	var deadline <-chan time.Time
	if timeout > 0 {
		t := time.NewTimer(timeout)
		defer t.Stop()
		deadline = t.C
	}
	backoff := firstBackoff
	var wait *time.Timer
	for {
		ok, err := tryLock(f)
		if err != nil {
			closeF()
			return nil, fmt.Errorf("lockfile: lock %s: %w", name, err)
		}
		if ok {
			return &Lock{f: f, keep: keep}, nil
		}
		if wait == nil {
			wait = time.NewTimer(backoff)
			defer wait.Stop()
		} else {
			wait.Reset(backoff)
		}
		select {
		case <-ctx.Done():
			closeF()
			return nil, fmt.Errorf("lockfile: waiting for %s: %w", name, ctx.Err())
		case <-deadline:
			closeF()
			return nil, &TimeoutError{Path: name, Waited: time.Since(start)}
		case <-wait.C:
		}
		backoff = min(2*backoff, maxBackoff)
	}
}
