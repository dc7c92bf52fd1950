package memories_test

import (
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
