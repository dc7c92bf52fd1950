package lcmemory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	lcmemory "github.com/mnemobank/mnemobank/examples/langchaingo"
	"github.com/mnemobank/mnemobank/memories"
)

// The chain memory is the memories package's injection for the input: the
// relevant memory first, within the Manager's budget.
func TestMemoriesInjectsRelevant(t *testing.T) {
	ctx := context.Background()
	m := newMemories(t, nil, &memories.Options{InjectBudget: 220})
	mem := &lcmemory.Memories{Memories: m}
	assert.Equal(t, "memories", mem.GetMemoryKey(ctx))
	assert.Equal(t, []string{"memories"}, mem.MemoryVariables(ctx))

	vars, err := mem.LoadMemoryVariables(ctx, map[string]any{"input": "Fix the staging database"})
	require.NoError(t, err)
	want, err := memories.Inject(ctx, m, "Fix the staging database")
	require.NoError(t, err)
	got := vars["memories"].(string)
	assert.Equal(t, want, got+"Fix the staging database", "the library's injection, unchanged")
	assert.Contains(t, got, "The staging database is reset every Monday.")
	assert.NotContains(t, got, "Deploys happen", "over the budget")
	assert.Contains(t, got, "more memories not shown")

	// Several inputs: "input" is the one; a custom key is honoured.
	vars, err = mem.LoadMemoryVariables(ctx, map[string]any{"input": "deploys", "history": ""})
	require.NoError(t, err)
	assert.Contains(t, vars["memories"], "Deploys happen on Fridays")
	qa := &lcmemory.Memories{Memories: m, InputKey: "question", MemoryKey: "learned"}
	vars, err = qa.LoadMemoryVariables(ctx, map[string]any{"question": "integration tests", "context": "x"})
	require.NoError(t, err)
	assert.Contains(t, vars["learned"], "Run the integration tests")

	_, err = mem.LoadMemoryVariables(ctx, map[string]any{"query": "a", "other": "b"})
	assert.ErrorContains(t, err, `no "input"`)
	assert.ErrorContains(t, err, "other, query")
	_, err = mem.LoadMemoryVariables(ctx, map[string]any{"input": 3})
	assert.ErrorContains(t, err, "not text")

	// Saving and clearing never touch the learned memories.
	require.NoError(t, mem.SaveContext(ctx, map[string]any{"input": "x"}, map[string]any{"output": "y"}))
	require.NoError(t, mem.Clear(ctx))
	all, err := m.List(ctx)
	require.NoError(t, err)
	assert.Len(t, all, 3)
}

func TestMemoriesInjectionOff(t *testing.T) {
	m := newMemories(t, &memories.Config{Enabled: true, Inject: memories.InjectNone}, nil)
	vars, err := (&lcmemory.Memories{Memories: m}).LoadMemoryVariables(context.Background(), map[string]any{"input": "deploys"})
	require.NoError(t, err)
	assert.Equal(t, "", vars["memories"])
}
