package fsstore

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/mnemobank/mnemobank/internal/lockfile"
)

// handles are the files every write uses, the lock file and the change
// counter, opened by the first write and kept open instead of opened and
// closed for every write. A Store and its Lazy views share them; they are
// used only under the store's in-process semaphore. Another program may
// delete or replace either file: a write checks, with one stat, that the
// open file is still the one at its name, and opens it again if not (a
// lock on a deleted lock file would not exclude a newcomer, and counts in a
// deleted counter would go unseen).
type handles struct {
	lock, changes *os.File
}

func (h *handles) close() {
	for _, f := range []*os.File{h.lock, h.changes} {
		if f != nil {
			f.Close()
		}
	}
	h.lock, h.changes = nil, nil
}

// current returns f when it is still the file at name in the store, else
// nil, closing f.
func (s *Store) current(f *os.File, name string) *os.File {
	if f == nil {
		return nil
	}
	a, err1 := f.Stat()
	b, err2 := s.root.Lstat(name)
	if err1 == nil && err2 == nil && os.SameFile(a, b) {
		return f
	}
	f.Close()
	return nil
}

// lockFile takes the file lock through the kept lock file. The caller holds
// the semaphore.
func (s *Store) lockFile(ctx context.Context, timeout time.Duration) (*lockfile.Lock, error) {
	start := time.Now()
	for range 3 {
		if s.fds.lock == nil {
			f, err := s.root.OpenFile(LockFileName, os.O_RDWR|os.O_CREATE, 0o644)
			if err != nil {
				return nil, fmt.Errorf("open the lock file: %w", err)
			}
			s.fds.lock = f
		}
		remaining := timeout
		if timeout > 0 {
			remaining = max(timeout-time.Since(start), time.Millisecond)
		}
		l, err := lockfile.AcquireFile(ctx, s.fds.lock, remaining)
		if err != nil {
			return nil, err
		}
		if s.fds.lock = s.current(s.fds.lock, LockFileName); s.fds.lock != nil {
			return l, nil
		}
		// Replaced while we waited: what we locked excludes no one.
		_ = l.Unlock()
	}
	return nil, fmt.Errorf("the lock file %s kept being replaced by another program", LockFileName)
}

// changesFile returns the kept change counter. The caller holds the store
// lock.
func (s *Store) changesFile() (*os.File, error) {
	if s.fds.changes = s.current(s.fds.changes, ChangesFileName); s.fds.changes != nil {
		return s.fds.changes, nil
	}
	f, err := s.root.OpenFile(ChangesFileName, os.O_RDWR|os.O_CREATE, s.opts.FileMode)
	if err != nil {
		return nil, err
	}
	s.fds.changes = f
	return f, nil
}
