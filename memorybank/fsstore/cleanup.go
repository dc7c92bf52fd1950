package fsstore

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"time"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
)

// Temporary files left by killed writers are removed in the background
// after Open, once they are older than staleTempAge: no write takes that
// long, so a write still in progress keeps its file without any lock, and
// writers never wait for the sweep. The sweep starts sweepDelay after Open,
// so a server answers its first requests before it walks the directory (at
// 10,000 documents the walk was most of start-up's CPU), and stops at
// cleanupBudget or Close: what it does not reach waits for the next Open.
// Until then List skips the leftovers anyway.
const (
	staleTempAge  = time.Minute
	cleanupBudget = time.Second
)

// sweepDelay is a variable so that tests can sweep at once.
var sweepDelay = 2 * time.Second

// sweeper is the background removal of stale temporary files one Open
// starts; Close stops it and waits for it.
type sweeper struct {
	cancel context.CancelFunc
	done   chan struct{}
}

// startSweep starts the removal of stale temporary files in the background.
func (s *Store) startSweep() {
	ctx, cancel := context.WithCancel(context.Background())
	sw := &sweeper{cancel: cancel, done: make(chan struct{})}
	s.sweep = sw
	delay := sweepDelay
	go func() {
		defer close(sw.done)
		t := time.NewTimer(delay)
		defer t.Stop()
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		ctx, cancelBudget := context.WithTimeout(ctx, cleanupBudget)
		defer cancelBudget()
		s.removeStaleTemp(ctx)
	}()
}

// stopSweep stops the sweep, if one runs, and waits for it to return.
func (s *Store) stopSweep() {
	if s.sweep != nil {
		s.sweep.cancel()
		<-s.sweep.done
	}
}

// removeStaleTemp is best effort: any failure leaves the leftovers, which
// List skips anyway.
func (s *Store) removeStaleTemp(ctx context.Context) {
	cutoff := time.Now().Add(-staleTempAge)
	_ = fs.WalkDir(s.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if ctx.Err() != nil {
			return fs.SkipAll
		}
		if err != nil || !d.IsDir() {
			return nil // unreadable entries are skipped; symbolic links are not followed
		}
		if _, err := atomicfile.RemoveTempBefore(s.root, path.Clean(p), cutoff); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fs.SkipDir
		}
		return nil
	})
}
