package mcphttp

import (
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A loopback server without a token is open to any page a browser shows
// unless it checks the Host header: a page of evil.example whose name was
// re-pointed at 127.0.0.1 (DNS rebinding) sends "Host: evil.example". The
// MCP endpoint refuses such a request before any session exists; the
// check is the go-sdk's (StreamableHTTPOptions.DisableLocalhostProtection
// left false), this test keeps it so.
func TestMCPEndpointRefusesAForeignHost(t *testing.T) {
	ts := newTestServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, "127.0.0.1:0", "", NewHandler(ts.server, testHTTPLimits()), nil, slog.New(slog.DiscardHandler), func(a net.Addr) { addrc <- a })
	}()
	addr := (<-addrc).String()
	t.Cleanup(func() { cancel(); <-done })

	initialize := func(host string) (int, string) {
		req, err := http.NewRequest(http.MethodPost, "http://"+addr+Path, strings.NewReader(
			`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`))
		require.NoError(t, err)
		req.Host = host
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	for _, host := range []string{"evil.example", "evil.example:" + strings.Split(addr, ":")[1], "localhost.evil.example", "127.0.0.1.nip.io"} {
		code, body := initialize(host)
		assert.Equal(t, http.StatusForbidden, code, "%s: %s", host, body)
		assert.Contains(t, body, "Host", host)
	}
	assert.Zero(t, countSessions(ts), "no session was made for a foreign host")
	for _, host := range []string{addr, "localhost:" + strings.Split(addr, ":")[1]} {
		code, body := initialize(host)
		assert.Equal(t, http.StatusOK, code, "%s: %s", host, body)
		assert.Contains(t, body, "serverInfo", host)
	}
}

func countSessions(ts *testServer) int {
	n := 0
	for range ts.server.Sessions() {
		n++
	}
	return n
}
