package memtools_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/memtools"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

func newTools(t *testing.T) map[string]tools.Tool {
	t.Helper()
	m, err := memories.New(&memories.MemStore{}, nil)
	require.NoError(t, err)
	byName := map[string]tools.Tool{}
	for _, tl := range memtools.For(m) {
		byName[tl.Name] = tl
	}
	return byName
}

func run(t *testing.T, ts map[string]tools.Tool, name, args string) (map[string]any, *tools.Error) {
	t.Helper()
	res, err := ts[name].Handle(context.Background(), tools.Env{}, json.RawMessage(args))
	if err != nil {
		te := tools.AsError(err)
		return nil, te
	}
	data, err := json.Marshal(res)
	require.NoError(t, err)
	var out map[string]any
	require.NoError(t, json.Unmarshal(data, &out))
	return out, nil
}

// add_memory reads tags sent as a string holding the list, as the bank's
// write tools do.
func TestAddMemoryTagsAsAString(t *testing.T) {
	ts := newTools(t)
	out, te := run(t, ts, memtools.AddMemory, `{"content":"Prefer table tests","tags":"[\"go\",\"tests\"]"}`)
	require.Nil(t, te)
	assert.Equal(t, []any{"go", "tests"}, out["memory"].(map[string]any)["tags"])
}

// list_memories pages as the bank's listings do: limit 10 by default,
// more and hint saying how to get the rest; a memory without tags
// answers [] rather than null.
func TestListMemoriesPagesAsTheBankListings(t *testing.T) {
	ts := newTools(t)
	for i := range 12 {
		_, te := run(t, ts, memtools.AddMemory, fmt.Sprintf(`{"content":"lesson %d"}`, i))
		require.Nil(t, te)
	}
	out, te := run(t, ts, memtools.ListMemories, `{}`)
	require.Nil(t, te)
	ms := out["memories"].([]any)
	assert.Len(t, ms, 10)
	assert.Equal(t, []any{}, ms[0].(map[string]any)["tags"])
	assert.EqualValues(t, 2, out["more"])
	assert.Contains(t, out["hint"], "offset 10")
	_, te = run(t, ts, memtools.ListMemories, `{"limit":101}`)
	require.NotNil(t, te)
	assert.Equal(t, tools.CodeInvalidArgument, te.Code, "the bank's bound on limit")
}
