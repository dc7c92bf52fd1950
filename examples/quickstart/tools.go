package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// tourTools shows package tools: the memory bank's agent tools as a host
// serves them, taking arguments as a model writes them and answering with
// JSON results or errors that carry a stable code.
func tourTools(ctx context.Context, w io.Writer) error {
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	byName := map[string]tools.Tool{}
	for _, t := range tools.For(bank) {
		byName[t.Name] = t
	}
	fmt.Fprintf(w, "%d tools, each a name, a description, a JSON Schema and a handler; e.g. %s\n",
		len(byName), tools.WriteBranchMemoryBank)
	call := func(name, args string) {
		res, err := byName[name].Handle(ctx, tools.Env{}, json.RawMessage(args))
		if err != nil {
			te := tools.AsError(err)
			details, _ := json.Marshal(te.Details)
			fmt.Fprintf(w, "  %s -> %s %s\n", name, te.Code, details)
			return
		}
		var out struct {
			Path    string          `json:"path"`
			Version int64           `json:"version"`
			Format  string          `json:"format"`
			Content json.RawMessage `json:"content"`
		}
		data, _ := json.Marshal(res)
		_ = json.Unmarshal(data, &out)
		fmt.Fprintf(w, "  %s -> %s version %d", name, out.Path, out.Version)
		if out.Content != nil {
			var env struct {
				Content json.RawMessage `json:"content"`
			}
			_ = json.Unmarshal(out.Content, &env)
			fmt.Fprintf(w, ", content %s", env.Content)
		}
		fmt.Fprintln(w)
	}
	// Models often send JSON inside a string, or an empty patch list beside
	// content: the tools read what they meant.
	call(tools.WriteBranchMemoryBank, `{"branch": "main", "path": "activeContext.json",
		"content": "{\"currentWork\": \"login form\", \"nextSteps\": []}", "patches": []}`)
	call(tools.WriteBranchMemoryBank, `{"branch": "main", "path": "notes/auth.md", "content": "# Auth\nTokens expire after 1h.", "tags": ["auth"]}`)
	call(tools.ReadBranchMemoryBank, `{"branch": "main", "path": "activeContext.json"}`)
	// Errors carry a stable code and the facts a model needs to fix its call.
	call(tools.WriteBranchMemoryBank, `{"branch": "main", "path": "activeContext.json",
		"patches": [{"op": "replace", "path": "/content/missing", "value": 1}]}`)
	call(tools.ReadBranchMemoryBank, `{"branch": "main", "path": "active.json"}`)
	call(tools.ReadBranchMemoryBank, `{"branch": "main", "path": "notes/auth.md", "path": "x"}`)
	return nil
}
