package memories_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// The seed's five tests (design doc 003, section 8.1), as written there; the
// "file" is the Store's contents.

func TestSeedAddMemory(t *testing.T) {
	ctx := context.Background()
	store := new(memories.MemStore)
	m := newManager(t, store, &memories.Options{Config: &memories.Config{Enabled: true, Inject: "auto"}})

	_, err := m.Add(ctx, "Always use try-catch", "pattern", "error-handling")
	require.NoError(t, err)

	content := contents(t, store)
	assert.Contains(t, content, "Always use try-catch")
	assert.Contains(t, content, "pattern, error-handling")
}

func TestSeedSearchMemory(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), &memories.Options{Config: &memories.Config{Enabled: true, Inject: "auto"}})

	_, err := m.Add(ctx, "Always use try-catch", "pattern")
	require.NoError(t, err)
	_, err = m.Add(ctx, "Use PostgreSQL", "database")
	require.NoError(t, err)

	results, err := m.Search(ctx, "try-catch")
	require.NoError(t, err)
	require.Len(t, results, 1)
	assert.Equal(t, "Always use try-catch", results[0].Content)
}

func TestSeedDeleteMemory(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), &memories.Options{Config: &memories.Config{Enabled: true, Inject: "auto"}})

	_, err := m.Add(ctx, "Memory 1")
	require.NoError(t, err)
	_, err = m.Add(ctx, "Memory 2")
	require.NoError(t, err)

	list, err := m.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)

	require.NoError(t, m.Delete(ctx, list[0].ID))

	updated, err := m.List(ctx)
	require.NoError(t, err)
	require.Len(t, updated, 1)
	assert.Equal(t, "Memory 2", updated[0].Content, "the right memory is gone")
}

func TestSeedInjectAuto(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), &memories.Options{Config: &memories.Config{Enabled: true, Inject: "auto"}})

	_, err := m.Add(ctx, "Always use try-catch", "pattern")
	require.NoError(t, err)

	injection, err := m.InjectionContent(ctx)
	require.NoError(t, err)
	assert.Contains(t, injection, "# Memories")
	assert.Contains(t, injection, "Always use try-catch")
}

func TestSeedInjectManual(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), &memories.Options{Config: &memories.Config{Enabled: true, Inject: "manual"}})

	_, err := m.Add(ctx, "Always use try-catch", "pattern")
	require.NoError(t, err)

	injection, err := m.InjectionContent(ctx)
	require.NoError(t, err)
	assert.Equal(t, "", injection)
}
