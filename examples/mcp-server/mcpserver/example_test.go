package mcpserver_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// A Go program embeds the server: it opens the stores it likes (here the
// in-memory ones), builds the bank and the memories, and serves them on a
// transport of its own (here in memory, to a client in the same program;
// stdio.NewTransport or mcphttp.NewHandler for a real client).
func ExampleNew() {
	ctx := context.Background()
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{Language: memorybank.English})
	mem, err := memories.New(&memories.MemStore{}, nil)
	if err != nil {
		log.Fatal(err)
	}
	srv := mcpserver.New(bank, mem, nil)
	defer srv.Close()

	serverSide, clientSide := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, serverSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer ss.Close()
	client := mcp.NewClient(&mcp.Implementation{Name: "host", Version: "v1"}, nil)
	cs, err := client.Connect(ctx, clientSide, nil)
	if err != nil {
		log.Fatal(err)
	}
	defer cs.Close()

	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "write_global_memory_bank",
		Arguments: map[string]any{"path": "notes.md", "content": "Tests run with go test ./..."}})
	if err != nil || res.IsError {
		log.Fatal(err, res)
	}
	res, err = cs.CallTool(ctx, &mcp.CallToolParams{Name: "read_global_memory_bank", Arguments: map[string]any{"path": "notes.md"}})
	if err != nil || res.IsError {
		log.Fatal(err, res)
	}
	var doc struct {
		Path    string `json:"path"`
		Version int    `json:"version"`
		Content string `json:"content"`
	}
	data, _ := json.Marshal(res.StructuredContent)
	if err := json.Unmarshal(data, &doc); err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%s v%d: %s\n", doc.Path, doc.Version, doc.Content)

	// The bank the host holds is the one the client wrote.
	d, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(d.Text())
	// Output:
	// notes.md v1: Tests run with go test ./...
	// Tests run with go test ./...
}
