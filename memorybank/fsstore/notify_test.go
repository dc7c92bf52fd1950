package fsstore_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// signalDeadline only bounds a failing test: a signal due within
// WatchPollInterval that has not come by then never will.
const signalDeadline = 10 * time.Second

func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case _, open := <-ch:
		require.True(t, open, "%s: the channel was closed instead", what)
	case <-time.After(signalDeadline):
		require.FailNow(t, "no change signal", what)
	}
}

func waitClosed(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	deadline := time.After(signalDeadline)
	for {
		select {
		case _, open := <-ch:
			if !open {
				return
			}
		case <-deadline:
			require.FailNow(t, "not closed", what)
		}
	}
}

// Writes through the Store, or its Lazy view, signal when they are done,
// without waiting for the poll.
func TestWatchChangesSignalsOwnWritesAtOnce(t *testing.T) {
	t.Parallel()
	s := open(t, t.TempDir(), nil)
	fsstore.SetPollInterval(s, time.Hour)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.WatchChanges(wctx)

	_, err := s.Put(ctx, "a.md", []byte("1"), memorybank.Condition{})
	require.NoError(t, err)
	waitSignal(t, ch, "a Put through the Store")
	require.NoError(t, s.Lazy().Delete(ctx, "a.md", memorybank.Condition{}))
	waitSignal(t, ch, "a Delete through the Lazy view")
	errs, err := s.PutBatch(ctx, []memorybank.Object{{Key: "c.md", Data: []byte("1")}}, memorybank.Condition{})
	require.NoError(t, err)
	require.NoError(t, errs[0])
	waitSignal(t, ch, "a batch through the Store")
}

// Writes through other Stores on the directory are heard by the poll.
func TestWatchChangesSignalsWrites(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, nil)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.WatchChanges(wctx)

	other := open(t, dir, nil)
	_, err := other.Put(ctx, "b.md", []byte("1"), memorybank.Condition{})
	require.NoError(t, err)
	waitSignal(t, ch, "a Put through another Store on the directory")

	errs, err := other.PutBatch(ctx, []memorybank.Object{{Key: "c.md", Data: []byte("1")}}, memorybank.Condition{})
	require.NoError(t, err)
	require.NoError(t, errs[0])
	waitSignal(t, ch, "a batch through another Store on the directory")
}

// A writer elsewhere counts its change before its file is in place; a
// listener that looked in between must hear again once the writer is done,
// or it keeps the old file until the next write.
func TestWatchChangesSignalsAgainWhenTheWriterIsDone(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, other := open(t, dir, nil), open(t, dir, nil)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.WatchChanges(wctx)

	finish, err := fsstore.MidWrite(ctx, other)
	require.NoError(t, err)
	waitSignal(t, ch, "the count moved while the writer holds the lock")
	finish()
	waitSignal(t, ch, "the writer released the lock")
}

// A writer that counted before WatchChanges started, and is still at work,
// is signalled when it is done.
func TestWatchChangesStartedMidWrite(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, other := open(t, dir, nil), open(t, dir, nil)
	finish, err := fsstore.MidWrite(ctx, other)
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.WatchChanges(wctx)
	finish()
	waitSignal(t, ch, "the writer released the lock")
}

func TestWatchChangesHearsAnotherProcess(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s := open(t, dir, nil)
	_, err := s.Put(ctx, counterKey, []byte("0"), memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := s.WatchChanges(wctx)
	before, err := s.Changes(ctx)
	require.NoError(t, err)

	cmd := child(t, "increment", dir)
	require.NoError(t, cmd.Start())
	waitSignal(t, ch, "writes of another process")
	require.NoError(t, cmd.Wait(), "child: %s", cmd.Stderr)
	after, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.Equal(t, before.N+processIncrements, after.N)
}

// The poll runs while someone listens, and not after: the last listener's
// context ending closes its channel and stops it; a new listener starts it
// again.
func TestWatchChangesStopsWithItsListeners(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	s, other := open(t, dir, nil), open(t, dir, nil)
	put := func() {
		t.Helper()
		_, err := other.Put(ctx, "a.md", []byte("1"), memorybank.Condition{})
		require.NoError(t, err)
	}

	ctx1, cancel1 := context.WithCancel(ctx)
	ctx2, cancel2 := context.WithCancel(ctx)
	defer cancel2()
	ch1, ch2 := s.WatchChanges(ctx1), s.WatchChanges(ctx2)
	first := fsstore.PollerDone(s)
	require.NotNil(t, first)

	cancel1()
	waitClosed(t, ch1, "the first listener's channel after its context ended")
	put()
	waitSignal(t, ch2, "the second listener, after the first left")
	select {
	case <-first:
		require.FailNow(t, "the poll stopped while a listener remained")
	default:
	}

	cancel2()
	waitClosed(t, ch2, "the second listener's channel after its context ended")
	select {
	case <-first:
	case <-time.After(signalDeadline):
		require.FailNow(t, "the poll still runs after its last listener left")
	}

	ctx3, cancel3 := context.WithCancel(ctx)
	ch3 := s.WatchChanges(ctx3)
	put()
	waitSignal(t, ch3, "a listener after the poll stopped")
	cancel3()
	waitClosed(t, ch3, "the third listener's channel")
	select {
	case <-fsstore.PollerDone(s):
	case <-time.After(signalDeadline):
		require.FailNow(t, "the second poll still runs after its listener left")
	}

	done, cancelDone := context.WithCancel(ctx)
	cancelDone()
	waitClosed(t, s.WatchChanges(done), "a channel asked for with an ended context")
}
