package mcpserver

import (
	"github.com/mnemobank/mnemobank/memorybank/tools"

	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

func argsJSON(t *testing.T, v map[string]any) string {
	t.Helper()
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}

// Every input of the memory tools at its limit is accepted and just past it
// refused, with an error that quotes at most a short prefix of it.
func TestMemoryToolLimits(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	tags := func(n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("tag-%d", i)
		}
		return out
	}
	cases := []struct {
		name string
		tool string
		args map[string]any
		code string // "" when accepted
	}{
		{"content at the limit", "add_memory", map[string]any{"content": strings.Repeat("é", memories.MaxContentBytes/2)}, ""},
		{"content past the limit", "add_memory", map[string]any{"content": strings.Repeat("é", memories.MaxContentBytes/2) + "x"}, "LIMIT_EXCEEDED"},
		{"1 MB of content", "add_memory", map[string]any{"content": strings.Repeat("a", 1<<20)}, "LIMIT_EXCEEDED"},
		{"tags at the limit", "add_memory", map[string]any{"content": "x", "tags": tags(memories.MaxTags)}, ""},
		{"tags past the limit", "add_memory", map[string]any{"content": "x", "tags": tags(memories.MaxTags + 1)}, "INVALID_ARGUMENT"},
		{"10,000 tags", "add_memory", map[string]any{"content": "x", "tags": tags(10000)}, "INVALID_ARGUMENT"},
		{"type and tags past the limit", "add_memory", map[string]any{"content": "x", "type": "fact", "tags": tags(memories.MaxTags)}, "LIMIT_EXCEEDED"},
		{"tag past the limit", "add_memory", map[string]any{"content": "x", "tags": []string{strings.Repeat("t", memories.MaxTagBytes+1)}}, "LIMIT_EXCEEDED"},
		{"query at the limit", "search_memories", map[string]any{"query": strings.Repeat("q", memories.MaxQueryBytes)}, ""},
		{"query past the limit", "search_memories", map[string]any{"query": strings.Repeat("q", memories.MaxQueryBytes+1)}, "LIMIT_EXCEEDED"},
		{"empty query", "search_memories", map[string]any{"query": ""}, "INVALID_ARGUMENT"},
		{"white space query", "search_memories", map[string]any{"query": " \t\n"}, "INVALID_ARGUMENT"},
		{"search limit at the maximum", "search_memories", map[string]any{"query": "x", "limit": tools.MaxPageLimit}, ""},
		{"search limit past the maximum", "search_memories", map[string]any{"query": "x", "limit": tools.MaxPageLimit + 1}, "INVALID_ARGUMENT"},
		{"search limit zero", "search_memories", map[string]any{"query": "x", "limit": 0}, "INVALID_ARGUMENT"},
		{"list limit at the maximum", "list_memories", map[string]any{"limit": tools.MaxPageLimit}, ""},
		{"list limit past the maximum", "list_memories", map[string]any{"limit": tools.MaxPageLimit + 1}, "INVALID_ARGUMENT"},
		{"list offset negative", "list_memories", map[string]any{"offset": -1}, "INVALID_ARGUMENT"},
		{"id past the limit", "delete_memory", map[string]any{"id": strings.Repeat("i", memories.MaxIDBytes+1)}, "LIMIT_EXCEEDED"},
		{"id past the limit (restore)", "restore_memory", map[string]any{"id": strings.Repeat("i", memories.MaxIDBytes+1)}, "LIMIT_EXCEEDED"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			isError, out, text := call(t, s, tc.tool, argsJSON(t, tc.args))
			if tc.code == "" {
				require.False(t, isError, text)
				return
			}
			require.True(t, isError, "accepted: %.200s", text)
			assert.Equal(t, tc.code, out["code"], text)
			assert.Less(t, len(text), 1000, "the error quotes at most a short prefix: %.2000s", text)
		})
	}
}

// add_memory answers with the id and short fields, not the content.
func TestAddMemoryDoesNotEchoContent(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	content := "First line of a long memory\n" + strings.Repeat("body ", 10000)
	_, out, text := call(t, s, "add_memory", argsJSON(t, map[string]any{"content": content, "tags": []string{"go"}, "type": "fact"}))
	m, _ := out["memory"].(map[string]any)
	require.NotNil(t, m, text)
	assert.NotContains(t, m, "content")
	assert.True(t, strings.HasPrefix(m["id"].(string), "mem-"))
	assert.Equal(t, "First line of a long memory", m["title"])
	assert.Equal(t, []any{"fact", "go"}, m["tags"])
	assert.EqualValues(t, len(strings.TrimSpace(content)), m["contentBytes"])
	assert.Less(t, len(text), 500, "the reply is short: %s", text)
}

// search_memories and list_memories answer a page: at most limit (10 by
// default) and the number of memories left out.
func TestMemoryResultsCapped(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	for i := range 25 {
		ok(t, s, "add_memory", fmt.Sprintf(`{"content":"alpha memory %d"}`, i))
	}
	cases := []struct {
		name, tool, args string
		n, more          int
	}{
		{"search default", "search_memories", `{"query":"alpha"}`, 10, 25 - 10},
		{"search limit", "search_memories", `{"query":"alpha","limit":3}`, 3, 22},
		{"search all", "search_memories", `{"query":"alpha","limit":100}`, 25, 0},
		{"search few", "search_memories", `{"query":"24"}`, 1, 0},
		{"list default", "list_memories", `{}`, 10, 25 - 10},
		{"list offset", "list_memories", `{"offset":20}`, 5, 0},
		{"list offset and limit", "list_memories", `{"offset":5,"limit":5}`, 5, 15},
		{"list past the end", "list_memories", `{"offset":30}`, 0, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := ok(t, s, tc.tool, tc.args)
			assert.Len(t, out["memories"], tc.n)
			assert.EqualValues(t, tc.more, out["more"])
		})
	}
	list := ok(t, s, "list_memories", `{"offset":5,"limit":1}`)["memories"].([]any)
	assert.Equal(t, "alpha memory 5", list[0].(map[string]any)["content"], "list pages in file order")
	_, msg := fails(t, s, "search_memories", `{"query":"  "}`)
	assert.Contains(t, msg, "list_memories", "an empty query points to list_memories")
}
