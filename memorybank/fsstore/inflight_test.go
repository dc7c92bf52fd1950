package fsstore_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// A reader that looks at the directory in the middle of another Store's
// write (the count has moved, the file is not renamed yet) must not keep
// what it saw as current: once the write is done, its next search sees the
// new content although the count did not move again.
func TestReaderMidWriteIsNotStale(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	w, r := open(t, dir, nil), open(t, dir, nil)
	writer, reader := memorybank.New(w, nil), memorybank.New(r, nil)
	_, err := writer.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md", Text: "# Notes\n\nalpha\n"})
	require.NoError(t, err)
	search := func(q string) int {
		p, err := reader.SearchTextPage(ctx, memorybank.TextSearchRequest{Query: q, Scope: memorybank.ScopeGlobal})
		require.NoError(t, err)
		return p.Total
	}
	require.Equal(t, 1, search("alpha"))

	finish, err := fsstore.MidWrite(ctx, w)
	require.NoError(t, err)
	assert.Zero(t, search("bravo"), "mid-write, the old file is still in place")
	// The write renames its new file into place, then finishes.
	file := filepath.Join(dir, "global-memory-bank", "notes.md")
	old, err := os.ReadFile(file)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(file, []byte(strings.Replace(string(old), "alpha", "bravo", 1)), 0o644))
	finish()

	assert.Equal(t, 1, search("bravo"), "the reader kept a listing made mid-write as current")
}

// Two readings taken while a write is in flight never compare equal, and
// none equals a reading taken after it.
func TestChangesMidWrite(t *testing.T) {
	ctx := context.Background()
	s := open(t, t.TempDir(), nil)
	_, err := s.Put(ctx, "global-memory-bank/a.md", []byte("a"), memorybank.Condition{})
	require.NoError(t, err)
	before, err := s.Changes(ctx)
	require.NoError(t, err)
	finish, err := fsstore.MidWrite(ctx, s)
	require.NoError(t, err)
	mid1, err := s.Changes(ctx)
	require.NoError(t, err)
	mid2, err := s.Changes(ctx)
	require.NoError(t, err)
	finish()
	after, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, mid1, mid2)
	assert.NotEqual(t, mid1, after)
	assert.Equal(t, before.Epoch, after.Epoch, "a finished write keeps the epoch")
	assert.Equal(t, before.N+1, after.N)
}

// A writer killed mid-write leaves its mark in the count file; readers then
// look again on every call, but the change poller does not take each of
// those readings for a new change: it signals once, not on every tick.
func TestWatchChangesWithAStuckWriteMark(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	dir := t.TempDir()
	s := open(t, dir, nil)
	_, err := s.Put(ctx, "global-memory-bank/a.md", []byte("a"), memorybank.Condition{})
	require.NoError(t, err)
	f, err := os.OpenFile(filepath.Join(dir, fsstore.ChangesFileName), os.O_RDWR, 0)
	require.NoError(t, err)
	_, err = f.WriteAt([]byte{1}, 16) // the killed writer's mark
	require.NoError(t, err)
	require.NoError(t, f.Close())
	c1, err := s.Changes(ctx)
	require.NoError(t, err)
	c2, err := s.Changes(ctx)
	require.NoError(t, err)
	require.NotEqual(t, c1, c2, "readers look again while the mark stands")

	fsstore.SetPollInterval(s, time.Millisecond)
	ch := s.WatchChanges(ctx)
	signals := 0
	deadline := time.After(200 * time.Millisecond) // 200 ticks
	for done := false; !done; {
		select {
		case <-ch:
			signals++
		case <-deadline:
			done = true
		}
	}
	assert.LessOrEqual(t, signals, 1, "the poller took every reading of a stuck mark for a change")
}
