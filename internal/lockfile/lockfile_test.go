package lockfile_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/lockfile"
)

func TestAcquireTimesOutWhileHeld(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	ctx := context.Background()
	held, err := lockfile.Acquire(ctx, path, time.Second)
	require.NoError(t, err)

	_, err = lockfile.Acquire(ctx, path, 30*time.Millisecond)
	require.ErrorIs(t, err, lockfile.ErrTimeout)
	var te *lockfile.TimeoutError
	require.ErrorAs(t, err, &te)
	assert.Equal(t, path, te.Path)
	assert.GreaterOrEqual(t, te.Waited, 30*time.Millisecond)
	assert.Contains(t, err.Error(), path)

	require.NoError(t, held.Unlock())
	require.NoError(t, held.Unlock(), "a second Unlock is a no-op")

	again, err := lockfile.Acquire(ctx, path, 30*time.Millisecond)
	require.NoError(t, err, "the lock is free after Unlock")
	require.NoError(t, again.Unlock())
}

func TestAcquireHonoursContext(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := lockfile.Acquire(ctx, path, time.Second)
	require.ErrorIs(t, err, context.Canceled)

	held, err := lockfile.Acquire(context.Background(), path, 0)
	require.NoError(t, err)
	defer held.Unlock()

	ctx, cancel = context.WithCancel(context.Background())
	done := make(chan error)
	go func() {
		_, err := lockfile.Acquire(ctx, path, 0) // no timeout: waits for ctx
		done <- err
	}()
	cancel()
	err = <-done
	require.ErrorIs(t, err, context.Canceled)
	assert.False(t, errors.Is(err, lockfile.ErrTimeout))
}

// Goroutines that each acquire the lock exclude one another: a counter kept
// in a file and updated read-modify-write under the lock loses no update.
func TestAcquireExcludesGoroutines(t *testing.T) {
	dir := t.TempDir()
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	require.NoError(t, root.WriteFile("counter", []byte("0"), 0o644))

	const workers, rounds = 4, 50
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for range workers {
		wg.Go(func() {
			for range rounds {
				l, err := lockfile.AcquireIn(context.Background(), root, ".lock", 10*time.Second)
				if err != nil {
					errs <- err
					return
				}
				b, err := root.ReadFile("counter")
				if err == nil {
					n, _ := strconv.Atoi(string(b))
					err = root.WriteFile("counter", []byte(strconv.Itoa(n+1)), 0o644)
				}
				if uerr := l.Unlock(); err == nil {
					err = uerr
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	b, err := root.ReadFile("counter")
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(workers*rounds), string(b))
}

func TestAcquireInStaysInRoot(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	require.NoError(t, err)
	defer root.Close()
	_, err = lockfile.AcquireIn(context.Background(), root, "../escape.lock", time.Second)
	require.Error(t, err)

	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(root.Name(), "link")))
	_, err = lockfile.AcquireIn(context.Background(), root, "link/x.lock", time.Second)
	require.Error(t, err)
	_, statErr := os.Stat(filepath.Join(outside, "x.lock"))
	assert.ErrorIs(t, statErr, os.ErrNotExist, "no lock file was created outside the root")
}

// A lock taken on a kept file excludes a lock taken through another open
// of the same file, and Unlock leaves the kept file open for the next one.
func TestAcquireFileKeepsTheFileOpen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "x.lock")
	ctx := context.Background()
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	require.NoError(t, err)
	defer f.Close()

	held, err := lockfile.AcquireFile(ctx, f, time.Second)
	require.NoError(t, err)
	_, err = lockfile.Acquire(ctx, path, 20*time.Millisecond)
	require.ErrorIs(t, err, lockfile.ErrTimeout, "another open of the file is excluded")
	require.NoError(t, held.Unlock())

	_, err = f.Stat()
	require.NoError(t, err, "Unlock leaves the kept file open")
	other, err := lockfile.Acquire(ctx, path, time.Second)
	require.NoError(t, err)
	_, err = lockfile.AcquireFile(ctx, f, 20*time.Millisecond)
	require.ErrorIs(t, err, lockfile.ErrTimeout, "the kept file waits for the other holder")
	_, err = f.Stat()
	require.NoError(t, err, "a failed acquisition leaves the kept file open")
	require.NoError(t, other.Unlock())
	again, err := lockfile.AcquireFile(ctx, f, time.Second)
	require.NoError(t, err, "the kept file locks again")
	require.NoError(t, again.Unlock())
}
