package memories_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// Every substring match is found; better matches come first: a rare term
// outweighs a common one, a title hit a passing mention.
func TestSearchRanksByRelevance(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	add := func(content string, tags ...string) memories.Memory {
		mem, err := m.Add(ctx, content, tags...)
		require.NoError(t, err)
		return mem
	}
	for i := range 5 {
		add(fmt.Sprintf("go build tips number %d", i), "go")
	}
	deep := add("a long note about many things, build caches, module proxies, vendoring, and finally migrations in passing")
	title := add("Migrations: run them in one transaction")
	got, err := m.Search(ctx, "migrations")
	require.NoError(t, err)
	assert.Equal(t, ids([]memories.Memory{title, deep}), ids(got))
	got, err = m.Search(ctx, "migra")
	require.NoError(t, err)
	assert.Len(t, got, 2, "substrings still match")
	got, err = m.Search(ctx, "build migrations")
	require.NoError(t, err)
	require.Len(t, got, 7, "any term may match")
	assert.Equal(t, deep.ID, got[0].ID, "the memory holding every word comes first")
	assert.Equal(t, title.ID, got[1].ID, "then the rarer term")
}

// words counts space-separated words: a TokenCounter for exact budgets.
type words struct{}

func (words) CountTokens(s string) int { return len(strings.Fields(s)) }

// Injection chooses for the prompt: the memories most relevant to it
// first, then the newest, whole ones only, within a token budget, and says
// how many were left out.
func TestInjectionForPrompt(t *testing.T) {
	ctx := context.Background()
	store := new(memories.MemStore)
	m := newManager(t, store, &memories.Options{InjectTokens: 60, Tokens: words{}})
	var added []memories.Memory
	for _, c := range []string{
		"PostgreSQL migrations run inside one transaction",
		"Use table tests for parsers",
		"Never sleep in tests; wait on a channel",
		"Release notes go in CHANGELOG.md",
	} {
		mem, err := m.Add(ctx, c)
		require.NoError(t, err)
		added = append(added, mem)
	}
	out, err := m.InjectionFor(ctx, "Please add a PostgreSQL migration for the users table")
	require.NoError(t, err)
	assert.Less(t, words{}.CountTokens(out), 61, "within the token budget")
	require.Contains(t, out, added[0].Title, "the relevant memory is in")
	assert.Equal(t, strings.Index(out, "## "), strings.Index(out, "## "+added[0].Title), "the relevant memory comes first")
	assert.Regexp(t, `\(\d+ more memor(y|ies) not shown\)`, out, "the count of those left out")

	injected, err := memories.Inject(ctx, m, "migration please")
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(injected, "migration please"))
	assert.Contains(t, injected, added[0].Title, "Inject chooses for the prompt")

	// Without a prompt: the newest first, as before.
	plain := newManager(t, store, nil)
	out, err = plain.InjectionContent(ctx)
	require.NoError(t, err)
	assert.Less(t, strings.Index(out, added[3].Title), strings.Index(out, added[0].Title))
}

// The injection ranks with the search's engine: inflections meet and a
// prompt's function words do not count.
func TestInjectionForUsesTheSearchEngine(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	relevant, err := m.Add(ctx, "A migration fails when it adds a validated CHECK constraint to a large table")
	require.NoError(t, err)
	for _, c := range []string{"What the team does on Fridays: the demo", "Where the logs are: the logs bucket", "How the release works: tag, then push"} {
		_, err := m.Add(ctx, c)
		require.NoError(t, err)
	}
	out, err := m.InjectionFor(ctx, "Why do the migrations keep failing? What is the fix, and where is it?")
	require.NoError(t, err)
	assert.Equal(t, strings.Index(out, "## "), strings.Index(out, "## "+relevant.Title), "the relevant memory comes first:\n%s", out)
}
