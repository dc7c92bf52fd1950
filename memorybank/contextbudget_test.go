package memorybank_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// seedBudgetBank writes a global core file and 40 notes of about 120
// tokens each, the last written being the most recent.
func seedBudgetBank(t *testing.T, b *memorybank.Bank) {
	t.Helper()
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "core/overview.md", Text: "# Overview\n\nA shop.\n"})
	for i := range 40 {
		topic := fmt.Sprintf("topic%02d", i)
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/" + topic + ".md",
			Text: "# Note " + topic + "\n\n" + strings.Repeat("Ordinary remarks about the shop and its customers. ", 12)})
	}
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/payments.md",
		Text: "# Payments\n\nRefunds go through the Stripe dashboard; partial refunds need a manager.\n"})
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/topic40.md",
		Text: "# Note topic40\n\n" + strings.Repeat("Ordinary remarks about the shop and its customers. ", 12)})
}

// tokensUsed counts what MaxTokens counts for the memory files.
func tokensUsed(res *memorybank.ReadContextResult) int {
	n := 0
	for _, m := range []map[string]memorybank.ContextFile{res.BranchMemory, res.GlobalMemory} {
		for p, cf := range m {
			n += memorybank.EstimateTokens(string(must(json.Marshal(p))) + ":" + string(must(json.Marshal(cf))))
		}
	}
	return n
}

func TestReadContextTokenBudgetWithQuery(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		seedBudgetBank(t, b)
		const budget = 1000
		res, err := b.ReadContext(ctx, memorybank.ReadContextRequest{IncludeBranchMemory: no, IncludeRules: no,
			MaxTokens: budget, Query: "how are refunds handled"})
		require.NoError(t, err)
		require.Contains(t, res.GlobalMemory, "core/overview.md", "core files first")
		require.Contains(t, res.GlobalMemory, "notes/payments.md", "the relevant document next")
		assert.LessOrEqual(t, tokensUsed(res), budget-budget/10)
		assert.Greater(t, len(res.GlobalMemory), 2, "then others fill the budget")
		assert.Less(t, len(res.GlobalMemory), 42)
		assert.True(t, res.Truncated)
		require.NotEmpty(t, res.LeftOut)
		for _, l := range res.LeftOut {
			assert.NotContains(t, res.GlobalMemory, l.Path)
			assert.Greater(t, l.Tokens, 50, "%s: each left out document carries its size", l.Path)
		}
		// The listing stays within its share; the rest is counted.
		assert.LessOrEqual(t, memorybank.EstimateTokens(string(must(json.Marshal(res.LeftOut)))), budget/10+len(res.LeftOut))
		assert.Equal(t, 43, len(res.GlobalMemory)+len(res.LeftOut)+res.More)
		assert.Positive(t, res.More)
		assert.Equal(t, fmt.Sprintf("and %d more; use search_documents or list_documents", res.More), res.Note)
		assert.Empty(t, res.OtherGlobalFiles, "left out documents are in LeftOut")
	})
}

func TestReadContextTokenBudgetMostRecent(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	seedBudgetBank(t, b)
	res, err := b.ReadContext(ctx, memorybank.ReadContextRequest{IncludeBranchMemory: no, IncludeRules: no, MaxTokens: 500})
	require.NoError(t, err)
	assert.Contains(t, res.GlobalMemory, "notes/topic40.md", "without a query, the most recent first")
	assert.Contains(t, res.GlobalMemory, "notes/payments.md")
	assert.NotContains(t, res.GlobalMemory, "notes/topic00.md")
	assert.LessOrEqual(t, tokensUsed(res), 450)
}

func TestReadContextDefaultTokenBudget(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	seedBudgetBank(t, b)
	// Without MaxTokens or a query, only core files are included and the
	// other documents listed by path, within the default budget.
	res, err := b.ReadContext(ctx, memorybank.ReadContextRequest{IncludeBranchMemory: no, IncludeRules: no})
	require.NoError(t, err)
	assert.Equal(t, []string{"core/overview.md"}, mapKeys(res.GlobalMemory))
	assert.Len(t, res.OtherGlobalFiles, 42)
	assert.Zero(t, res.More)

	// A host's tokenizer replaces the estimate.
	calls := 0
	counter := memorybank.TokenCounterFunc(func(s string) int { calls++; return len(s) })
	b2 := memorybank.New(b.Store(), &memorybank.Options{TokenCounter: counter, ContextTokens: 300})
	res, err = b2.ReadContext(ctx, memorybank.ReadContextRequest{IncludeBranchMemory: no, IncludeRules: no})
	require.NoError(t, err)
	assert.Positive(t, calls)
	assert.Less(t, len(res.OtherGlobalFiles), 42)
	assert.Equal(t, 42, len(res.OtherGlobalFiles)+res.More)
	assert.True(t, res.Truncated)

	// Negative: unlimited.
	b3 := memorybank.New(b.Store(), &memorybank.Options{ContextTokens: -1})
	res, err = b3.ReadContext(ctx, memorybank.ReadContextRequest{IncludeBranchMemory: no, IncludeRules: no})
	require.NoError(t, err)
	assert.Len(t, res.OtherGlobalFiles, 42)
	assert.Equal(t, memorybank.DefaultContextTokens, memorybank.New(b.Store(), nil).Options().ContextTokens)

	_, err = b.ReadContext(ctx, memorybank.ReadContextRequest{IncludeBranchMemory: no, MaxTokens: -5})
	require.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	_, err = b.ReadContext(ctx, memorybank.ReadContextRequest{IncludeBranchMemory: no, Query: strings.Repeat("x", memorybank.MaxQueryBytes+1)})
	require.ErrorIs(t, err, memorybank.ErrInvalidRequest)
}
