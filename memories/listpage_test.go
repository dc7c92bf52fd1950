package memories_test

import (
	"context"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// ListPage pages through List's memories, in its order, each once.
func TestListPage(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	for i := range 25 {
		_, err := m.Add(ctx, fmt.Sprintf("lesson %d", i), "t")
		require.NoError(t, err)
	}
	all, err := m.List(ctx)
	require.NoError(t, err)
	var paged []memories.Memory
	for offset := 0; offset < 30; offset += 7 {
		p, err := m.ListPage(ctx, offset, 7)
		require.NoError(t, err)
		assert.Equal(t, 25, p.Total)
		paged = append(paged, p.Memories...)
	}
	assert.Equal(t, all, paged)
	p, err := m.ListPage(ctx, 0, 0)
	require.NoError(t, err)
	assert.Len(t, p.Memories, 25)
	p.Memories[0].Tags[0] = "changed"
	again, err := m.ListPage(ctx, 0, 1)
	require.NoError(t, err)
	assert.Equal(t, "t", again.Memories[0].Tags[0], "a page is a copy")
	_, err = m.ListPage(ctx, -1, 1)
	assert.True(t, errors.Is(err, memories.ErrInvalid), "%v", err)
}
