package mcphttp

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/mcptest"
	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
)

// testServer is the MCP server on a bank in a temporary directory, to be
// served over HTTP by the test.
type testServer struct {
	server *mcpserver.Server
	root   string // the bank's directory
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	b := mcptest.NewBank(t)
	s := mcpserver.New(b.Bank, b.Memories, &mcpserver.Options{Logger: b.Logger})
	t.Cleanup(s.Close)
	return &testServer{server: s, root: b.Root}
}

// legacyProtocol is the last protocol version with sessions.
const legacyProtocol = "2025-11-25"

var (
	newClient = mcptest.NewClient
	ok        = mcptest.OK
	fails     = mcptest.Fails
)

// createPlan is a write plan that creates one learning document.
const createPlan = `{"schemaVersion":"2.0","action":"memory_ops","requiresConfirmation":true,"operations":[` +
	`{"type":"create","path":"details/learnings/flaky-test.md","reason":"record why the test was flaky","content":"# Flaky test\nThe clock was not injected.\n"}]}`

// elicitingClient answers every elicitation with action.
type elicitingClient struct{ action string }

func (e *elicitingClient) client() *mcp.Client {
	return newClient(&mcp.ClientOptions{ElicitationHandler: func(context.Context, *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
		return &mcp.ElicitResult{Action: e.action}, nil
	}})
}

// learningFile is where createPlan writes on branch.
func learningFile(ts *testServer, branch string) string {
	return filepath.Join(ts.root, "branch-memory-bank", branch, "details", "learnings", "flaky-test.md")
}

var rootsClient = mcptest.RootsClient
