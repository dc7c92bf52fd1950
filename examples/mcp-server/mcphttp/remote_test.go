//lint:file-ignore SA1019 MCP roots are deprecated only from protocol 2026-07-28 on and still served; clients of earlier versions use them to name the project.

package mcphttp

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sync/atomic"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// connectHTTP serves ts over streamable HTTP (as --http does) and connects
// client to it.
func connectHTTP(t *testing.T, ts *testServer, client *mcp.Client, protocol string) *mcp.ClientSession {
	t.Helper()
	hs := httptest.NewServer(NewHandler(ts.server, testHTTPLimits()))
	t.Cleanup(hs.Close)
	var copts *mcp.ClientSessionOptions
	if protocol != "" {
		copts = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}
	cs, err := client.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: hs.URL + Path}, copts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// Over HTTP a client's roots name paths on the client's machine, not the
// server's: the server neither asks for them nor reads a .git/HEAD they
// name, and an omitted branch is an error that asks for it.
func TestRootsAreNotReadOverHTTP(t *testing.T) {
	// A directory of the server's machine that looks like a work tree.
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, ".git"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref: refs/heads/secret-branch\n"), 0o644))

	for _, protocol := range []string{"", legacyProtocol} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			ts := newTestServer(t)
			var listed atomic.Int32
			client := rootsClient(dir)
			client.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "roots/list" {
						listed.Add(1)
					}
					return next(ctx, method, req)
				}
			})
			s := connectHTTP(t, ts, client, protocol)
			for _, c := range []struct{ tool, args string }{
				{"read_context", `{}`},
				{"write_branch_memory_bank", `{"path":"notes.md","content":"x"}`},
				{"apply_memory_ops", `{"plan":` + createPlan + `,"confirmed":true}`},
			} {
				code, msg := fails(t, s, c.tool, c.args)
				assert.Equal(t, "INVALID_ARGUMENT", code, c.tool)
				assert.Contains(t, msg, "branch is required", c.tool)
				assert.Contains(t, msg, "HTTP", c.tool)
				assert.NotContains(t, msg, "secret-branch", c.tool)
			}
			assert.Zero(t, listed.Load(), "the server never asked for the client's roots")
			assert.NoDirExists(t, filepath.Join(ts.root, "branch-memory-bank", "secret-branch"))
			out := ok(t, s, "read_context", `{"branch":"main"}`)
			assert.NotContains(t, out, "branchFromRoots")
		})
	}
}

func testHTTPLimits() Limits { return DefaultLimits() }
