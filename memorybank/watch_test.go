package memorybank_test

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// A host watches documents through the Bank: Watch signals after a write
// by another Bank on the same store, and DocumentVersions tells which
// documents changed, "" for those that do not exist.
func TestWatchAndDocumentVersions(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		watcher, writer := memorybank.New(store, nil), memorybank.New(store, nil)
		g := memorybank.ScopeGlobal
		docs := []memorybank.ReadRequest{
			{Scope: g, Path: "a.json"},
			{Scope: g, Path: "b.md"},
			{Scope: g, Path: "../escape.md"},
			{Scope: memorybank.ScopeBranch, Branch: "no-such-branch", Path: "x.json"},
		}
		mustWrite(t, writer, memorybank.WriteRequest{Scope: g, Path: "a.json", Content: raw(`{"n":1}`)})
		before, err := watcher.DocumentVersions(ctx, docs)
		require.NoError(t, err)
		require.Len(t, before, 4)
		assert.NotEmpty(t, before[0])
		assert.Equal(t, []string{"", "", ""}, before[1:], "missing, invalid and bankless documents have no version")

		wctx, cancel := context.WithCancel(ctx)
		changed := watcher.Watch(wctx, time.Millisecond)
		mustWrite(t, writer, memorybank.WriteRequest{Scope: g, Path: "a.json", Content: raw(`{"n":2}`)})
		select {
		case _, open := <-changed:
			require.True(t, open)
		case <-time.After(10 * time.Second):
			t.Fatal("Watch did not signal a write by another Bank")
		}
		after, err := watcher.DocumentVersions(ctx, docs)
		require.NoError(t, err)
		assert.NotEqual(t, before[0], after[0], "the written document's version moved")
		assert.Equal(t, before[1:], after[1:])

		cancel()
		for range changed { // closed once ctx ends
		}
	})
}
