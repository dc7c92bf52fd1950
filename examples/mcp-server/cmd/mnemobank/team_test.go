package main

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
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
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckHTTPAddr(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8080", "[::1]:8080", "localhost:0"} {
		assert.NoError(t, checkHTTPAddr("--http", addr, ""), addr)
	}
	for _, addr := range []string{":8080", "0.0.0.0:8080", "192.168.1.4:80", "example.com:80"} {
		err := checkHTTPAddr("--http", addr, "")
		require.ErrorIs(t, err, errInsecure, addr)
		assert.Contains(t, err.Error(), tokenEnv)
		assert.NoError(t, checkHTTPAddr("--http", addr, testToken), "a token makes any address acceptable")
	}
	assert.Error(t, checkHTTPAddr("--http", "no-port", ""))
}

// Every request needs the bearer token; the server shuts down gracefully,
// letting a request in flight finish.
func TestServeHTTPTokenAndShutdown(t *testing.T) {
	inFlight := make(chan struct{})
	release := make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("slow") != "" {
			close(inFlight)
			<-release
		}
		_, _ = io.WriteString(w, "ok")
	})
	ctx, cancel := context.WithCancel(context.Background())
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP(ctx, "127.0.0.1:0", testToken, h, nil, slog.New(slog.DiscardHandler), func(a net.Addr) { addrc <- a })
	}()
	base := "http://" + (<-addrc).String()

	get := func(path, auth string) (int, string) {
		req, err := http.NewRequest("GET", base+path, nil)
		require.NoError(t, err)
		if auth != "" {
			req.Header.Set("Authorization", auth)
		}
		res, err := http.DefaultClient.Do(req)
		require.NoError(t, err)
		defer res.Body.Close()
		body, _ := io.ReadAll(res.Body)
		return res.StatusCode, string(body)
	}
	code, body := get("/mcp", "")
	assert.Equal(t, http.StatusUnauthorized, code)
	assert.Contains(t, body, "Bearer")
	code, _ = get("/mcp", "Bearer wrong")
	assert.Equal(t, http.StatusUnauthorized, code)
	code, _ = get("/mcp", testToken)
	assert.Equal(t, http.StatusUnauthorized, code, "the scheme is required")
	code, body = get("/mcp", "Bearer "+testToken)
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok", body)
	code, _ = get("/other", "Bearer "+testToken)
	assert.Equal(t, http.StatusNotFound, code)

	slow := make(chan string, 1)
	go func() {
		_, b := get("/mcp?slow=1", "Bearer "+testToken)
		slow <- b
	}()
	<-inFlight
	cancel() // as SIGTERM does
	select {
	case err := <-done:
		t.Fatalf("returned before the request in flight finished: %v", err)
	case <-time.After(50 * time.Millisecond):
	}
	close(release)
	assert.Equal(t, "ok", <-slow, "the request in flight finished")
	require.NoError(t, <-done)
	_, err := http.Get(base + "/mcp")
	assert.Error(t, err, "no longer listening")
}

func TestServeHTTPRefusesOpenAddressWithoutToken(t *testing.T) {
	err := serveHTTP(context.Background(), "0.0.0.0:0", "", http.NotFoundHandler(), nil, slog.New(slog.DiscardHandler), nil)
	require.True(t, errors.Is(err, errInsecure), "%v", err)
}

func TestTrimToken(t *testing.T) {
	assert.Equal(t, "abc", trimToken(func(string) string { return " abc\n" }))
	assert.Equal(t, "", trimToken(func(string) string { return "" }))
}

const testToken = "0123456789abcdef0123456789abcdef"

func TestShortTokenIsRefused(t *testing.T) {
	for _, token := range []string{"x", testToken[:minTokenLength-1]} {
		err := checkHTTPAddr("--http", "0.0.0.0:8080", token)
		require.ErrorIs(t, err, errWeakToken)
		var we *weakTokenError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, len(token), we.Len)
		assert.Contains(t, err.Error(), tokenEnv)
		assert.Contains(t, err.Error(), "32")
	}
	assert.NoError(t, checkHTTPAddr("--http", "0.0.0.0:8080", testToken))
}

// A connection that failed authentication is closed after the 401.
func TestFailedAuthClosesTheConnection(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- serveHTTP(ctx, "127.0.0.1:0", testToken, http.NotFoundHandler(), nil, slog.New(slog.DiscardHandler), func(a net.Addr) { addrc <- a })
	}()
	conn, err := net.Dial("tcp", (<-addrc).String())
	require.NoError(t, err)
	defer conn.Close()
	require.NoError(t, conn.SetDeadline(time.Now().Add(10*time.Second))) // the failure bound
	_, err = io.WriteString(conn, "GET /mcp HTTP/1.1\r\nHost: localhost\r\n\r\n")
	require.NoError(t, err)
	r := bufio.NewReader(conn)
	res, err := http.ReadResponse(r, nil)
	require.NoError(t, err)
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	_, _ = io.Copy(io.Discard, res.Body)
	_, err = r.ReadByte()
	assert.ErrorIs(t, err, io.EOF, "the server closed the connection")
	cancel()
	require.NoError(t, <-done)
}

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
	case <-time.After(shutdownGrace - 2*time.Second): // the failure bound: before the grace period ran out
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

	cs, err := newClient(nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, &mcp.ClientSessionOptions{ProtocolVersion: statelessProtocol})
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
	case <-time.After(shutdownGrace - 2*time.Second): // the failure bound: before the grace period ran out
		t.Fatal("the server waited for the listen stream instead of closing it")
	}
}

// startHTTPServer starts the server binary over HTTP on a free loopback
// port, without a token, and returns it and its MCP URL.
func startHTTPServer(t *testing.T) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(serverBinary(t), "--root", filepath.Join(t.TempDir(), "docs"), "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), tokenEnv+"=")
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
