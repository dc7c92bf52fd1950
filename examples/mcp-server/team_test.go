package main

import (
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
		assert.NoError(t, checkHTTPAddr(addr, ""), addr)
	}
	for _, addr := range []string{":8080", "0.0.0.0:8080", "192.168.1.4:80", "example.com:80"} {
		err := checkHTTPAddr(addr, "")
		require.ErrorIs(t, err, errInsecure, addr)
		assert.Contains(t, err.Error(), tokenEnv)
		assert.NoError(t, checkHTTPAddr(addr, "s3cret"), "a token makes any address acceptable")
	}
	assert.Error(t, checkHTTPAddr("no-port", ""))
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
		done <- serveHTTP(ctx, "127.0.0.1:0", "s3cret", h, slog.New(slog.DiscardHandler), func(a net.Addr) { addrc <- a })
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
	code, _ = get("/mcp", "s3cret")
	assert.Equal(t, http.StatusUnauthorized, code, "the scheme is required")
	code, body = get("/mcp", "Bearer s3cret")
	assert.Equal(t, http.StatusOK, code)
	assert.Equal(t, "ok", body)
	code, _ = get("/other", "Bearer s3cret")
	assert.Equal(t, http.StatusNotFound, code)

	slow := make(chan string, 1)
	go func() {
		_, b := get("/mcp?slow=1", "Bearer s3cret")
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
	err := serveHTTP(context.Background(), "0.0.0.0:0", "", http.NotFoundHandler(), slog.New(slog.DiscardHandler), nil)
	require.True(t, errors.Is(err, errInsecure), "%v", err)
}

func TestTrimToken(t *testing.T) {
	assert.Equal(t, "abc", trimToken(func(string) string { return " abc\n" }))
	assert.Equal(t, "", trimToken(func(string) string { return "" }))
}
