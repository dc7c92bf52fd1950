package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/anthropics/anthropic-sdk-go/v2/option"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/skillgraph/graphtools"
)

type transcript struct {
	Exchanges []struct {
		Turn        string          `json:"turn"`
		Response    json.RawMessage `json:"response"`
		ToolResults []toolResult    `json:"tool_results"`
	} `json:"exchanges"`
}

type toolResult struct {
	ToolUseID string `json:"tool_use_id"`
	IsError   bool   `json:"is_error"`
	Content   string `json:"content"`
}

// request is the part of a Messages API request the test checks.
type request struct {
	Tools    []map[string]any `json:"tools"`
	Messages []struct {
		Role    string `json:"role"`
		Content []struct {
			Type      string          `json:"type"`
			Text      string          `json:"text"`
			ToolUseID string          `json:"tool_use_id"`
			IsError   bool            `json:"is_error"`
			Content   json.RawMessage `json:"content"`
		} `json:"content"`
	} `json:"messages"`
}

// text of a tool_result's content: a string or a list of text blocks.
func contentText(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []struct{ Text string }
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, bl := range blocks {
		b.WriteString(bl.Text)
	}
	return b.String()
}

// The program replays a conversation from a fake Messages API: every
// memory tool call of the transcript goes through the handler to the bank
// directory, and each next request carries the results the handler gives.
func TestConversationReplay(t *testing.T) {
	data, err := os.ReadFile("testdata/transcript.json")
	require.NoError(t, err)
	var tr transcript
	require.NoError(t, json.Unmarshal(data, &tr))

	var mu sync.Mutex
	var requests []request
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		defer mu.Unlock()
		if r.Method != http.MethodPost || r.URL.Path != "/v1/messages" {
			http.Error(w, "unexpected "+r.Method+" "+r.URL.Path, http.StatusNotFound)
			return
		}
		var req request
		if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		requests = append(requests, req)
		if len(requests) > len(tr.Exchanges) {
			http.Error(w, "transcript exhausted", http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write(tr.Exchanges[len(requests)-1].Response)
	}))
	defer srv.Close()

	var turns []string
	for _, ex := range tr.Exchanges {
		if ex.Turn != "" {
			turns = append(turns, ex.Turn)
		}
	}
	root := t.TempDir()
	var out bytes.Buffer
	err = run(context.Background(), append([]string{"--root", root}, turns...), strings.NewReader(""), &out,
		option.WithBaseURL(srv.URL), option.WithAPIKey("test-key"), option.WithMaxRetries(0))
	require.NoError(t, err)

	require.Len(t, requests, len(tr.Exchanges))
	// The memory tool first, then the bank's tools.
	require.Len(t, requests[0].Tools, 1+len(tools.For(nil))+len(graphtools.For(nil)))
	assert.Equal(t, map[string]any{"type": "memory_20250818", "name": "memory"}, requests[0].Tools[0])
	assert.Equal(t, "read_context", requests[0].Tools[1+4]["name"])
	for i, ex := range tr.Exchanges {
		if len(ex.ToolResults) == 0 {
			continue
		}
		next := requests[i+1]
		last := next.Messages[len(next.Messages)-1]
		require.Equal(t, "user", last.Role, "request %d", i+1)
		var got []toolResult
		for _, c := range last.Content {
			if c.Type == "tool_result" {
				got = append(got, toolResult{ToolUseID: c.ToolUseID, IsError: c.IsError, Content: contentText(c.Content)})
			}
		}
		assert.Equal(t, ex.ToolResults, got, "tool results sent in request %d", i+1)
	}
	assert.Contains(t, out.String(), "Noted: you take your coffee black.")
	assert.Contains(t, out.String(), "You take your coffee black, and I noted oat milk for your tea.")

	// The memory is a document of the bank's global bank, on disk.
	file, err := os.ReadFile(filepath.Join(root, "global-memory-bank", "memories", "preferences.md"))
	require.NoError(t, err)
	assert.True(t, strings.HasSuffix(string(file), "---\n# Preferences\n- Coffee: black\n- Tea: with oat milk\n"), "%s", file)
}
