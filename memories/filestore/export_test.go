package filestore

import (
	"context"
	"os"
	"time"

	"github.com/mnemobank/mnemobank/internal/lockfile"
)

// SetWriteHook replaces the write of every append (tests only).
func SetWriteHook(h func(f *os.File, b []byte, off int64) (int, error)) { writeAt = h }

// SetAcquireHook replaces the taking of the lock (tests only); nil restores
// the real one.
func SetAcquireHook(h func(ctx context.Context, root *os.Root, name string, timeout time.Duration) (*lockfile.Lock, error)) {
	if h == nil {
		h = lockfile.AcquireIn
	}
	acquire = h
}

// SetOpenHook replaces the opening of the file for reading (tests only);
// nil restores the real one.
func SetOpenHook(h func(root *os.Root, name string) (*os.File, error)) {
	if h == nil {
		h = func(root *os.Root, name string) (*os.File, error) { return root.Open(name) }
	}
	openRead = h
}
