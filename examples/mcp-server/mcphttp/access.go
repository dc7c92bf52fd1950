package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strconv"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/oauthex"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
)

// Access is who may use the HTTP server: the shared token (MNEMOBANK_TOKEN,
// an admin token named tokens.AdminName) and the per-person tokens of a
// token store. With neither, every request is let through (a loopback
// address only, see CheckAddr). The viewer beside /mcp takes the same
// tokens through the same tokens.Authenticator, with their scopes.
//
// Over HTTP the server is an OAuth 2.1 protected resource (RFC 9728): a
// request without a valid bearer is answered 401 with
// "WWW-Authenticate: Bearer resource_metadata=..." naming the metadata at
// MetadataPath, which lists the scopes read, write and admin. The server
// is not an authorisation server: its tokens are made with
// "mnemobank token create", and the metadata names no authorisation
// server.
type Access struct {
	Token  string       // the shared admin token; "" for none
	Store  tokens.Store // per-person tokens; nil for none
	Logger *slog.Logger // told of refused guessers, never of a token
	// Auth options for tests (clock, cache, guess limit); nil: defaults.
	Auth *tokens.AuthOptions
}

// MetadataPath is where the protected resource metadata is served.
const MetadataPath = "/.well-known/oauth-protected-resource"

// enabled reports whether requests must authenticate: with the shared
// token, or with a store holding any token (so "token create" on a
// loopback server turns authentication on at its next start).
func (a Access) enabled(ctx context.Context) (bool, error) {
	if a.Token != "" {
		return true, nil
	}
	if a.Store == nil {
		return false, nil
	}
	ts, err := a.Store.List(ctx)
	if err != nil {
		return false, fmt.Errorf("reading the tokens: %w", err)
	}
	return len(ts) > 0, nil
}

// check applies CheckAddr's rule: an address other machines reach needs
// authentication.
func (a Access) check(ctx context.Context, flag, addr string) (bool, error) {
	on, err := a.enabled(ctx)
	if err != nil {
		return false, err
	}
	if a.Token != "" || !on {
		return on, CheckAddr(flag, addr, a.Token)
	}
	return on, nil
}

// newAuthenticator is the checker of a's tokens. A server makes one and
// gives it to the MCP endpoint and the viewer, so both share its cache of
// lookups and its count of failed tokens per address.
func (a Access) newAuthenticator() *tokens.Authenticator {
	opts := &tokens.AuthOptions{}
	if a.Auth != nil {
		*opts = *a.Auth
	}
	opts.AdminToken = a.Token
	if opts.Logger == nil {
		opts.Logger = a.Logger
	}
	return tokens.NewAuthenticator(a.Store, opts)
}

// requireAccess answers 401 to a request without a valid bearer token,
// 429 to a client over its guess limit, and otherwise passes the request
// on with the token's identity in its context, as the SDK's auth.TokenInfo
// (which the MCP server reads through each request's Extra).
func requireAccess(authn *tokens.Authenticator, next http.Handler) http.Handler {
	verify := func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
		id, err := authn.Verify(ctx, token, clientHost(r))
		var rl *tokens.RateLimitError
		switch {
		case errors.As(err, &rl):
			return nil, &refusal{status: http.StatusTooManyRequests, retryAfter: int(rl.RetryAfter.Seconds()) + 1, err: err}
		case errors.Is(err, tokens.ErrInvalid), errors.Is(err, tokens.ErrExpired), errors.Is(err, tokens.ErrRevoked):
			return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
		case err != nil:
			return nil, err
		}
		return id.TokenInfo(), nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		// The SDK answers a refused token itself (401 with
		// WWW-Authenticate); the writer gives the refusal its status
		// (429 for a guess limit) and a body saying what to send.
		rw := &refusalWriter{ResponseWriter: w}
		mw := auth.RequireBearerToken(func(ctx context.Context, token string, r *http.Request) (*auth.TokenInfo, error) {
			ti, err := verify(ctx, token, r)
			if err != nil {
				rw.err = err
				if errors.As(err, &rw.refused) {
					return nil, fmt.Errorf("%w: %v", auth.ErrInvalidToken, err)
				}
			}
			return ti, err
		}, &auth.RequireBearerTokenOptions{ResourceMetadataURL: resourceURL(r, MetadataPath), AllowMissingExpiration: true})
		mw(next).ServeHTTP(rw, r)
	})
}

// refusal is a verification refused with a status other than 401.
type refusal struct {
	status     int
	retryAfter int
	err        error
}

func (r *refusal) Error() string { return r.err.Error() }
func (r *refusal) Unwrap() error { return r.err }

// refusalWriter writes the answer to a refused request: the refusal's
// status and a body that says why and what to send instead of the SDK's
// terse one; and it closes the connection of every refused request.
type refusalWriter struct {
	http.ResponseWriter
	err      error    // the verifier's, if it refused
	refused  *refusal // set when the refusal is not a 401
	replaced bool     // the body was written here; the SDK's is dropped
}

func (w *refusalWriter) WriteHeader(code int) {
	if code != http.StatusUnauthorized && code != http.StatusForbidden {
		w.ResponseWriter.WriteHeader(code)
		return
	}
	h := w.Header()
	h.Set("Connection", "close")
	h.Set("Content-Type", "text/plain; charset=utf-8")
	h.Del("Content-Length")
	msg := "401 unauthorized: send Authorization: Bearer <token>, a token made by \"mnemobank token create\" or the server's " + TokenEnv
	if w.err != nil {
		msg += " (" + w.err.Error() + ")"
	}
	if w.refused != nil {
		h.Set("Retry-After", strconv.Itoa(w.refused.retryAfter))
		code = w.refused.status
		msg = "429 too many requests: " + w.refused.Error()
	}
	w.ResponseWriter.WriteHeader(code)
	_, _ = io.WriteString(w.ResponseWriter, msg+"\n")
	w.replaced = true
}

func (w *refusalWriter) Write(p []byte) (int, error) {
	if w.replaced {
		return len(p), nil
	}
	return w.ResponseWriter.Write(p)
}

func (w *refusalWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

func (w *refusalWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// clientHost is the address guesses are counted by.
func clientHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}

// resourceURL is the absolute URL of path on the server r reached.
func resourceURL(r *http.Request, path string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host + path
}

// metadataHandler serves the protected resource metadata of the MCP
// endpoint, by the SDK's handler.
func metadataHandler() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		md := &oauthex.ProtectedResourceMetadata{
			Resource:               resourceURL(r, Path),
			ScopesSupported:        []string{tokens.ScopeRead.String(), tokens.ScopeWrite.String(), tokens.ScopeAdmin.String()},
			BearerMethodsSupported: []string{"header"},
			ResourceName:           "mnemobank memory bank",
			ResourceDocumentation:  "https://github.com/mnemobank/mnemobank/#team-tokens-who-may-do-what-and-who-wrote-each-line",
		}
		auth.ProtectedResourceMetadataHandler(md).ServeHTTP(w, r)
	})
}
