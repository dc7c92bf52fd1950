package pgstore_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// A write counts itself in a row of the change count that must exist;
// when the rows were deleted (a reset) the write is still counted, under a
// new epoch, and so are the writes after it.
func TestChangesCountsWritesAfterAReset(t *testing.T) {
	ctx := t.Context()
	s, pool, opts := newTestStore(t)
	other, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	_, err = s.Put(ctx, "a.md", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)
	_, err = other.Put(ctx, "b.md", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)
	before, err := s.Changes(ctx)
	require.NoError(t, err)
	require.Equal(t, uint64(2), before.N)

	reset := func() {
		t.Helper()
		_, err := pool.Exec(ctx, `DELETE FROM "`+opts.Table+`_changes"`)
		require.NoError(t, err)
	}
	reset()
	_, err = s.Put(ctx, "a.md", []byte("y"), memorybank.Condition{})
	require.NoError(t, err)
	after, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, before.Epoch, after.Epoch, "a reset changes the epoch")
	assert.Equal(t, uint64(1), after.N, "the Put after the reset")

	require.NoError(t, other.Delete(ctx, "b.md", memorybank.Condition{}))
	_, err = s.Put(ctx, "c.md", []byte("x"), memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)
	again, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.Equal(t, after.Epoch, again.Epoch)
	assert.Equal(t, uint64(3), again.N, "a Delete by a Store that made the rows before the reset, and one more Put")

	reset()
	require.NoError(t, s.Delete(ctx, "c.md", memorybank.Condition{}))
	last, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(1), last.N, "a Delete after a reset")
}

// An objects table dropped by hand and created again starts a new epoch of
// the change count: a Bank that had listed the old table (here, one in
// another process) must not take the old count for "nothing changed" and
// keep showing documents that are gone.
func TestRecreatedTableStartsANewEpoch(t *testing.T) {
	ctx := t.Context()
	s, pool, opts := newTestStore(t)
	reader := memorybank.New(s, nil)
	_, err := memorybank.New(s, nil).Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md", Text: "gone soon"})
	require.NoError(t, err)
	listed, err := reader.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	require.Len(t, listed, 1)
	before, err := s.Changes(ctx)
	require.NoError(t, err)

	_, err = pool.Exec(ctx, `DROP TABLE "`+opts.Table+`"`)
	require.NoError(t, err)
	fresh, err := pgstore.New(pool, opts) // another process, starting
	require.NoError(t, err)
	require.NoError(t, fresh.Migrate(ctx))

	after, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.NotEqual(t, before.Epoch, after.Epoch)
	listed, err = reader.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	assert.Empty(t, listed, "the reader still shows the dropped table's documents")
}
