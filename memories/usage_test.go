package memories_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// Searches and injections count the memories they return, in memory until
// a batch is full or FlushUsage; the sidecar then holds count and day.
func TestUsageRecordedInBatches(t *testing.T) {
	usage := new(memories.MemStore)
	m := newManager(t, new(memories.MemStore), &memories.Options{Usage: usage,
		Now: func() time.Time { return time.Date(2026, 3, 2, 9, 0, 0, 0, tokyo) }})
	ms := addAll(t, m, "use pgx for PostgreSQL", "tests never sleep on a timer")
	ctx := t.Context()
	_, err := m.Search(ctx, "pgx")
	require.NoError(t, err)
	_, err = m.Find(ctx, memories.SearchRequest{Query: "pgx"})
	require.NoError(t, err)
	assert.Empty(t, contents(t, usage), "a search does not write")
	got, err := m.Usage(ctx)
	require.NoError(t, err)
	assert.Equal(t, memories.Usage{Count: 2, Last: "2026-03-02"}, got[ms[0].ID], "pending counts are reported")

	require.NoError(t, m.FlushUsage(ctx))
	other := newManager(t, new(memories.MemStore), &memories.Options{Usage: usage})
	got, err = other.Usage(ctx)
	require.NoError(t, err)
	assert.Equal(t, memories.Usage{Count: 2, Last: "2026-03-02"}, got[ms[0].ID])
	assert.NotContains(t, got, ms[1].ID)

	for range memories.UsageBatch {
		_, err = m.InjectionContent(ctx)
		require.NoError(t, err)
	}
	got, err = other.Usage(ctx)
	require.NoError(t, err)
	assert.GreaterOrEqual(t, got[ms[1].ID].Count, memories.UsageBatch/2, "a full batch is written without FlushUsage")
}

// FlushUsage drops the counts of memories that no longer exist, and keeps
// those of memories in the trash, which may come back; when the memories
// cannot be read it drops nothing.
func TestFlushUsageDropsDeletedMemories(t *testing.T) {
	ctx := t.Context()
	usage, trash, store := new(memories.MemStore), new(memories.MemStore), new(memories.MemStore)
	m := newManager(t, store, &memories.Options{Usage: usage, Trash: trash, TrashEntries: 1,
		Now: func() time.Time { return time.Date(2026, 3, 2, 9, 0, 0, 0, tokyo) }})
	ms := addAll(t, m, "use pgx for PostgreSQL", "tests never sleep on a timer", "the linter is staticcheck")
	_, err := m.InjectionContent(ctx)
	require.NoError(t, err)
	require.NoError(t, m.FlushUsage(ctx))
	reader := newManager(t, new(memories.MemStore), &memories.Options{Usage: usage})
	got, err := reader.Usage(ctx)
	require.NoError(t, err)
	require.Len(t, got, 3)

	require.NoError(t, m.Delete(ctx, ms[0].ID))
	require.NoError(t, m.Delete(ctx, ms[1].ID)) // the trash keeps one: ms[0] is gone for good
	unreadable := newManager(t, unreadableStore{store}, &memories.Options{Usage: usage})
	require.NoError(t, unreadable.FlushUsage(ctx))
	got, err = reader.Usage(ctx)
	require.NoError(t, err)
	assert.Len(t, got, 3, "nothing is dropped when the memories cannot be read")

	require.NoError(t, m.FlushUsage(ctx))
	got, err = reader.Usage(ctx)
	require.NoError(t, err)
	assert.NotContains(t, got, ms[0].ID, "deleted and out of the trash")
	assert.Contains(t, got, ms[1].ID, "in the trash: it may be restored")
	assert.Equal(t, memories.Usage{Count: 1, Last: "2026-03-02"}, got[ms[2].ID])
}

// unreadableStore is a Store whose file cannot be read.
type unreadableStore struct{ memories.Store }

func (unreadableStore) Load(context.Context) ([]byte, string, error) {
	return nil, "", fmt.Errorf("%w: permission denied", memories.ErrUnreadable)
}
