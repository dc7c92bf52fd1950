package storetest

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// signalWait bounds the wait for a change signal. A signal comes "soon
// after" a change: a store that polls (a lost database connection, another
// process) may take a poll interval; none takes this long.
const signalWait = 10 * time.Second

// testChangeNotifier checks the optional ChangeNotifier: a write signals
// every watcher, each watcher has its own channel, and the channel is
// closed when its context ends.
func testChangeNotifier(t *testing.T, s memorybank.Store) {
	cn, ok := s.(memorybank.ChangeNotifier)
	if !ok {
		t.Skip("the store does not implement memorybank.ChangeNotifier (optional)")
	}
	put(t, s, "notify/seed", "x") // a store may start its watch on the first write
	ctx, cancel := context.WithCancel(context.Background())
	a, b := cn.WatchChanges(ctx), cn.WatchChanges(ctx)
	drain(a)
	drain(b)
	put(t, s, "notify/a", "1")
	for name, ch := range map[string]<-chan struct{}{"first": a, "second": b} {
		select {
		case _, open := <-ch:
			require.True(t, open, "the %s watcher's channel closed before its context ended", name)
		case <-time.After(signalWait):
			t.Fatalf("the %s watcher got no signal within %v of a Put", name, signalWait)
		}
	}
	cancel()
	for name, ch := range map[string]<-chan struct{}{"first": a, "second": b} {
		deadline := time.After(signalWait)
	wait:
		for {
			select {
			case _, open := <-ch:
				if !open {
					break wait
				}
			case <-deadline:
				t.Fatalf("the %s watcher's channel is still open %v after its context ended", name, signalWait)
			}
		}
	}
}

// drain empties a signal channel of what earlier writes left in it.
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// testKeyLocker checks the optional KeyLocker: holders of one name
// exclude each other (a read-modify-write with no Condition loses nothing
// under the lock) and a waiter gives up when its context ends. Other names
// may wait too: a store may hash names onto fewer locks.
func testKeyLocker(t *testing.T, s memorybank.Store) {
	kl, ok := s.(memorybank.KeyLocker)
	if !ok {
		t.Skip("the store does not implement memorybank.KeyLocker (optional)")
	}
	ctx := context.Background()
	t.Run("Excludes", func(t *testing.T) {
		put(t, s, "lock/n", "0")
		var wg sync.WaitGroup
		for range Goroutines {
			wg.Go(func() {
				for range Increments {
					assert.NoError(t, lockedIncrement(ctx, kl, "lock/n"))
				}
			})
		}
		wg.Wait()
		requireContent(t, s, "lock/n", strconv.Itoa(Goroutines*Increments), "")
	})
	t.Run("WaiterGivesUp", func(t *testing.T) {
		unlock, err := kl.LockKey(ctx, "held")
		require.NoError(t, err)
		defer unlock()
		short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
		defer cancel()
		_, err = kl.LockKey(short, "held")
		require.Error(t, err, "a second holder got the lock while the first held it")
		assert.ErrorIs(t, err, context.DeadlineExceeded)
	})
	t.Run("ReleasedLockIsFree", func(t *testing.T) {
		unlock, err := kl.LockKey(ctx, "again")
		require.NoError(t, err)
		unlock()
		short, cancel := context.WithTimeout(ctx, signalWait)
		defer cancel()
		unlock, err = kl.LockKey(short, "again")
		require.NoError(t, err, "the lock stayed held after its release")
		unlock()
	})
	t.Run("LongName", func(t *testing.T) {
		name := strings.Repeat("n", memorybank.MaxLockNameBytes)
		unlock, err := kl.LockKey(ctx, name)
		require.NoError(t, err, "a name of MaxLockNameBytes bytes")
		unlock()
	})
}

// lockedIncrement adds one to the counter at key with an unconditional
// Put, which is safe only while the lock excludes every other writer.
func lockedIncrement(ctx context.Context, kl memorybank.KeyLocker, key string) error {
	unlock, err := kl.LockKey(ctx, key)
	if err != nil {
		return err
	}
	defer unlock()
	obj, err := kl.Get(ctx, key)
	if err != nil {
		return err
	}
	v, err := strconv.Atoi(string(obj.Data))
	if err != nil {
		return fmt.Errorf("counter %q holds %q, not a number: %w", key, obj.Data, err)
	}
	_, err = kl.Put(ctx, key, []byte(strconv.Itoa(v+1)), none)
	return err
}

// testLazyWriter checks the optional LazyWriter: the Lazy view holds the
// same keys, versions and compare-and-swap as the store, and its writes
// are seen at once and counted.
func testLazyWriter(t *testing.T, s memorybank.Store) {
	lw, ok := s.(memorybank.LazyWriter)
	if !ok {
		t.Skip("the store does not implement memorybank.LazyWriter (optional)")
	}
	testView(t, s, lw.Lazy())
}

// testOrderedWriter checks the optional OrderedWriter's view as
// testLazyWriter checks the Lazy one: durability aside, it is the store.
func testOrderedWriter(t *testing.T, s memorybank.Store) {
	ow, ok := s.(memorybank.OrderedWriter)
	if !ok {
		t.Skip("the store does not implement memorybank.OrderedWriter (optional)")
	}
	testView(t, s, ow.Ordered())
}

// testView checks that a view of s (Lazy, Ordered) has the same keys,
// versions and compare-and-swap, and that its writes are seen through s at
// once and counted.
func testView(t *testing.T, s, lazy memorybank.Store) {
	ctx := context.Background()
	require.NotNil(t, lazy, "the view is nil")

	a := put(t, s, "lazy/a", "durable")
	got := requireContent(t, lazy, "lazy/a", "durable", a.Version)

	var c0 memorybank.ChangeCount
	cc, counts := s.(memorybank.ChangeCounter)
	if counts {
		var err error
		c0, err = cc.Changes(ctx)
		require.NoError(t, err)
	}
	b, err := lazy.Put(ctx, "lazy/a", []byte("lazy"), ifVersion(got.Version))
	require.NoError(t, err)
	requireContent(t, s, "lazy/a", "lazy", b.Version)

	_, err = lazy.Put(ctx, "lazy/a", []byte("stale"), ifVersion(a.Version))
	require.ErrorIs(t, err, memorybank.ErrConflict, "the view ignored a stale version")
	_, err = s.Put(ctx, "lazy/a", []byte("stale"), ifVersion(a.Version))
	require.ErrorIs(t, err, memorybank.ErrConflict)

	put(t, lazy, "lazy/b", "made lazily")
	requireContent(t, s, "lazy/b", "made lazily", "")
	require.NoError(t, lazy.Delete(ctx, "lazy/b", none))
	requireAbsent(t, s, "lazy/b")
	if counts {
		c1, err := cc.Changes(ctx)
		require.NoError(t, err)
		assert.Equal(t, c0.N+3, c1.N, "the view's two Puts and Delete are counted by the store")
	}
	_, err = lazy.Put(ctx, "../escape", []byte("x"), none)
	assert.ErrorIs(t, err, memorybank.ErrInvalidKey)
}

// testBatchPutter checks the optional BatchPutter: each object gets its
// own error, a condition that fails for one object leaves it alone and
// writes the others, and the written objects read back with new versions.
func testBatchPutter(t *testing.T, s memorybank.Store) {
	bp, ok := s.(memorybank.BatchPutter)
	if !ok {
		t.Skip("the store does not implement memorybank.BatchPutter (optional)")
	}
	ctx := context.Background()
	old := put(t, s, "batch/present", "old")
	objs := []memorybank.Object{
		{Key: "batch/new", Data: []byte("new")},
		{Key: "batch/present", Data: []byte("overwritten")},
		{Key: "../escape", Data: []byte("x")},
		{Key: "batch/deep/new", Data: []byte("deep")},
	}
	errs, err := bp.PutBatch(ctx, objs, ifAbsent)
	require.NoError(t, err)
	require.Len(t, errs, len(objs), "one error per object")
	assert.NoError(t, errs[0])
	assert.ErrorIs(t, errs[1], memorybank.ErrConflict, "IfAbsent on a present key")
	assert.ErrorIs(t, errs[2], memorybank.ErrInvalidKey)
	assert.NoError(t, errs[3])
	requireContent(t, s, "batch/new", "new", "")
	requireContent(t, s, "batch/present", "old", old.Version)
	requireContent(t, s, "batch/deep/new", "deep", "")

	objs[0].Data = []byte("again")
	errs, err = bp.PutBatch(ctx, objs[:1], none)
	require.NoError(t, err)
	require.Len(t, errs, 1)
	require.NoError(t, errs[0])
	requireContent(t, s, "batch/new", "again", "")

	_, err = bp.PutBatch(ctx, objs[:1], memorybank.Condition{IfAbsent: true, IfVersion: "1"})
	assert.ErrorIs(t, err, memorybank.ErrInvalidCondition)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	errs, err = bp.PutBatch(cancelled, []memorybank.Object{{Key: "batch/cancelled", Data: []byte("x")}}, none)
	if err == nil {
		// A store may report the cancellation per object instead.
		require.Len(t, errs, 1)
		err = errs[0]
	}
	assert.True(t, errors.Is(err, context.Canceled), "a cancelled batch: %v", err)
	requireAbsent(t, s, "batch/cancelled")
}
