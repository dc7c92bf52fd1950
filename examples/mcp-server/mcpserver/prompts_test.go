package mcpserver

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrompts(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	list, err := s.ListPrompts(t.Context(), nil)
	require.NoError(t, err)
	var names []string
	for _, p := range list.Prompts {
		names = append(names, p.Name)
	}
	assert.ElementsMatch(t, []string{"start_task", "end_task"}, names)

	ok(t, s, "write_global_memory_bank", `{"path":"coding-standards.md","content":"Write table tests."}`)
	res, err := s.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "start_task", Arguments: map[string]string{"branch": "feature/login", "task": "add a login form"}})
	require.NoError(t, err)
	require.Len(t, res.Messages, 1)
	text := res.Messages[0].Content.(*mcp.TextContent).Text
	assert.Contains(t, text, `"feature/login"`)
	assert.Contains(t, text, "add a login form")
	assert.Contains(t, text, "table tests", "the global memory is in the prompt")
	assert.Contains(t, text, "activeContext", "the branch's core files are in the prompt")

	res, err = s.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "end_task", Arguments: map[string]string{"branch": "feature/login", "summary": "form done"}})
	require.NoError(t, err)
	text = res.Messages[0].Content.(*mcp.TextContent).Text
	for _, want := range []string{"progress.json", "activeContext.json", "add_memory", "form done", `"feature/login"`} {
		assert.Contains(t, text, want)
	}

	_, err = s.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: "start_task", Arguments: map[string]string{}})
	assert.Error(t, err, "branch is required")
}
