package mcphttp

import (
	"context"
	"encoding/json"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/mnemobank/mnemobank/memorybank"
)

// httpProtocols are the protocol versions one HTTP endpoint serves: the
// stateless one natively, and every earlier one with sessions.
var httpProtocols = []string{"2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05"}

// Over streamable HTTP, a client of every protocol version is answered in
// its own version on the same URL, and every tool answers it.
func TestHTTPServesEveryProtocolVersion(t *testing.T) {
	ts := newTestServer(t)
	hs := newHTTPTestServer(t, ts)
	for _, protocol := range httpProtocols {
		t.Run(protocol, func(t *testing.T) {
			ec := &elicitingClient{action: "accept"}
			s := connectHTTPURL(t, hs, ec.client(), protocol)
			require.Equal(t, protocol, s.InitializeResult().ProtocolVersion, "negotiated natively, no fallback")

			branch := "v" + protocol
			ok(t, s, "write_branch_memory_bank", `{"branch":"`+branch+`","path":"notes.md","content":"hello `+protocol+`"}`)
			out := ok(t, s, "read_branch_memory_bank", `{"branch":"`+branch+`","path":"notes.md"}`)
			assert.Contains(t, out["content"], "hello "+protocol)
			ok(t, s, "add_memory", `{"content":"learned over `+protocol+`"}`)
			assert.NotEmpty(t, ok(t, s, "search_memories", `{"query":"`+protocol+`"}`)["memories"])
			// A confirmed write plan: elicitation is a server request on a
			// session, and an input request in the result without one.
			out = ok(t, s, "apply_memory_ops", `{"branch":"`+branch+`","plan":`+createPlan+`,"confirmed":true}`)
			assert.Equal(t, true, out["applied"], "%v", out)
			assert.FileExists(t, learningFile(ts, branch))

			// Every tool answers with a result (a failure is a result too),
			// never a transport or protocol error.
			tools, err := s.ListTools(t.Context(), nil)
			require.NoError(t, err)
			require.NotEmpty(t, tools.Tools)
			for _, tool := range tools.Tools {
				res, err := s.CallTool(t.Context(), &mcp.CallToolParams{Name: tool.Name, Arguments: json.RawMessage(`{"branch":"` + branch + `"}`)})
				require.NoError(t, err, tool.Name)
				require.NotEmpty(t, res.Content, tool.Name)
			}

			rs, err := s.ListResources(t.Context(), nil)
			require.NoError(t, err)
			assert.NotEmpty(t, rs.Resources)
			rd, err := s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: mcpserver.ResourceURI(memorybank.ScopeBranch, branch, "notes.md")})
			require.NoError(t, err)
			assert.Contains(t, rd.Contents[0].Text, "hello "+protocol)
			// A missing resource: the code the version in use expects.
			_, err = s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: mcpserver.ResourceURI(memorybank.ScopeBranch, branch, "missing.md")})
			var je *jsonrpc.Error
			require.ErrorAs(t, err, &je)
			if protocol >= mcpserver.StatelessProtocol {
				assert.EqualValues(t, jsonrpc.CodeInvalidParams, je.Code)
			} else {
				assert.EqualValues(t, -32002, je.Code)
			}

			ps, err := s.ListPrompts(t.Context(), nil)
			require.NoError(t, err)
			assert.NotEmpty(t, ps.Prompts)
			if protocol >= mcpserver.StatelessProtocol {
				// Results the client may cache, for its user only, briefly.
				for _, c := range []mcp.Cacheable{tools.Cacheable, rs.Cacheable, rd.Cacheable, ps.Cacheable} {
					assert.Equal(t, mcp.Cacheable{CacheScope: "private", TTLMs: 2000}, c, "private, 2 s")
				}
			}
		})
	}
}

// newHTTPTestServer serves ts over streamable HTTP, as --http does.
func newHTTPTestServer(t *testing.T, ts *testServer) string {
	t.Helper()
	hs := httptest.NewServer(NewHandler(ts.server, testHTTPLimits()))
	t.Cleanup(hs.Close)
	return hs.URL + Path
}

// connectHTTPURL connects client to the endpoint with the protocol version.
func connectHTTPURL(t *testing.T, endpoint string, client *mcp.Client, protocol string) *mcp.ClientSession {
	t.Helper()
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: endpoint}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Over streamable HTTP a subscriber of every protocol version hears of a
// change to a document: by subscriptions/listen from 2026-07-28 on, by
// resources/subscribe before.
func TestHTTPResourceUpdatesEveryProtocolVersion(t *testing.T) {
	ts := newTestServer(t)
	endpoint := newHTTPTestServer(t, ts)
	writer := connectHTTPURL(t, endpoint, newClient(nil), legacyProtocol)
	for _, protocol := range httpProtocols {
		t.Run(protocol, func(t *testing.T) {
			branch := "s" + protocol
			ok(t, writer, "write_branch_memory_bank", `{"branch":"`+branch+`","path":"notes.md","content":"one"}`)
			uri := mcpserver.ResourceURI(memorybank.ScopeBranch, branch, "notes.md")
			updated := make(chan string, 10)
			client := newClient(&mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
				updated <- req.Params.URI
			}})
			s := connectHTTPURL(t, endpoint, client, protocol)
			require.NoError(t, s.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))
			// The watch is in place once the server has taken the
			// subscription; subscriptions/listen acknowledges it first.
			require.Eventually(t, func() bool { return ts.server.WatchedDocuments() > 0 }, 5*time.Second, 10*time.Millisecond)
			ok(t, writer, "write_branch_memory_bank", `{"branch":"`+branch+`","path":"notes.md","content":"two"}`)
			select {
			case got := <-updated:
				assert.Equal(t, uri, got)
			case <-time.After(10 * time.Second): // the failure bound
				t.Fatal("no notifications/resources/updated")
			}
			require.NoError(t, s.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri}))
			require.Eventually(t, func() bool { return ts.server.WatchedDocuments() == 0 }, 5*time.Second, 10*time.Millisecond, "the watch is released")
		})
	}
}
