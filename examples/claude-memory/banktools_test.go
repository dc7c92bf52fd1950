package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/skillgraph/graphtools"
)

// toolName is the Messages API's rule for a custom tool's name.
var toolName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

// checkTools refuses, as the Messages API does with a 400, tools whose
// name breaks its rule or repeats, or whose input_schema is not a JSON
// Schema object of type "object".
func checkTools(raw []json.RawMessage) error {
	seen := map[string]bool{}
	for i, r := range raw {
		var tl struct {
			Type        string          `json:"type"`
			Name        string          `json:"name"`
			InputSchema json.RawMessage `json:"input_schema"`
		}
		if err := json.Unmarshal(r, &tl); err != nil {
			return fmt.Errorf("tools.%d: %v", i, err)
		}
		if !toolName.MatchString(tl.Name) || seen[tl.Name] {
			return fmt.Errorf("tools.%d.name: %q", i, tl.Name)
		}
		seen[tl.Name] = true
		if tl.Type != "" && tl.Type != "custom" {
			continue // a server tool such as memory_20250818
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(tl.InputSchema, &s); err != nil {
			return fmt.Errorf("tools.%d.input_schema: %v", i, err)
		}
		if s.Type != "object" {
			return fmt.Errorf("tools.%d.input_schema.type: Field required to be \"object\", got %q", i, s.Type)
		}
		if _, err := s.Resolve(nil); err != nil {
			return fmt.Errorf("tools.%d.input_schema: JSON schema is invalid: %v", i, err)
		}
	}
	return nil
}

// sentResult is a tool_result block of a request.
type sentResult struct {
	ToolUseID string
	IsError   bool
	Content   string
}

// fakeMessages is the Messages API, replying with script[i] to the i-th
// request after checking its tools; it records the tool results each
// request carries.
type fakeMessages struct {
	mu      sync.Mutex
	script  []string
	results [][]sentResult
	tools   int
}

func (f *fakeMessages) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var req struct {
		Tools    []json.RawMessage `json:"tools"`
		Messages []struct {
			Role    string          `json:"role"`
			Content json.RawMessage `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := checkTools(req.Tools); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, err.Error())
		return
	}
	f.tools = len(req.Tools)
	var got []sentResult
	last := req.Messages[len(req.Messages)-1]
	var blocks []struct {
		Type      string          `json:"type"`
		ToolUseID string          `json:"tool_use_id"`
		IsError   bool            `json:"is_error"`
		Content   json.RawMessage `json:"content"`
	}
	_ = json.Unmarshal(last.Content, &blocks)
	for _, b := range blocks {
		if b.Type == "tool_result" {
			got = append(got, sentResult{b.ToolUseID, b.IsError, contentText(b.Content)})
		}
	}
	f.results = append(f.results, got)
	if len(f.results) > len(f.script) {
		http.Error(w, "script exhausted", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(f.script[len(f.results)-1]))
}

// toolUse is a reply calling tools: each call is name and input.
func toolUse(calls ...[2]string) string {
	var blocks []string
	for i, c := range calls {
		blocks = append(blocks, fmt.Sprintf(`{"type":"tool_use","id":"toolu_%s_%d","name":%q,"input":%s}`, c[0], i, c[0], c[1]))
	}
	return `{"id":"msg","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[` +
		strings.Join(blocks, ",") + `],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`
}

func endTurn(text string) string {
	return fmt.Sprintf(`{"id":"msg","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"text","text":%q}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`, text)
}

// Claude writes with the bank's tools, misreads a path and is told which
// documents exist, searches, and reads what it found; every answer it gets
// is what the tools return.
func TestBankToolsLoop(t *testing.T) {
	f := &fakeMessages{script: []string{
		toolUse([2]string{tools.WriteGlobalMemoryBank, `{"path":"notes/coffee.md","content":"The user takes coffee black, no sugar."}`},
			[2]string{tools.WriteBranchMemoryBank, `{"path":"progress.md","content":"Coffee preference recorded."}`}),
		toolUse([2]string{tools.ReadGlobalMemoryBank, `{"path":"notes/cofee.md"}`}),
		toolUse([2]string{tools.SearchDocuments, `{"query":"coffee sugar","scope":"global"}`}),
		toolUse([2]string{tools.ReadGlobalMemoryBank, `{"path":"notes/coffee.md"}`}),
		endTurn("You take your coffee black, without sugar."),
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()

	var out bytes.Buffer
	err := run(context.Background(), []string{"--root", t.TempDir(), "--branch", "feature/coffee", "How do I take my coffee?"},
		strings.NewReader(""), &out, option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	require.NoError(t, err)
	require.Len(t, f.results, 5)
	assert.Equal(t, 1+len(tools.For(nil))+len(graphtools.For(nil)), f.tools, "the memory tool, every bank tool and the skill graph tools")

	// Step 1: both writes succeed; the branch write took --branch.
	require.Len(t, f.results[1], 2)
	var w struct {
		Path    string `json:"path"`
		Branch  string `json:"branch"`
		Version int64  `json:"version"`
	}
	assert.False(t, f.results[1][0].IsError)
	require.NoError(t, json.Unmarshal([]byte(f.results[1][0].Content), &w))
	assert.Equal(t, "notes/coffee.md", w.Path)
	assert.EqualValues(t, 1, w.Version)
	assert.False(t, f.results[1][1].IsError, f.results[1][1].Content)
	require.NoError(t, json.Unmarshal([]byte(f.results[1][1].Content), &w))
	assert.Equal(t, "feature/coffee", w.Branch)

	// Step 2: the mistyped path is an error result naming what exists.
	require.Len(t, f.results[2], 1)
	assert.True(t, f.results[2][0].IsError)
	var e struct {
		Code    tools.Code `json:"code"`
		Message string     `json:"message"`
		Details struct {
			AvailableDocuments []string `json:"availableDocuments"`
		} `json:"details"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.results[2][0].Content), &e))
	assert.Equal(t, tools.CodeNotFound, e.Code)
	assert.Contains(t, e.Details.AvailableDocuments, "notes/coffee.md")

	// Step 3: the search finds the note.
	var found struct {
		Results []struct {
			Path  string  `json:"path"`
			Score float64 `json:"score"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.results[3][0].Content), &found))
	require.NotEmpty(t, found.Results)
	assert.Equal(t, "notes/coffee.md", found.Results[0].Path)
	assert.Positive(t, found.Results[0].Score)

	// Step 4: the read returns its text.
	assert.False(t, f.results[4][0].IsError)
	assert.Contains(t, f.results[4][0].Content, "The user takes coffee black, no sugar.")
	assert.Contains(t, out.String(), "[read_global_memory_bank NOT_FOUND]")
	assert.Contains(t, out.String(), "You take your coffee black, without sugar.")
}

// The fake refuses what the Messages API refuses, so the loop test's
// acceptance of the tools means something.
func TestCheckToolsRefuses(t *testing.T) {
	for name, tl := range map[string]string{
		"dotted name":   `{"name":"memory.read","input_schema":{"type":"object"}}`,
		"not an object": `{"name":"read","input_schema":{"type":"string"}}`,
		"bad schema":    `{"name":"read","input_schema":{"type":"object","properties":{"a":{"$ref":"#/nowhere"}}}}`,
	} {
		assert.Error(t, checkTools([]json.RawMessage{json.RawMessage(tl)}), name)
	}
	assert.NoError(t, checkTools([]json.RawMessage{json.RawMessage(`{"name":"read","input_schema":{"type":"object"}}`)}))
}

// --memory-only offers the memory tool alone and refuses a bank tool's
// call as an unknown tool, as an error result.
func TestMemoryOnly(t *testing.T) {
	f := &fakeMessages{script: []string{
		toolUse([2]string{tools.ReadRules, `{}`}),
		endTurn("Only my memory tool is here."),
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	err := run(context.Background(), []string{"--root", t.TempDir(), "--memory-only", "Read the rules."},
		strings.NewReader(""), &bytes.Buffer{}, option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	require.NoError(t, err)
	require.Len(t, f.results, 2)
	assert.Equal(t, 1, f.tools)
	require.Len(t, f.results[1], 1)
	assert.True(t, f.results[1][0].IsError)
	assert.Contains(t, f.results[1][0].Content, `Unknown tool "read_rules"`)
}
