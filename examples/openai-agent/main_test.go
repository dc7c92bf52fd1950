package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/openai/openai-go/v3/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// functionName is the API's rule for a function's name.
var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

type chatRequest struct {
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name       string          `json:"name"`
			Strict     *bool           `json:"strict"`
			Parameters json.RawMessage `json:"parameters"`
		} `json:"function"`
	} `json:"tools"`
	Messages []struct {
		Role       string          `json:"role"`
		Content    json.RawMessage `json:"content"`
		ToolCallID string          `json:"tool_call_id"`
		ToolCalls  []struct {
			ID string `json:"id"`
		} `json:"tool_calls"`
	} `json:"messages"`
}

// check refuses what the Chat Completions API refuses with a 400: a
// function whose name breaks the rule or repeats, parameters that are not
// a valid JSON Schema of type "object" (and, with strict, not closed with
// every property required), and an assistant message's tool calls that
// the messages after it do not answer, each by its id.
func check(req *chatRequest) error {
	seen := map[string]bool{}
	for i, tl := range req.Tools {
		f := tl.Function
		if tl.Type != "function" || !functionName.MatchString(f.Name) || seen[f.Name] {
			return fmt.Errorf("tools[%d]: invalid function %q", i, f.Name)
		}
		seen[f.Name] = true
		var s jsonschema.Schema
		if err := json.Unmarshal(f.Parameters, &s); err != nil {
			return fmt.Errorf("Invalid schema for function '%s': %v", f.Name, err)
		}
		if s.Type != "object" {
			return fmt.Errorf("Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"', got 'type: %q'", f.Name, s.Type)
		}
		if _, err := s.Resolve(nil); err != nil {
			return fmt.Errorf("Invalid schema for function '%s': %v", f.Name, err)
		}
		if f.Strict != nil && *f.Strict {
			if s.AdditionalProperties == nil || s.AdditionalProperties.Not == nil {
				return fmt.Errorf("Invalid schema for function '%s': 'additionalProperties' is required to be supplied and to be false", f.Name)
			}
			for p := range s.Properties {
				if !slices.Contains(s.Required, p) {
					return fmt.Errorf("Invalid schema for function '%s': 'required' is required to include every key in properties. Missing '%s'", f.Name, p)
				}
			}
		}
	}
	for i, m := range req.Messages {
		for j, tc := range m.ToolCalls {
			k := i + 1 + j
			if k >= len(req.Messages) || req.Messages[k].Role != "tool" || req.Messages[k].ToolCallID != tc.ID {
				return fmt.Errorf("An assistant message with 'tool_calls' must be followed by tool messages responding to each 'tool_call_id'. The following tool_call_ids did not have response messages: %s", tc.ID)
			}
		}
	}
	return nil
}

// answered is a tool message of a request.
type answered struct {
	ID      string
	Content string
}

// fakeChat is the Chat Completions API replying with script[i] to the
// i-th request after checking it; it records the tool messages that follow
// the last assistant message of each request.
type fakeChat struct {
	mu      sync.Mutex
	script  []string
	answers [][]answered
	tools   []string
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if r.Method != http.MethodPost || r.URL.Path != "/chat/completions" {
		http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
		return
	}
	var req chatRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	if err := check(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error())
		return
	}
	f.tools = f.tools[:0]
	for _, tl := range req.Tools {
		f.tools = append(f.tools, tl.Function.Name)
	}
	var got []answered
	for i := len(req.Messages) - 1; i >= 0 && req.Messages[i].Role == "tool"; i-- {
		var s string
		_ = json.Unmarshal(req.Messages[i].Content, &s)
		got = append([]answered{{req.Messages[i].ToolCallID, s}}, got...)
	}
	f.answers = append(f.answers, got)
	if len(f.answers) > len(f.script) {
		http.Error(w, "script exhausted", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(f.script[len(f.answers)-1]))
}

// calls is a reply calling functions: each call is name and arguments.
func calls(cs ...[2]string) string {
	var tc []string
	for i, c := range cs {
		tc = append(tc, fmt.Sprintf(`{"id":"call_%d","type":"function","function":{"name":%q,"arguments":%q}}`, i, c[0], c[1]))
	}
	return `{"id":"chatcmpl-1","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"finish_reason":"tool_calls",` +
		`"message":{"role":"assistant","content":null,"refusal":null,"tool_calls":[` + strings.Join(tc, ",") + `]}}]}`
}

func final(text string) string {
	return fmt.Sprintf(`{"id":"chatcmpl-2","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"finish_reason":"stop",`+
		`"message":{"role":"assistant","content":%q,"refusal":null}}]}`, text)
}

// The model writes, makes two mistakes it is told how to fix, searches,
// and reads what it found; every answer is what the tools return.
func TestAgentLoop(t *testing.T) {
	f := &fakeChat{script: []string{
		calls([2]string{tools.WriteGlobalMemoryBank, `{"path":"decisions/deploy.md","content":"We deploy on Fridays after the review."}`},
			[2]string{tools.WriteBranchMemoryBank, `{"path":"progress.md","content":"Deploy day recorded."}`}),
		calls([2]string{tools.ReadGlobalMemoryBank, `{"path":"decisions/deploys.md"}`},
			[2]string{tools.ListDocuments, `{"scope":"global","colour":"blue"}`}),
		calls([2]string{tools.SearchDocuments, `{"query":"when do we deploy"}`}),
		calls([2]string{tools.ReadGlobalMemoryBank, `{"path":"decisions/deploy.md"}`}),
		final("We deploy on Fridays, after the review."),
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()

	var out bytes.Buffer
	err := run(context.Background(), []string{"--root", t.TempDir(), "--branch", "feature/deploy", "When do we deploy?"},
		strings.NewReader(""), &out, option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	require.NoError(t, err)
	require.Len(t, f.answers, 5)
	var names []string
	for _, tl := range agentTools(nil, "main") {
		names = append(names, tl.Name)
	}
	assert.Equal(t, names, f.tools, "every tool of the bank and the skill graphs, in order")
	assert.Contains(t, names, "write_skill_graph")

	// Step 1: both writes answered, the branch one on --branch.
	require.Len(t, f.answers[1], 2)
	var w struct {
		Path    string `json:"path"`
		Branch  string `json:"branch"`
		Version int64  `json:"version"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.answers[1][0].Content), &w))
	assert.Equal(t, "call_0", f.answers[1][0].ID)
	assert.Equal(t, "decisions/deploy.md", w.Path)
	assert.EqualValues(t, 1, w.Version)
	require.NoError(t, json.Unmarshal([]byte(f.answers[1][1].Content), &w))
	assert.Equal(t, "feature/deploy", w.Branch)

	// Step 2: the errors come back as tool results the model can act on.
	require.Len(t, f.answers[2], 2)
	var e struct {
		Code    tools.Code     `json:"code"`
		Message string         `json:"message"`
		Details map[string]any `json:"details"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.answers[2][0].Content), &e))
	assert.Equal(t, tools.CodeNotFound, e.Code)
	assert.Equal(t, []any{"decisions/deploy.md"}, e.Details["availableDocuments"])
	require.NoError(t, json.Unmarshal([]byte(f.answers[2][1].Content), &e))
	assert.Equal(t, tools.CodeInvalidArgument, e.Code)
	assert.Contains(t, e.Details["allowedProperties"], "prefix")

	// Step 3: the search ranks the decision first.
	var found struct {
		Results []struct {
			Path  string  `json:"path"`
			Score float64 `json:"score"`
		} `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.answers[3][0].Content), &found))
	require.NotEmpty(t, found.Results)
	assert.Equal(t, "decisions/deploy.md", found.Results[0].Path)

	// Step 4: the read returns the text.
	assert.Contains(t, f.answers[4][0].Content, "We deploy on Fridays after the review.")
	assert.Contains(t, out.String(), "[read_global_memory_bank NOT_FOUND]")
	assert.Contains(t, out.String(), "[list_documents INVALID_ARGUMENT]")
	assert.Contains(t, out.String(), "We deploy on Fridays, after the review.")
}

// A model that never stops calling tools ends the turn with an error
// after --max-steps calls, not a loop without end.
func TestMaxSteps(t *testing.T) {
	f := &fakeChat{script: []string{calls([2]string{tools.ReadRules, `{}`}), calls([2]string{tools.ReadRules, `{}`})}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	err := run(context.Background(), []string{"--root", t.TempDir(), "--max-steps", "2", "Go on."},
		strings.NewReader(""), &bytes.Buffer{}, option.WithBaseURL(srv.URL), option.WithAPIKey("k"), option.WithMaxRetries(0))
	require.ErrorContains(t, err, "after 2 steps")
	assert.Len(t, f.answers, 2)
}

// The fake refuses what the API refuses, so the loop's acceptance of the
// schemas means something.
func TestCheckRefuses(t *testing.T) {
	for name, body := range map[string]string{
		"dotted name":  `{"tools":[{"type":"function","function":{"name":"bank.read","parameters":{"type":"object"}}}]}`,
		"not object":   `{"tools":[{"type":"function","function":{"name":"read","parameters":{"type":"array"}}}]}`,
		"strict, open": `{"tools":[{"type":"function","function":{"name":"read","strict":true,"parameters":{"type":"object","properties":{"a":{"type":"string"}}}}}]}`,
		"unanswered":   `{"messages":[{"role":"assistant","tool_calls":[{"id":"call_1"}]},{"role":"user","content":"hi"}]}`,
	} {
		var req chatRequest
		require.NoError(t, json.Unmarshal([]byte(body), &req), name)
		assert.Error(t, check(&req), name)
	}
	var req chatRequest
	require.NoError(t, json.Unmarshal([]byte(`{"tools":[{"type":"function","function":{"name":"read","strict":true,`+
		`"parameters":{"type":"object","properties":{"a":{"type":"string"}},"required":["a"],"additionalProperties":false}}}]}`), &req))
	assert.NoError(t, check(&req))
}
