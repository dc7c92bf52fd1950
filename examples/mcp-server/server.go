package main

import (
	"context"
	"encoding/json"
	"log/slog"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentmemory/agentmemory/memorybank"
	"github.com/agentmemory/agentmemory/memorybank/tools"
)

// version is reported to clients in the initialize handshake.
const version = "0.1.0"

const instructions = `A memory bank that outlives the conversation: a bank per git branch and a global bank. ` +
	`At the start of a task call read_context with the current git branch; keep activeContext.json and progress.json up to date ` +
	`with small patches; read_rules explains the conventions. Errors carry a code and say how to fix the call.`

// newServer returns an MCP server with every tool of bank registered.
func newServer(bank *memorybank.Bank, logger *slog.Logger) *mcp.Server {
	server := mcp.NewServer(&mcp.Implementation{Name: "agentmemory-memory-bank", Version: version},
		&mcp.ServerOptions{Logger: logger, Instructions: instructions})
	for _, t := range tools.For(bank) {
		server.AddTool(&mcp.Tool{Name: t.Name, Description: t.Description, InputSchema: t.InputSchema}, handler(t))
	}
	return server
}

// handler adapts a tools.Tool to the SDK's raw ToolHandler. Tool
// failures are results with IsError, so the model sees them and can fix its
// call; only a failure of the protocol itself would be a Go error here.
func handler(t tools.Tool) mcp.ToolHandler {
	return func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		res, err := t.Handle(ctx, req.Params.Arguments)
		if err != nil {
			return errorResult(tools.AsError(err)), nil
		}
		data, err := json.Marshal(res)
		if err != nil {
			return errorResult(tools.AsError(err)), nil
		}
		return &mcp.CallToolResult{
			Content:           []mcp.Content{&mcp.TextContent{Text: string(data)}},
			StructuredContent: json.RawMessage(data),
		}, nil
	}
}

// errorResult: the text is "CODE: message" (plus the details as JSON, for
// clients that show the model only the text); the structured content is the
// tools.Error as JSON: {"code", "message", "details"}.
func errorResult(te *tools.Error) *mcp.CallToolResult {
	text := te.Error()
	if len(te.Details) > 0 {
		if d, err := json.Marshal(te.Details); err == nil {
			text += "\ndetails: " + string(d)
		}
	}
	return &mcp.CallToolResult{
		IsError:           true,
		Content:           []mcp.Content{&mcp.TextContent{Text: text}},
		StructuredContent: te,
	}
}
