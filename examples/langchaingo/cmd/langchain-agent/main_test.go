package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/tmc/langchaingo/llms/openai"

	"github.com/mnemobank/mnemobank/memories/memtools"
	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/skillgraph/graphtools"
)

var functionName = regexp.MustCompile(`^[a-zA-Z0-9_-]{1,64}$`)

type chatRequest struct {
	Tools []struct {
		Type     string `json:"type"`
		Function struct {
			Name        string          `json:"name"`
			Description string          `json:"description"`
			Parameters  json.RawMessage `json:"parameters"`
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

// text of a message's content: a string or a list of text parts.
func text(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var parts []struct{ Text string }
	_ = json.Unmarshal(raw, &parts)
	var b strings.Builder
	for _, p := range parts {
		b.WriteString(p.Text)
	}
	return b.String()
}

// check refuses what the Chat Completions API refuses with a 400: an
// invalid function name or parameters that are not a valid JSON Schema of
// type "object", and tool calls not answered by tool messages.
func check(req *chatRequest) error {
	for i, tl := range req.Tools {
		f := tl.Function
		if tl.Type != "function" || !functionName.MatchString(f.Name) {
			return fmt.Errorf("tools[%d]: invalid function %q", i, f.Name)
		}
		var s jsonschema.Schema
		if err := json.Unmarshal(f.Parameters, &s); err != nil || s.Type != "object" {
			return fmt.Errorf("Invalid schema for function '%s': schema must be a JSON Schema of 'type: \"object\"'", f.Name)
		}
		if _, err := s.Resolve(nil); err != nil {
			return fmt.Errorf("Invalid schema for function '%s': %v", f.Name, err)
		}
	}
	for i, m := range req.Messages {
		for j, tc := range m.ToolCalls {
			if k := i + 1 + j; k >= len(req.Messages) || req.Messages[k].ToolCallID != tc.ID {
				return fmt.Errorf("tool_call_id %s has no response message", tc.ID)
			}
		}
	}
	return nil
}

// fakeChat replies with script[i] to the i-th checked request and keeps
// the requests.
type fakeChat struct {
	mu       sync.Mutex
	script   []string
	requests []chatRequest
}

func (f *fakeChat) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	defer f.mu.Unlock()
	var req chatRequest
	if r.URL.Path != "/chat/completions" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, "unexpected request "+r.URL.Path, http.StatusBadRequest)
		return
	}
	if err := check(&req); err != nil {
		w.WriteHeader(http.StatusBadRequest)
		fmt.Fprintf(w, `{"error":{"message":%q,"type":"invalid_request_error"}}`, err.Error())
		return
	}
	f.requests = append(f.requests, req)
	if len(f.requests) > len(f.script) {
		http.Error(w, "script exhausted", http.StatusBadRequest)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	_, _ = w.Write([]byte(f.script[len(f.requests)-1]))
}

// toolAnswers are the tool messages at the end of request i, by call id.
func (f *fakeChat) toolAnswers(i int) map[string]string {
	out := map[string]string{}
	ms := f.requests[i].Messages
	for k := len(ms) - 1; k >= 0 && ms[k].Role == "tool"; k-- {
		out[ms[k].ToolCallID] = text(ms[k].Content)
	}
	return out
}

// call is a reply calling one function the way langchaingo's agent
// declares them: the arguments as a JSON string in "__arg1".
func call(id, name, args string) string {
	wrapped, _ := json.Marshal(map[string]string{"__arg1": args})
	return fmt.Sprintf(`{"id":"c","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"finish_reason":"tool_calls",`+
		`"message":{"role":"assistant","content":null,"tool_calls":[{"id":%q,"type":"function","function":{"name":%q,"arguments":%q}}]}}]}`,
		id, name, string(wrapped))
}

func final(s string) string {
	return fmt.Sprintf(`{"id":"c","object":"chat.completion","created":1,"model":"gpt-4.1","choices":[{"index":0,"finish_reason":"stop",`+
		`"message":{"role":"assistant","content":%q}}]}`, s)
}

func llmOptions(url string) []openai.Option {
	return []openai.Option{openai.WithBaseURL(url), openai.WithToken("test-key")}
}

// An agent run: the memories relevant to the task are in the system
// message; the model writes, reads a wrong path and is told what exists,
// searches, and reads; each observation is what the tool returned.
func TestAgent(t *testing.T) {
	root, memFile := t.TempDir(), filepath.Join(t.TempDir(), "memories.md")
	require.NoError(t, os.WriteFile(memFile, []byte("# Memories\n\n"+
		"## Deploys need a review\n- Tags: ops\n- Date: 2026-01-02\n- Content: Deploys need a review first.\n\n"+
		"## Lunch\n- Tags: life\n- Date: 2026-01-03\n- Content: Lunch is at noon.\n\n"), 0o644))
	f := &fakeChat{script: []string{
		call("call_1", tools.WriteGlobalMemoryBank, `{"path":"decisions/deploy.md","content":"We deploy on Fridays after the review."}`),
		call("call_2", tools.ReadGlobalMemoryBank, `{"path":"decisions/deploys.md"}`),
		call("call_3", tools.SearchDocuments, `{"query":"deploy day"}`),
		call("call_4", tools.ReadGlobalMemoryBank, `{"path":"decisions/deploy.md"}`),
		final("Recorded: we deploy on Fridays after the review."),
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()

	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"--root", root, "--memories", memFile, "Record our deploy day."}, &out, llmOptions(srv.URL)...))
	require.Len(t, f.requests, 5)
	assert.Equal(t, "Recorded: we deploy on Fridays after the review.\n", out.String())

	first := f.requests[0]
	require.Len(t, first.Tools, len(tools.For(nil))+len(graphtools.For(nil))+len(memtools.For(nil)),
		"the bank's, the skill graphs' and the memories' tools")
	for _, tl := range first.Tools {
		assert.Contains(t, tl.Function.Description, `"properties"`, "the tool's schema is in its description")
	}
	sys := text(first.Messages[0].Content)
	assert.Contains(t, sys, "# Memories")
	deploy, lunch := strings.Index(sys, "Deploys need a review"), strings.Index(sys, "Lunch is at noon")
	require.True(t, deploy > 0 && lunch > 0, sys)
	assert.Less(t, deploy, lunch, "the memory relevant to the task first, though older")

	var w struct {
		Path    string `json:"path"`
		Version int64  `json:"version"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.toolAnswers(1)["call_1"]), &w))
	assert.Equal(t, "decisions/deploy.md", w.Path)
	assert.EqualValues(t, 1, w.Version)

	var e struct {
		Code    tools.Code `json:"code"`
		Details struct {
			AvailableDocuments []string `json:"availableDocuments"`
		} `json:"details"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.toolAnswers(2)["call_2"]), &e))
	assert.Equal(t, tools.CodeNotFound, e.Code)
	assert.Equal(t, []string{"decisions/deploy.md"}, e.Details.AvailableDocuments)

	var found struct {
		Results []struct{ Path string } `json:"results"`
	}
	require.NoError(t, json.Unmarshal([]byte(f.toolAnswers(3)["call_3"]), &found))
	require.NotEmpty(t, found.Results)
	assert.Equal(t, "decisions/deploy.md", found.Results[0].Path)
	assert.Contains(t, f.toolAnswers(4)["call_4"], "We deploy on Fridays after the review.")
}

// --ask answers from the documents the retriever found: they are in the
// prompt the model gets.
func TestAsk(t *testing.T) {
	root, memFile := t.TempDir(), filepath.Join(t.TempDir(), "memories.md")
	f := &fakeChat{script: []string{
		call("call_1", tools.WriteGlobalMemoryBank, `{"path":"decisions/deploy.md","content":"We deploy on Fridays after the review."}`),
		final("Done."),
		final("On Fridays."),
	}}
	srv := httptest.NewServer(f)
	defer srv.Close()
	var out bytes.Buffer
	require.NoError(t, run(context.Background(), []string{"--root", root, "--memories", memFile, "Record our deploy day."}, &out, llmOptions(srv.URL)...))
	require.NoError(t, run(context.Background(), []string{"--root", root, "--ask", "When do we deploy?"}, &out, llmOptions(srv.URL)...))
	require.Len(t, f.requests, 3)
	var prompt strings.Builder
	for _, m := range f.requests[2].Messages {
		prompt.WriteString(text(m.Content))
	}
	assert.Contains(t, prompt.String(), "We deploy on Fridays after the review.")
	assert.Contains(t, prompt.String(), "When do we deploy?")
	assert.Contains(t, out.String(), "On Fridays.")
}
