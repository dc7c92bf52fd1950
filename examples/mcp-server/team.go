package main

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Team mode: the server on a shared PostgreSQL bank (--postgres), served
// over MCP's streamable HTTP transport (--http) to agents on many machines.

// tokenEnv is the environment variable holding the bearer token every HTTP
// request must carry.
const tokenEnv = "MNEMOBANK_TOKEN"

// mcpPath is where the streamable HTTP transport is served.
const mcpPath = "/mcp"

// shutdownGrace bounds how long in-flight HTTP requests may finish after a
// SIGTERM before the server closes their connections.
const shutdownGrace = 10 * time.Second

// errInsecure: --http on an address other machines can reach, without a
// token.
var errInsecure = errors.New("refusing to serve without a token")

// checkHTTPAddr refuses an address reachable from other machines when no
// token is set: a memory bank served there would be open to anyone.
func checkHTTPAddr(addr, token string) error {
	if token != "" {
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("--http %q: %v; give host:port such as 127.0.0.1:8080", addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: --http %q can be reached from other machines; set %s to a secret token (clients send it as \"Authorization: Bearer <token>\"), or listen on 127.0.0.1",
		errInsecure, addr, tokenEnv)
}

// requireToken answers 401 to every request that does not carry
// "Authorization: Bearer <token>", compared in constant time. An empty
// token lets every request through (loopback only, see checkHTTPAddr).
func requireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mnemobank"`)
			http.Error(w, "401 unauthorized: send Authorization: Bearer <token> (the server's "+tokenEnv+")", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// serveHTTP serves h at http://addr/mcp until ctx is done, then shuts down
// gracefully: it stops accepting, lets in-flight requests finish (at most
// shutdownGrace), and returns. ready, if set, is told the address listened
// on (useful with port 0).
func serveHTTP(ctx context.Context, addr, token string, h http.Handler, logger *slog.Logger, ready func(net.Addr)) error {
	if err := checkHTTPAddr(addr, token); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w", addr, err)
	}
	mux := http.NewServeMux()
	mux.Handle(mcpPath, requireToken(token, h))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404: the MCP endpoint is "+mcpPath, http.StatusNotFound)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second}
	if ready != nil {
		ready(ln.Addr())
	}
	logger.Info("mnemobank: serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+mcpPath, "token", token != "")
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), shutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down: %w", err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// trimToken reads the token from the environment, ignoring surrounding
// space (a token pasted with a newline would otherwise never match).
func trimToken(getenv func(string) string) string {
	return strings.TrimSpace(getenv(tokenEnv))
}

// httpLimits bounds what HTTP clients may hold on the server.
type httpLimits struct{}

func defaultHTTPLimits() httpLimits { return httpLimits{} }

// newHTTPHandler serves srv over streamable HTTP to remote clients: from
// then on srv reads no client's roots.
func newHTTPHandler(srv *server, _ httpLimits) http.Handler {
	srv.remote = true
	return mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return srv.Server }, nil)
}
