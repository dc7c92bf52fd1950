package mcpserver

import (
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/mcptest"
)

// The server is tested as a client sees it: driven by the SDK's own client,
// in memory, on a bank in a temporary directory. The programs that serve it
// over stdio and HTTP test those transports end to end.

// testServer is a server on a directory, driven in memory.
type testServer struct {
	*Server
	root     string // the bank's directory
	memories string // the memories file
}

func newTestServer(t testing.TB) *testServer {
	t.Helper()
	return newTestServerWith(t, &Options{})
}

// newTestServerWith is newTestServer with opts (its Logger is the bank's).
func newTestServerWith(t testing.TB, opts *Options) *testServer {
	t.Helper()
	b := mcptest.NewBank(t)
	o := *opts
	o.Logger = b.Logger
	s := New(b.Bank, b.Memories, &o)
	t.Cleanup(s.Close)
	return &testServer{Server: s, root: b.Root, memories: b.File}
}

// connect connects a client (nil: a plain one) to the server in memory;
// protocol, when set, is the protocol version the client asks for.
func (ts *testServer) connect(t testing.TB, client *mcp.Client, protocol string) *mcp.ClientSession {
	t.Helper()
	return mcptest.Connect(t, ts.Server.Server, client, protocol)
}

var (
	newClient = mcptest.NewClient
	call      = mcptest.Call
	ok        = mcptest.OK
	fails     = mcptest.Fails
	jsonValue = mcptest.JSONValue
)
