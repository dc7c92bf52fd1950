package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// For gives a host the memory bank's agent tools: a name, a description and
// a JSON Schema to advertise, and a Handle to call with the arguments a
// model sent. Results are JSON objects; errors are *tools.Error values with
// a stable code and a message that tells the model how to fix its call.
func ExampleFor() {
	ctx := context.Background()
	clock := time.Date(2025, 3, 17, 9, 0, 0, 0, time.UTC)
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{
		Clock: func() time.Time { clock = clock.Add(time.Minute); return clock },
		NewID: func() string { return "doc-1" },
	})
	byName := map[string]tools.Tool{}
	for _, t := range tools.For(bank) {
		byName[t.Name] = t
	}
	call := func(name, args string) []byte {
		res, err := byName[name].Handle(ctx, tools.Env{}, json.RawMessage(args))
		if err != nil {
			var te *tools.Error
			errors.As(err, &te)
			details, _ := json.Marshal(te.Details)
			fmt.Printf("%s -> %s %s\n", name, te.Code, details)
			return nil
		}
		out, _ := json.Marshal(res)
		return out
	}

	fmt.Printf("%s\n", call("write_branch_memory_bank", `{"branch": "feature/login", "path": "activeContext.json",
		"content": {"currentWork": "login form", "nextSteps": []}}`))
	fmt.Printf("%s\n", call("write_branch_memory_bank", `{"branch": "feature/login", "path": "activeContext.json",
		"patches": [{"op": "add", "path": "/content/nextSteps/-", "value": "write tests"}], "ifVersion": 1}`))

	// A read returns the document's metadata and, in "content", the whole
	// envelope as a JSON object: the value patches apply to.
	var doc struct {
		Version int64 `json:"version"`
		Content struct {
			Content json.RawMessage `json:"content"`
		} `json:"content"`
	}
	_ = json.Unmarshal(call("read_branch_memory_bank", `{"branch": "feature/login", "path": "activeContext.json"}`), &doc)
	fmt.Printf("version %d: %s\n", doc.Version, doc.Content.Content)

	// Errors carry a stable code, and details the model can act on.
	call("write_branch_memory_bank", `{"branch": "feature/login", "path": "activeContext.json",
		"patches": [{"op": "replace", "path": "/content/missing", "value": 1}]}`)
	call("write_branch_memory_bank", `{"branch": "feature/login", "path": "activeContext.json",
		"content": {"currentWork": "stale"}, "ifVersion": 1}`)
	call("read_branch_memory_bank", `{"branch": "feature/login", "path": "active.json"}`)
	call("list_documents", `{"scope": "global", "color": "blue"}`)
	// Output:
	// {"scope":"branch","branch":"feature/login","path":"activeContext.json","id":"doc-1","version":1,"lastModified":"2025-03-17T09:01:00Z","tags":[],"created":true}
	// {"scope":"branch","branch":"feature/login","path":"activeContext.json","id":"doc-1","version":2,"lastModified":"2025-03-17T09:02:00Z","tags":[],"created":false}
	// version 2: {"currentWork":"login form","nextSteps":["write tests"]}
	// write_branch_memory_bank -> INVALID_PATCH {"operation":{"index":0,"op":"replace","path":"/content/missing"},"path":"activeContext.json"}
	// write_branch_memory_bank -> CONFLICT {"currentVersion":2,"ifVersion":1,"path":"activeContext.json"}
	// read_branch_memory_bank -> NOT_FOUND {"availableDocuments":["activeContext.json"],"totalDocuments":1}
	// list_documents -> INVALID_ARGUMENT {"allowedProperties":["branch","limit","maxTokens","offset","prefix","scope"],"problems":[{"pointer":"/color","message":"Additional property color is not allowed"}]}
}
