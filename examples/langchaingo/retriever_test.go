package lcmemory_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	lcmemory "github.com/mnemobank/mnemobank/examples/langchaingo"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

func write(t *testing.T, bank *memorybank.Bank, path string, content any) {
	t.Helper()
	req := memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: path}
	if s, ok := content.(string); ok {
		req.Text = s
	} else {
		b, err := json.Marshal(content)
		require.NoError(t, err)
		req.Content = b
	}
	_, err := bank.Write(context.Background(), req)
	require.NoError(t, err)
}

// The retriever reads each hit: text documents give their text, JSON
// documents their content; path, version and score are in the metadata.
func TestBankRetriever(t *testing.T) {
	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	write(t, bank, "decisions/deploy.md", "We deploy on Fridays after the review.")
	write(t, bank, "decisions/deploy.md", "We deploy on Fridays after the review, never on holidays.")
	write(t, bank, "notes/lunch.md", "Lunch is at noon.")
	write(t, bank, "release.json", map[string]any{"deploy": "Friday", "owner": "Kenji"})

	docs, err := (&lcmemory.BankRetriever{Bank: bank}).GetRelevantDocuments(ctx, "deploy friday")
	require.NoError(t, err)
	require.Len(t, docs, 2)
	paths := map[string]int{}
	for i, d := range docs {
		paths[d.Metadata["path"].(string)] = i
		assert.Positive(t, d.Score)
		assert.InDelta(t, float64(d.Score), d.Metadata["score"].(float64), 1e-4)
		assert.Equal(t, "global", d.Metadata["scope"])
	}
	md := docs[paths["decisions/deploy.md"]]
	assert.Equal(t, "We deploy on Fridays after the review, never on holidays.", md.PageContent)
	assert.EqualValues(t, 2, md.Metadata["version"])
	js := docs[paths["release.json"]]
	assert.JSONEq(t, `{"deploy":"Friday","owner":"Kenji"}`, js.PageContent)
	assert.EqualValues(t, 1, js.Metadata["version"])
	assert.GreaterOrEqual(t, docs[0].Score, docs[1].Score, "best first")

	_, err = (&lcmemory.BankRetriever{Bank: bank}).GetRelevantDocuments(ctx, "")
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
}

// With a budget, whole documents only: one that does not fit is left out,
// a smaller one after it is still taken.
func TestBankRetrieverBudget(t *testing.T) {
	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	write(t, bank, "a.md", "deploy deploy deploy deploy "+strings.Repeat("long text about other things ", 60))
	write(t, bank, "b.md", "deploy deploy on Friday")
	write(t, bank, "c.md", "deploy")
	counter := memorybank.TokenCounterFunc(func(s string) int { return len(s) })

	all, err := (&lcmemory.BankRetriever{Bank: bank, Tokens: counter, MaxTokens: 100000}).GetRelevantDocuments(ctx, "deploy")
	require.NoError(t, err)
	require.Len(t, all, 3)
	order := []string{all[0].Metadata["path"].(string), all[1].Metadata["path"].(string), all[2].Metadata["path"].(string)}

	// A budget that holds every document but the largest.
	budget := len("deploy deploy on Friday") + len("deploy")
	some, err := (&lcmemory.BankRetriever{Bank: bank, Tokens: counter, MaxTokens: budget}).GetRelevantDocuments(ctx, "deploy")
	require.NoError(t, err)
	var got []string
	for _, d := range some {
		got = append(got, d.Metadata["path"].(string))
	}
	var want []string
	for _, p := range order {
		if p != "a.md" {
			want = append(want, p)
		}
	}
	assert.Equal(t, want, got)

	none, err := (&lcmemory.BankRetriever{Bank: bank, Tokens: counter, MaxTokens: 3}).GetRelevantDocuments(ctx, "deploy")
	require.NoError(t, err)
	assert.Empty(t, none)
}

func newMemories(t *testing.T, cfg *memories.Config, opts *memories.Options) *memories.Manager {
	t.Helper()
	if opts == nil {
		opts = &memories.Options{}
	}
	day := time.Date(2026, 1, 1, 9, 0, 0, 0, time.UTC)
	opts.Config, opts.Location = cfg, time.UTC
	opts.Now = func() time.Time { day = day.Add(24 * time.Hour); return day }
	m, err := memories.New(&memories.MemStore{}, opts)
	require.NoError(t, err)
	ctx := context.Background()
	for _, c := range []struct{ content, tag string }{
		{"Run the integration tests with -race before a release.", "testing"},
		{"The staging database is reset every Monday.", "ops"},
		{"Deploys happen on Fridays after the review.", "ops"},
	} {
		_, err := m.Add(ctx, c.content, c.tag)
		require.NoError(t, err)
	}
	return m
}

func TestMemoriesRetriever(t *testing.T) {
	m := newMemories(t, nil, nil)
	docs, err := (&lcmemory.MemoriesRetriever{Memories: m}).GetRelevantDocuments(context.Background(), "when do deploys happen")
	require.NoError(t, err)
	require.NotEmpty(t, docs)
	assert.Equal(t, "Deploys happen on Fridays after the review.", docs[0].PageContent)
	assert.Equal(t, []string{"ops"}, docs[0].Metadata["tags"])
	assert.Equal(t, "2026-01-04", docs[0].Metadata["date"])
	assert.NotEmpty(t, docs[0].Metadata["id"])
	assert.InDelta(t, float64(docs[0].Score), docs[0].Metadata["score"].(float64), 1e-4)

	few, err := (&lcmemory.MemoriesRetriever{Memories: m, MaxTokens: 1,
		Tokens: memorybank.TokenCounterFunc(func(string) int { return 2 })}).GetRelevantDocuments(context.Background(), "deploy")
	require.NoError(t, err)
	assert.Empty(t, few)
}
