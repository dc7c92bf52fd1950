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
	assert.NotSame(t, first, m.ix)
}
