package main

import (
	"bufio"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcphttp"
	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
)

// SIGTERM with an event stream open ends the stream and exits 0.
func TestSIGTERMWithAnEventStreamOpen(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	cmd, url := startHTTPServer(t)

	// A session by hand, so that this test holds its one event stream.
	post := func(body, session string) *http.Response {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, url, strings.NewReader(body))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if session != "" {
			req.Header.Set("Mcp-Session-Id", session)
			req.Header.Set("Mcp-Protocol-Version", legacyProtocol)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, res.Body)
		_ = res.Body.Close()
		return res
	}
	res := post(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"`+legacyProtocol+
		`","capabilities":{},"clientInfo":{"name":"t","version":"0"}}}`, "")
	require.Equal(t, http.StatusOK, res.StatusCode)
	session := res.Header.Get("Mcp-Session-Id")
	require.NotEmpty(t, session)
	post(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, session)
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	req.Header.Set("Accept", "text/event-stream")
	req.Header.Set("Mcp-Session-Id", session)
	req.Header.Set("Mcp-Protocol-Version", legacyProtocol)
	res, err = http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	require.Equal(t, http.StatusOK, res.StatusCode, "the event stream is open")

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		require.NoError(t, err, "exit code 0")
	case <-time.After(mcphttp.ShutdownGrace - 2*time.Second): // the failure bound: before the grace period ran out
		t.Fatal("the server waited for the event stream instead of closing it")
	}
}

// A 2026-07-28 client's subscriptions/listen is a long POST, not a GET
// event stream: SIGTERM ends it too and the server exits 0 well within its
// grace period.
func TestSIGTERMWithAListenStreamOpen(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("no SIGTERM on Windows")
	}
	cmd, url := startHTTPServer(t)

	cs, err := newClient(nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: mcpserver.StatelessProtocol})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	ok(t, cs, "write_global_memory_bank", `{"path":"watched.json","content":{"n":1}}`)
	require.NoError(t, cs.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "memorybank://global/watched.json"}))

	require.NoError(t, cmd.Process.Signal(syscall.SIGTERM))
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case err := <-exited:
		require.NoError(t, err, "exit code 0")
	case <-time.After(mcphttp.ShutdownGrace - 2*time.Second): // the failure bound: before the grace period ran out
		t.Fatal("the server waited for the listen stream instead of closing it")
	}
}

// startHTTPServer starts the server binary over HTTP on a free loopback
// port, without a token, and returns it and its MCP URL.
func startHTTPServer(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(serverBinary(t), "--root", filepath.Join(t.TempDir(), "docs"), "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), mcphttp.TokenEnv+"=")
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() { _ = cmd.Process.Kill() })
	sc := bufio.NewScanner(stderr)
	var url string
	for sc.Scan() {
		if u, found := strings.CutPrefix(sc.Text(), "mnemobank: listening on "); found {
			url = u
			break
		}
	}
	require.NotEmpty(t, url, "the server said where it listens")
	go func() { _, _ = io.Copy(io.Discard, stderr) }()
	return cmd, url
}
