package memories

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A search parses and folds the file again only when its version changed.
func TestSearchReusesTheIndex(t *testing.T) {
	ctx := context.Background()
	m, err := New(new(MemStore), nil)
	require.NoError(t, err)
	_, err = m.Add(ctx, "first")
	require.NoError(t, err)
	_, err = m.Search(ctx, "first")
	require.NoError(t, err)
	first := m.ix
	require.NotNil(t, first)
	_, err = m.Search(ctx, "other")
	require.NoError(t, err)
	assert.Same(t, first, m.ix, "unchanged file: the same index")
	_, err = m.Add(ctx, "second")
	require.NoError(t, err)
	got, err := m.Search(ctx, "second")
	require.NoError(t, err)
	assert.Len(t, got, 1, "a new memory is found at once")
	assert.Same(t, first, m.ix, "a memory this Manager appended: the index is extended")
	other, err := New(m.store, nil)
	require.NoError(t, err)
	_, err = other.Add(ctx, "third")
	require.NoError(t, err)
	got, err = m.Search(ctx, "third")
	require.NoError(t, err)
	assert.Len(t, got, 1, "a memory another Manager added is found at once")
	assert.NotSame(t, first, m.ix, "written by another: the index is built again")
}

// countingStore counts the Loads of a MemStore.
type countingStore struct {
	MemStore
	loads int
}

func (s *countingStore) Load(ctx context.Context) ([]byte, string, error) {
	s.loads++
	return s.MemStore.Load(ctx)
}

// With a Versioner, an unchanged file is not read again; a changed one is.
func TestSearchSkipsReadingAnUnchangedFile(t *testing.T) {
	ctx := context.Background()
	store := &countingStore{}
	m, err := New(store, nil)
	require.NoError(t, err)
	_, err = m.Add(ctx, "first")
	require.NoError(t, err)
	_, err = m.Find(ctx, SearchRequest{Query: "first"})
	require.NoError(t, err)
	loads := store.loads
	_, err = m.Find(ctx, SearchRequest{Query: "first"})
	require.NoError(t, err)
	assert.Equal(t, loads, store.loads, "unchanged: not read")
	other, err := New(store, nil)
	require.NoError(t, err)
	_, err = other.Add(ctx, "second")
	require.NoError(t, err)
	res, err := m.Find(ctx, SearchRequest{Query: "second"})
	require.NoError(t, err)
	assert.Greater(t, store.loads, loads, "changed by another Manager: read again")
	require.Len(t, res.Hits, 1)
}
