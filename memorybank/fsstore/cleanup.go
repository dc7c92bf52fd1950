package fsstore

import (
	"context"
	"errors"
	"io/fs"
	"path"
	"time"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
)

// Temporary files left by killed writers are removed by Open once they are
// older than staleTempAge (no write takes that long), under the store lock
// and within cleanupBudget, so opening a huge or slow directory stays quick:
// what the budget does not reach waits for the next Open.
const (
	staleTempAge  = time.Minute
	cleanupBudget = time.Second
	cleanupLock   = 100 * time.Millisecond // writes hold the lock for milliseconds
)

// removeStaleTemp is best effort: any failure leaves the leftovers, which
// List skips anyway.
func (s *Store) removeStaleTemp() {
	lctx, lcancel := context.WithTimeout(context.Background(), cleanupLock)
	unlock, err := s.lock(lctx)
	lcancel()
	if err != nil {
		return // another writer holds the lock for long: try next Open
	}
	defer unlock()
	ctx, cancel := context.WithTimeout(context.Background(), cleanupBudget)
	defer cancel()
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
