package memories_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// A batch removes and adds at once; built on a memory that changed since,
// it is refused and nothing changes; the removed memories can be restored.
func TestBatchAllOrNothing(t *testing.T) {
	store, trash := new(memories.MemStore), new(memories.MemStore)
	m := newManager(t, store, &memories.Options{Trash: trash})
	ctx := t.Context()
	ms := addAll(t, m, "run make itest for integration tests", "integration tests: make itest", "keep gofmt clean")
	expect := map[string]string{ms[0].ID: memories.Fingerprint(ms[0]), ms[1].ID: memories.Fingerprint(ms[1])}

	stale := map[string]string{ms[0].ID: memories.Fingerprint(ms[0]), ms[2].ID: "0123"}
	before := contents(t, store)
	_, err := m.Apply(ctx, memories.Batch{Expect: stale, Remove: []string{ms[0].ID}, Add: []memories.Memory{{Content: "x"}}})
	var ce *memories.ChangedError
	require.ErrorAs(t, err, &ce)
	assert.ErrorIs(t, err, memories.ErrChanged)
	assert.Equal(t, ms[2].ID, ce.ID)
	assert.Equal(t, before, contents(t, store), "nothing changed")

	added, err := m.Apply(ctx, memories.Batch{Expect: expect, Remove: []string{ms[0].ID, ms[1].ID},
		Add: []memories.Memory{{Content: "Integration tests run with make itest", Tags: []string{"go", "test"}}}})
	require.NoError(t, err)
	require.Len(t, added, 1)
	all, err := m.List(ctx)
	require.NoError(t, err)
	require.Len(t, all, 2)
	assert.Equal(t, added[0].ID, all[1].ID)

	_, err = m.Apply(ctx, memories.Batch{Expect: expect, Remove: []string{ms[0].ID}})
	require.ErrorAs(t, err, &ce)
	assert.Empty(t, ce.Got, "a removed memory is reported gone")

	for _, mem := range ms[:2] {
		_, err := m.Restore(ctx, mem.ID)
		require.NoError(t, err)
	}
	back, err := m.Get(ctx, ms[0].ID)
	require.NoError(t, err)
	assert.Equal(t, memories.Fingerprint(ms[0]), memories.Fingerprint(back))
}
