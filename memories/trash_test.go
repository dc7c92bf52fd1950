package memories_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// A deleted memory can be restored with its id, date and tags; the trash is
// bounded; without a trash nothing can be restored.
func TestDeleteCanBeUndone(t *testing.T) {
	store, trash := new(memories.MemStore), new(memories.MemStore)
	m := newManager(t, store, &memories.Options{Trash: trash, TrashEntries: 3})
	ctx := t.Context()
	var added []memories.Memory
	for _, c := range []string{"use pgx for PostgreSQL", "tests never sleep", "one job per package", "errors are sentinels", "gofmt before commit"} {
		mem, err := m.Add(ctx, c, "go")
		require.NoError(t, err)
		added = append(added, mem)
	}
	err := m.Delete(ctx, added[1].ID)
	require.NoError(t, err)
	_, err = m.Get(ctx, added[1].ID)
	require.ErrorIs(t, err, memories.ErrNotFound)
	deleted, err := m.Deleted(ctx)
	require.NoError(t, err)
	require.Len(t, deleted, 1)
	assert.Equal(t, added[1].ID, deleted[0].ID)

	got, err := m.Restore(ctx, added[1].ID)
	require.NoError(t, err)
	assert.Equal(t, added[1].ID, got.ID)
	back, err := m.Get(ctx, added[1].ID)
	require.NoError(t, err)
	assert.Equal(t, added[1].Content, back.Content)
	assert.Equal(t, added[1].Tags, back.Tags)
	assert.Equal(t, added[1].Date, back.Date)
	deleted, err = m.Deleted(ctx)
	require.NoError(t, err)
	assert.Empty(t, deleted, "a restored memory leaves the trash")
	list, err := m.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, len(added))

	_, err = m.Restore(ctx, added[1].ID)
	require.ErrorIs(t, err, memories.ErrNotFound, "restored once")

	for _, mem := range added {
		require.NoError(t, m.Delete(ctx, mem.ID))
	}
	deleted, err = m.Deleted(ctx)
	require.NoError(t, err)
	require.Len(t, deleted, 3, "the trash keeps the newest TrashEntries")
	assert.Equal(t, added[4].ID, deleted[2].ID)
	_, err = m.Restore(ctx, added[0].ID)
	require.ErrorIs(t, err, memories.ErrNotFound, "dropped as too old")
	for _, mem := range added[2:] {
		_, err := m.Restore(ctx, mem.ID)
		require.NoError(t, err)
	}
	list, err = m.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 3)

	plain := newManager(t, new(memories.MemStore), nil)
	mem, err := plain.Add(ctx, "x")
	require.NoError(t, err)
	require.NoError(t, plain.Delete(ctx, mem.ID))
	_, err = plain.Restore(ctx, mem.ID)
	require.ErrorIs(t, err, memories.ErrNotFound)
}

// A memory copied to the trash but still in the file (its writer stopped
// between the two writes) is restored by emptying it from the trash, never
// duplicated.
func TestRestoreOfAMemoryStillPresent(t *testing.T) {
	store, trash := new(memories.MemStore), new(memories.MemStore)
	m := newManager(t, store, &memories.Options{Trash: trash})
	ctx := t.Context()
	mem, err := m.Add(ctx, "kept twice")
	require.NoError(t, err)
	entry, err := memories.EncodeEntry(mem)
	require.NoError(t, err)
	_, err = trash.Save(ctx, append([]byte(memories.Header), entry...), "")
	require.NoError(t, err)
	_, err = m.Restore(ctx, mem.ID)
	require.NoError(t, err)
	list, err := m.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 1)
	deleted, err := m.Deleted(ctx)
	require.NoError(t, err)
	assert.Empty(t, deleted)
}
