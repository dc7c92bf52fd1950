package memorybank_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// ListPage, SearchByTagsPage and SearchTextPage return the page Offset and
// Limit select and the number of matches; the pages of a bank put
// together are the whole listing, in order.
func TestPages(t *testing.T) {
	b := memorybank.New(&memorybank.MemStore{}, nil)
	g := memorybank.ScopeGlobal
	for i := range 23 {
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: fmt.Sprintf("d%02d.json", i),
			Content: raw(fmt.Sprintf(`{"text":"alpha %d"}`, i)), Tags: []string{"t"}})
	}
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "other.json", Content: raw(`{"text":"beta"}`)})

	all, err := b.List(ctx, memorybank.ListRequest{Scope: g, Prefix: "d"})
	require.NoError(t, err)
	require.Len(t, all, 23)
	var listed []memorybank.ListEntry
	var tagged []memorybank.SearchHit
	var found []memorybank.TextHit
	for offset := 0; offset < 30; offset += 5 {
		lp, err := b.ListPage(ctx, memorybank.ListRequest{Scope: g, Prefix: "d", Offset: offset, Limit: 5})
		require.NoError(t, err)
		assert.Equal(t, 23, lp.Total)
		listed = append(listed, lp.Items...)
		sp, err := b.SearchByTagsPage(ctx, memorybank.SearchRequest{Tags: []string{"t"}, Scope: g, Offset: offset, Limit: 5})
		require.NoError(t, err)
		assert.Equal(t, 23, sp.Total)
		tagged = append(tagged, sp.Items...)
		tp, err := b.SearchTextPage(ctx, memorybank.TextSearchRequest{Query: "alpha", Scope: g, Offset: offset, Limit: 5})
		require.NoError(t, err)
		assert.Equal(t, 23, tp.Total)
		found = append(found, tp.Items...)
	}
	assert.Equal(t, all, listed)
	require.Len(t, tagged, 23)
	for i, h := range tagged {
		assert.Equal(t, all[i].Path, h.Path)
	}
	best, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "alpha", Scope: g, Limit: 100})
	require.NoError(t, err)
	assert.Equal(t, best, found, "pages of a search are the search")

	_, err = b.ListPage(ctx, memorybank.ListRequest{Scope: g, Offset: -1})
	assert.True(t, errors.Is(err, memorybank.ErrInvalidRequest), "%v", err)
	_, err = b.SearchByTagsPage(ctx, memorybank.SearchRequest{Tags: []string{"t"}, Limit: -1})
	assert.True(t, errors.Is(err, memorybank.ErrInvalidRequest), "%v", err)
	_, err = b.SearchTextPage(ctx, memorybank.TextSearchRequest{Query: "alpha", Offset: -1})
	assert.True(t, errors.Is(err, memorybank.ErrInvalidRequest), "%v", err)
}
