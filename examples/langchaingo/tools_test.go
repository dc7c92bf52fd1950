package lcmemory_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	lcmemory "github.com/mnemobank/mnemobank/examples/langchaingo"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/memorybank/tools/toolcall"
)

func bankTools(t *testing.T, opts ...tools.Option) map[string]*lcmemory.Tool {
	t.Helper()
	set, err := toolcall.New(tools.For(memorybank.New(&memorybank.MemStore{}, nil), opts...), tools.Env{})
	require.NoError(t, err)
	out := map[string]*lcmemory.Tool{}
	for _, tl := range lcmemory.Tools(set) {
		out[tl.Name()] = tl.(*lcmemory.Tool)
	}
	return out
}

// The description carries the schema, since the agent declares a single
// string argument; it stays within 1,024 characters (the most OpenAI's
// Assistants API takes for a function's description), also with a branch
// note.
func TestToolDescriptions(t *testing.T) {
	ts := bankTools(t, tools.BranchNote(` Omitted: "feature/some-long-branch-name".`))
	require.Len(t, ts, len(tools.For(nil)))
	for name, tl := range ts {
		schema := tl.Description()[strings.Index(tl.Description(), "{"):]
		var s map[string]any
		require.NoError(t, json.Unmarshal([]byte(schema), &s), name)
		assert.Equal(t, "object", s["type"], name)
		assert.LessOrEqual(t, len(tl.Description()), 1024, name)
	}
}

// A failed call is an observation the agent reads, not an error that ends
// its run; only cancellation is an error.
func TestToolCall(t *testing.T) {
	ts := bankTools(t)
	ctx := context.Background()
	out, err := ts[tools.WriteGlobalMemoryBank].Call(ctx, `{"path":"a.md","content":"x"}`)
	require.NoError(t, err)
	assert.Contains(t, out, `"version":1`)

	out, err = ts[tools.ReadGlobalMemoryBank].Call(ctx, `{"path":"b.md"}`)
	require.NoError(t, err)
	assert.Contains(t, out, `"code":"NOT_FOUND"`)
	out, err = ts[tools.ReadGlobalMemoryBank].Call(ctx, `not json`)
	require.NoError(t, err)
	assert.Contains(t, out, `"code":"INVALID_ARGUMENT"`)

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = ts[tools.ReadGlobalMemoryBank].Call(cancelled, `{"path":"a.md"}`)
	assert.ErrorIs(t, err, context.Canceled)
}
