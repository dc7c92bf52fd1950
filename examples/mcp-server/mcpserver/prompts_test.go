package mcpserver

import (
	"regexp"
	"strings"
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
	assert.Error(t, err, "branch is required without a git root to take it from")
}

// Over stdio a prompt without branch takes the branch of the client's git
// root, as the tools do.
func TestPromptBranchFromRoots(t *testing.T) {
	repo := t.TempDir()
	git(t, repo, "init")
	git(t, repo, "checkout", "-b", "feature/prompt")
	git(t, repo, "commit", "--allow-empty", "-m", "first")
	ts := newTestServer(t)
	s := ts.connect(t, rootsClient(repo), legacyProtocol)
	for _, name := range []string{"start_task", "end_task"} {
		res, err := s.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name, Arguments: map[string]string{}})
		require.NoError(t, err, name)
		assert.Contains(t, res.Messages[0].Content.(*mcp.TextContent).Text, `"feature/prompt"`, name)
	}
}

// Every example patch the prompts give applies to the template of the
// document its line names, as a model would send it: the first thing a
// model does with an example is copy it.
func TestPromptExamplePatchesApplyToTheTemplates(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	ok(t, s, "read_context", `{"branch":"main"}`) // creates the branch's core files from the templates
	op := regexp.MustCompile(`\{"op":[^{}]*\}`)
	doc := regexp.MustCompile(`\b(\w+\.json)\b`)
	found := 0
	for _, name := range []string{"start_task", "end_task"} {
		res, err := s.GetPrompt(t.Context(), &mcp.GetPromptParams{Name: name, Arguments: map[string]string{"branch": "main"}})
		require.NoError(t, err)
		for line := range strings.SplitSeq(res.Messages[0].Content.(*mcp.TextContent).Text, "\n") {
			for _, patch := range op.FindAllString(line, -1) {
				found++
				path := doc.FindString(line)
				require.NotEmpty(t, path, "the line of %s names its document: %s", patch, line)
				ok(t, s, "write_branch_memory_bank", `{"branch":"main","path":"`+path+`","patches":[`+patch+`]}`)
			}
		}
	}
	assert.Positive(t, found, "the prompts give example patches")
}
