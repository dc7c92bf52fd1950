package mcphttp

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
)

// from is an HTTP client whose connections come from the loopback
// address ip: another machine, as the server tells clients apart.
func from(t *testing.T, ip string) *http.Client {
	t.Helper()
	if runtime.GOOS != "linux" {
		t.Skip("only Linux routes every 127.0.0.0/8 address to loopback")
	}
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}}
	tr := &http.Transport{DialContext: d.DialContext}
	t.Cleanup(tr.CloseIdleConnections)
	return &http.Client{Transport: tr}
}

// connectFrom connects a client of protocol from ip to url.
func connectFrom(t *testing.T, url, ip, protocol string) (*mcp.ClientSession, error) {
	t.Helper()
	cs, err := newClient(nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: from(t, ip)},
		&mcp.ClientSessionOptions{ProtocolVersion: protocol})
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

func serveLimited(t *testing.T, lim Limits) (*testServer, string) {
	t.Helper()
	ts := newTestServer(t)
	hs := httptest.NewServer(NewHandler(ts.server, lim))
	t.Cleanup(hs.Close)
	return ts, hs.URL + Path
}

// listen opens a subscriptions/listen stream from ip to url and returns
// the status; a stream that opened is left open, unread, until t ends.
func listen(t *testing.T, url, ip string) int {
	t.Helper()
	body := `{"jsonrpc":"2.0","id":2,"method":"subscriptions/listen","params":{"_meta":{` +
		`"io.modelcontextprotocol/clientCapabilities":{},"io.modelcontextprotocol/clientInfo":{"name":"t","version":"0"},` +
		`"io.modelcontextprotocol/protocolVersion":"2026-07-28"},"notifications":{"resourceSubscriptions":["memorybank://global/watched.json"]}}}`
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	req.Header.Set("Mcp-Protocol-Version", mcpserver.StatelessProtocol)
	req.Header.Set("Mcp-Method", "subscriptions/listen")
	res, err := from(t, ip).Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { _ = res.Body.Close() })
	if res.StatusCode == 400 {
		b, _ := io.ReadAll(res.Body)
		t.Log(string(b))
	}
	return res.StatusCode
}

// One client's subscriptions/listen streams stop at its own limit, well
// below the server's; other clients still open theirs and call tools.
func TestStreamsArePerClient(t *testing.T) {
	_, url := serveLimited(t, Limits{MaxStreamsPerClient: 2, MaxStreams: 10})
	assert.Equal(t, http.StatusOK, listen(t, url, "127.0.0.2"))
	assert.Equal(t, http.StatusOK, listen(t, url, "127.0.0.2"))
	assert.Equal(t, http.StatusTooManyRequests, listen(t, url, "127.0.0.2"), "a third stream of the same client is refused")

	assert.Equal(t, http.StatusOK, listen(t, url, "127.0.0.3"), "another client still listens")
	y, err := connectFrom(t, url, "127.0.0.3", mcpserver.StatelessProtocol)
	require.NoError(t, err)
	ok(t, y, "read_rules", `{"language":"en"}`)
}

// The server's own stream limit holds over all clients.
func TestStreamsHaveAServerLimit(t *testing.T) {
	_, url := serveLimited(t, Limits{MaxStreamsPerClient: 2, MaxStreams: 3})
	assert.Equal(t, http.StatusOK, listen(t, url, "127.0.0.2"))
	assert.Equal(t, http.StatusOK, listen(t, url, "127.0.0.2"))
	assert.Equal(t, http.StatusOK, listen(t, url, "127.0.0.3"))
	assert.Equal(t, http.StatusServiceUnavailable, listen(t, url, "127.0.0.4"), "the server's streams are all taken")
}

// One client's sessions stop at its own limit; when the server's sessions
// are all taken, a new session is refused but a request of the protocol
// without sessions is still served: it holds no session.
func TestSessionsArePerClientAndStatelessCallsNeedNone(t *testing.T) {
	_, url := serveLimited(t, Limits{MaxSessions: 4, MaxSessionsPerClient: 2})
	for range 2 {
		_, err := connectFrom(t, url, "127.0.0.2", legacyProtocol)
		require.NoError(t, err)
	}
	_, err := connectFrom(t, url, "127.0.0.2", legacyProtocol)
	require.Error(t, err, "a third session of the same client is refused")

	for range 2 {
		_, err := connectFrom(t, url, "127.0.0.3", legacyProtocol)
		require.NoError(t, err, "another client still opens sessions")
	}
	_, err = connectFrom(t, url, "127.0.0.4", legacyProtocol)
	require.Error(t, err, "the server's sessions are all taken")

	z, err := connectFrom(t, url, "127.0.0.4", mcpserver.StatelessProtocol)
	require.NoError(t, err, "a stateless client needs no session")
	out := ok(t, z, "read_rules", `{"language":"en"}`)
	assert.NotEmpty(t, out["content"])
	for range 5 {
		ok(t, z, "list_documents", `{"scope":"global"}`)
	}
}

// The client a request comes from is its address without the port, with
// the credential it presents.
func TestClientKey(t *testing.T) {
	r := func(addr, auth string) *http.Request {
		req := httptest.NewRequestWithContext(context.Background(), http.MethodPost, "/mcp", nil)
		req.RemoteAddr = addr
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		return req
	}
	assert.Equal(t, clientKey(r("10.0.0.1:1000", "Bearer a")), clientKey(r("10.0.0.1:2000", "Bearer a")), "another port, the same client")
	assert.NotEqual(t, clientKey(r("10.0.0.1:1000", "Bearer a")), clientKey(r("10.0.0.2:1000", "Bearer a")), "another machine")
	assert.NotEqual(t, clientKey(r("10.0.0.1:1000", "Bearer a")), clientKey(r("10.0.0.1:1000", "Bearer b")), "another credential")
	assert.NotContains(t, clientKey(r("10.0.0.1:1000", "Bearer secret")), "secret", "the credential is not kept")
}
