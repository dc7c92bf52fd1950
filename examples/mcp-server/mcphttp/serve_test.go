package mcphttp

import (
	"bufio"
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestCheckHTTPAddr(t *testing.T) {
	for _, addr := range []string{"127.0.0.1:8080", "[::1]:8080", "localhost:0"} {
		assert.NoError(t, CheckAddr("--http", addr, ""), addr)
	}
	for _, addr := range []string{":8080", "0.0.0.0:8080", "192.168.1.4:80", "example.com:80"} {
		err := CheckAddr("--http", addr, "")
		require.ErrorIs(t, err, ErrInsecure, addr)
		assert.Contains(t, err.Error(), TokenEnv)
		assert.NoError(t, CheckAddr("--http", addr, testToken), "a token makes any address acceptable")
	}
	assert.Error(t, CheckAddr("--http", "no-port", ""))
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
		done <- Serve(ctx, "127.0.0.1:0", testToken, h, nil, slog.New(slog.DiscardHandler), func(a net.Addr) { addrc <- a })
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
	err := Serve(context.Background(), "0.0.0.0:0", "", http.NotFoundHandler(), nil, slog.New(slog.DiscardHandler), nil)
	require.True(t, errors.Is(err, ErrInsecure), "%v", err)
}

func TestTrimToken(t *testing.T) {
	assert.Equal(t, "abc", TrimToken(func(string) string { return " abc\n" }))
	assert.Equal(t, "", TrimToken(func(string) string { return "" }))
}

const testToken = "0123456789abcdef0123456789abcdef"

func TestShortTokenIsRefused(t *testing.T) {
	for _, token := range []string{"x", testToken[:MinTokenLength-1]} {
		err := CheckAddr("--http", "0.0.0.0:8080", token)
		require.ErrorIs(t, err, ErrWeakToken)
		var we *WeakTokenError
		require.ErrorAs(t, err, &we)
		assert.Equal(t, len(token), we.Len)
		assert.Contains(t, err.Error(), TokenEnv)
		assert.Contains(t, err.Error(), "32")
	}
	assert.NoError(t, CheckAddr("--http", "0.0.0.0:8080", testToken))
}

// A connection that failed authentication is closed after the 401.
func TestFailedAuthClosesTheConnection(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	addrc := make(chan net.Addr, 1)
	done := make(chan error, 1)
	go func() {
		done <- Serve(ctx, "127.0.0.1:0", testToken, http.NotFoundHandler(), nil, slog.New(slog.DiscardHandler), func(a net.Addr) { addrc <- a })
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
