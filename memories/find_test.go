package memories_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// The case: an agent asks in a sentence, and the memory that
// answers it shares only a word or two with it.
func TestSearchAnswersSentences(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	adapter, err := m.Add(ctx, "Always wrap adapter calls in try-catch so one failing adapter does not stop the loop", "pattern")
	require.NoError(t, err)
	for _, c := range []string{"Release notes go in CHANGELOG.md", "Use table tests for parsers", "Run the handlers behind the rate limiter"} {
		_, err := m.Add(ctx, c)
		require.NoError(t, err)
	}
	for _, q := range []string{"how should I handle errors from adapters", "adapter failing", "what happens when an adapter fails?"} {
		res, err := m.Find(ctx, memories.SearchRequest{Query: q})
		require.NoError(t, err)
		require.NotEmpty(t, res.Hits, q)
		assert.Equal(t, adapter.ID, res.Hits[0].ID, q)
		assert.Positive(t, res.Hits[0].Score, q)
		assert.Contains(t, res.Hits[0].Snippet, "adapter", q)
	}
}

// Every memory a substring search finds (every query word a substring of
// the title, a tag or the content) is found, and before every other.
func TestSearchKeepsSubstringMatchesFirst(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	contents := []string{
		"Migrations run in one transaction", "a long note about build caches, module proxies and migrations in passing",
		"go build tips", "Rebuild the index after a migration", "The migra tool is deprecated", "Build migrations with goose",
		"数据库迁移在部署时执行", "迁移 build",
	}
	for i, c := range contents {
		_, err := m.Add(ctx, c, fmt.Sprintf("t%d", i%3))
		require.NoError(t, err)
	}
	all, err := m.List(ctx)
	require.NoError(t, err)
	for _, q := range []string{"migra", "build migrations", "BUILD", "迁移", "t1", "migrations build tips", "uild igra"} {
		var want []string
		for _, mem := range all {
			text := memories.Fold(mem.Title + "\x00" + strings.Join(mem.Tags, "\n") + "\x00" + mem.Content)
			ok := true
			for _, w := range strings.Fields(memories.Fold(q)) {
				ok = ok && strings.Contains(text, w)
			}
			if ok {
				want = append(want, mem.ID)
			}
		}
		got, err := m.Search(ctx, q)
		require.NoError(t, err)
		require.GreaterOrEqual(t, len(got), len(want), q)
		assert.ElementsMatch(t, want, ids(got[:len(want)]), "query %q: the substring matches first", q)
		res, err := m.Find(ctx, memories.SearchRequest{Query: q, Limit: memories.MaxSearchLimit})
		require.NoError(t, err)
		assert.Equal(t, len(got), res.Total, q)
		for k, h := range res.Hits {
			assert.Equal(t, k < len(want), h.Substring, "query %q hit %d", q, k)
		}
	}
}

func TestFindLimits(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	for i := range 25 {
		_, err := m.Add(ctx, fmt.Sprintf("note %d about the build", i))
		require.NoError(t, err)
	}
	for _, tc := range []struct{ limit, want int }{{0, memories.DefaultSearchLimit}, {3, 3}, {memories.MaxSearchLimit, 25}} {
		res, err := m.Find(ctx, memories.SearchRequest{Query: "build", Limit: tc.limit})
		require.NoError(t, err)
		assert.Len(t, res.Hits, tc.want, "limit %d", tc.limit)
		assert.Equal(t, 25, res.Total)
	}
	for _, limit := range []int{-1, memories.MaxSearchLimit + 1} {
		_, err := m.Find(ctx, memories.SearchRequest{Query: "build", Limit: limit})
		var le *memories.LimitError
		require.ErrorAs(t, err, &le, "limit %d", limit)
		assert.Equal(t, "limit", le.Field)
		assert.ErrorIs(t, err, memories.ErrLimit)
		assert.Contains(t, err.Error(), fmt.Sprintf("limit %d is outside 0 to %d", limit, memories.MaxSearchLimit))
	}
	_, err := m.Find(ctx, memories.SearchRequest{Query: strings.Repeat("x", memories.MaxQueryBytes+1)})
	assert.ErrorIs(t, err, memories.ErrLimit)

	off := newManager(t, new(memories.MemStore), &memories.Options{Config: &memories.Config{Enabled: false}})
	res, err := off.Find(ctx, memories.SearchRequest{Query: "build"})
	require.NoError(t, err)
	assert.Empty(t, res.Hits)
}

func TestAddWithReportsSimilar(t *testing.T) {
	ctx := context.Background()
	store := new(memories.MemStore)
	m := newManager(t, store, nil)
	first, err := m.Add(ctx, "Always wrap adapter calls in try-catch so one failing adapter does not stop the loop", "pattern")
	require.NoError(t, err)
	_, err = m.Add(ctx, "The connection pool holds 20 connections per pod")
	require.NoError(t, err)

	res, err := m.AddWith(ctx, "Wrap every adapter call in a try-catch: a failing adapter must not stop the loop", memories.AddOptions{})
	require.NoError(t, err)
	require.Len(t, res.Similar, 1)
	assert.Equal(t, first.ID, res.Similar[0].ID)
	assert.GreaterOrEqual(t, res.Similar[0].Score, memories.SimilarThreshold)
	assert.NotEmpty(t, res.Memory.ID, "added all the same")

	res, err = m.AddWith(ctx, "The connection pool holds 40 connections per pod", memories.AddOptions{IfNoSimilar: true, Tags: []string{"db"}})
	require.NoError(t, err, "another number: another fact")
	assert.Empty(t, res.Similar)
	assert.Equal(t, []string{"db"}, res.Memory.Tags)

	before, _, err := store.Load(ctx)
	require.NoError(t, err)
	_, err = m.AddWith(ctx, "Wrap adapter calls in try-catch so a failing adapter does not stop the loop", memories.AddOptions{IfNoSimilar: true})
	require.ErrorIs(t, err, memories.ErrSimilar)
	var se *memories.SimilarError
	require.True(t, errors.As(err, &se))
	assert.Contains(t, err.Error(), first.ID, "the message names the existing memory")
	assert.Contains(t, err.Error(), "nothing was written")
	require.NotEmpty(t, se.Similar)
	after, _, err := store.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after, "nothing was written")

	sim, err := m.Similar(ctx, "a completely unrelated remark about lunch")
	require.NoError(t, err)
	assert.Empty(t, sim)
	assert.NotNil(t, sim)
}
