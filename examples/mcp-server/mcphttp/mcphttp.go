// Package mcphttp serves an mcpserver.Server over MCP's streamable HTTP
// transport to clients on other machines (team mode), beside the browser
// viewer: bearer-token authentication, the address rule (without a token,
// only a loopback address), limits on sessions, request headers, bodies
// and idle connections, one endpoint for every protocol version (stateless
// requests of 2026-07-28 and later, sessions before), and a shutdown that
// ends event streams first and lets requests in flight finish.
//
// It imports the server and never the reverse: the server knows only that
// its clients are remote (Server.MarkRemote), so it reads no roots.
package mcphttp

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
)

// TokenEnv is the environment variable holding the bearer token every HTTP
// request must carry.
const TokenEnv = "MNEMOBANK_TOKEN"

// Path is where the streamable HTTP transport is served.
const Path = "/mcp"

// ShutdownGrace bounds how long in-flight HTTP requests may finish after a
// SIGTERM before the server closes their connections.
const ShutdownGrace = 10 * time.Second

// ErrInsecure: --http on an address other machines can reach, without a
// token.
var ErrInsecure = errors.New("refusing to serve without a token")

// MinTokenLength is the shortest MNEMOBANK_TOKEN accepted: a short token
// can be guessed.
const MinTokenLength = 32

// ErrWeakToken: MNEMOBANK_TOKEN is shorter than MinTokenLength.
var ErrWeakToken = errors.New("the token is too short")

// WeakTokenError says how short the token was.
type WeakTokenError struct{ Len int }

func (e *WeakTokenError) Error() string {
	return fmt.Sprintf("%v: %s has %d characters, and at least %d are required; make one with: openssl rand -hex 32",
		ErrWeakToken, TokenEnv, e.Len, MinTokenLength)
}

func (e *WeakTokenError) Unwrap() error { return ErrWeakToken }

// CheckAddr refuses a token shorter than MinTokenLength, and refuses an address reachable from other machines when no
// token is set: a memory bank served there would be open to anyone. flag
// names the option that gave addr (--http, --ui, --addr).
func CheckAddr(flag, addr, token string) error {
	if token != "" {
		if len(token) < MinTokenLength {
			return &WeakTokenError{Len: len(token)}
		}
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: %v; give host:port such as 127.0.0.1:8080", flag, addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: %s %q can be reached from other machines; set %s to a secret token (clients send it as \"Authorization: Bearer <token>\"), or listen on 127.0.0.1",
		ErrInsecure, flag, addr, TokenEnv)
}

// requireToken answers 401 to every request that does not carry
// "Authorization: Bearer <token>", compared in constant time. An empty
// token lets every request through (loopback only, see CheckAddr).
func requireToken(token string, next http.Handler) http.Handler {
	if token == "" {
		return next
	}
	want := []byte("Bearer " + token)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		got := []byte(r.Header.Get("Authorization"))
		if subtle.ConstantTimeCompare(got, want) != 1 {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mnemobank"`)
			// A connection that failed authentication is not kept.
			w.Header().Set("Connection", "close")
			http.Error(w, "401 unauthorized: send Authorization: Bearer <token> (the server's "+TokenEnv+")", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Serve serves h at http://addr/mcp, and viewer (if not nil) at
// http://addr/ui/, until ctx is done, then shuts down gracefully: it stops
// accepting, lets in-flight requests finish (at most ShutdownGrace), and
// returns. ready, if set, is told the address listened on (useful with
// port 0). The viewer checks the token itself: it also accepts it once as
// ?token= and then from a cookie, as a browser cannot send a bearer.
func Serve(ctx context.Context, addr, token string, h http.Handler, viewer *ui.Handler, logger *slog.Logger, ready func(net.Addr)) error {
	if err := CheckAddr("--http", addr, token); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w", addr, err)
	}
	return serveListener(ctx, ln, token, h, viewer, logger, ready)
}

// serveListener is Serve on a listener.
func serveListener(ctx context.Context, ln net.Listener, token string, h http.Handler, viewer *ui.Handler, logger *slog.Logger, ready func(net.Addr)) error {
	mux := http.NewServeMux()
	mux.Handle(Path, requireToken(token, h))
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404: the MCP endpoint is "+Path, http.StatusNotFound)
	})
	if viewer != nil {
		mux.Handle(ui.Prefix, viewer)
	}
	streams := &eventStreams{cancel: map[*http.Request]context.CancelFunc{}, posts: map[*http.Request]context.CancelFunc{}}
	srv := &http.Server{Handler: streams.wrap(mux), ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleConnTimeout}
	// Event streams (GET) never finish by themselves: Shutdown ends them
	// first, then waits for the requests in flight.
	srv.RegisterOnShutdown(streams.closeAll)
	if viewer != nil {
		srv.RegisterOnShutdown(viewer.Close)
	}
	if ready != nil {
		ready(ln.Addr())
	}
	logger.Info("mnemobank: serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+Path, "token", token != "")
	return ServeUntilDone(ctx, srv, ln, "the HTTP server")
}

// ServeUntilDone serves srv on ln until ctx ends, then shuts it down within
// ShutdownGrace; what names the server in a shutdown error.
func ServeUntilDone(ctx context.Context, srv *http.Server, ln net.Listener, what string) error {
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case err := <-errc:
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), ShutdownGrace)
	defer cancel()
	if err := srv.Shutdown(sctx); err != nil {
		return fmt.Errorf("shutting down %s: %w", what, err)
	}
	if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
		return err
	}
	return nil
}

// TrimToken reads the token from the environment, ignoring surrounding
// space (a token pasted with a newline would otherwise never match).
func TrimToken(getenv func(string) string) string {
	return strings.TrimSpace(getenv(TokenEnv))
}

// Limits bounds what HTTP clients may hold on the server. A zero field
// takes its default.
type Limits struct {
	SessionIdle          time.Duration // an MCP session with no request for this long is closed
	MaxSessions          int           // open MCP sessions; a new one beyond is refused with 503
	MaxSessionsPerClient int           // open MCP sessions of one client (see clientKey); beyond, 429
	MaxStreams           int           // open event streams (GET, subscriptions/listen); beyond, 503
	MaxStreamsPerClient  int           // open event streams of one client; beyond, 429
	StreamBuffer         int           // bytes a response may hold for a client that is not reading; beyond, it is closed
}

// Limits of the HTTP server, checked before the work.
const (
	sessionIdleTimeout       = 30 * time.Minute
	maxHTTPSessions          = 1000
	maxSessionsPerClient     = 100
	maxEventStreams          = 1000
	maxEventStreamsPerClient = 100
	streamBuffer             = 1 << 20
	ReadHeaderTimeout        = 10 * time.Second // the request line and headers
	bodyReadTimeout          = 30 * time.Second // a request body, from its headers on
	IdleConnTimeout          = 2 * time.Minute  // a kept-alive connection between requests
)

// DefaultLimits are the limits of "mnemobank --http".
func DefaultLimits() Limits {
	return Limits{SessionIdle: sessionIdleTimeout, MaxSessions: maxHTTPSessions, MaxSessionsPerClient: maxSessionsPerClient,
		MaxStreams: maxEventStreams, MaxStreamsPerClient: maxEventStreamsPerClient, StreamBuffer: streamBuffer}
}

// withDefaults fills in the zero fields of l.
func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	for _, f := range []struct{ v, def *int }{{&l.MaxSessions, &d.MaxSessions}, {&l.MaxSessionsPerClient, &d.MaxSessionsPerClient},
		{&l.MaxStreams, &d.MaxStreams}, {&l.MaxStreamsPerClient, &d.MaxStreamsPerClient}, {&l.StreamBuffer, &d.StreamBuffer}} {
		if *f.v <= 0 {
			*f.v = *f.def
		}
	}
	if l.SessionIdle <= 0 {
		l.SessionIdle = d.SessionIdle
	}
	return l
}

// usesStatelessProtocol reports whether r is a request of the protocol
// without sessions. Versions are dates, so they compare as strings; an
// absent header is an older client (its initialize, or 2025-03-26 and
// before, which send none).
func usesStatelessProtocol(r *http.Request) bool {
	return r.Header.Get("Mcp-Protocol-Version") >= mcpserver.StatelessProtocol
}

// NewHandler serves srv over streamable HTTP to remote clients: from then
// on srv reads no client's roots. One endpoint serves every protocol
// version: a request of 2026-07-28 or later (by its MCP-Protocol-Version
// header) is answered by the SDK's stateless handler, natively; every
// other request by the stateful one, with sessions, as clients of
// 2024-11-05 to 2025-11-25 expect.
//
// Limits (lim, zero fields defaulted), checked before the work: sessions
// idle for lim.SessionIdle are closed (their watches released); a new
// session beyond lim.MaxSessions, or beyond lim.MaxSessionsPerClient of
// its client, is refused; so is an event stream (a session's GET, a
// subscriptions/listen) beyond lim.MaxStreams or lim.MaxStreamsPerClient.
// A stateless request holds no session and is never refused for lack of
// one. Every response is written through a bounded buffer: a client that
// stops reading has its response closed rather than holding up the
// server (see streamWriter).
func NewHandler(srv *mcpserver.Server, lim Limits) http.Handler {
	srv.MarkRemote()
	lim = lim.withDefaults()
	getServer := func(*http.Request) *mcp.Server { return srv.Server }
	stateful := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{SessionTimeout: lim.SessionIdle})
	stateless := mcp.NewStreamableHTTPHandler(getServer, &mcp.StreamableHTTPOptions{Stateless: true})
	cl := newClients(lim)
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var h http.Handler = stateful
		isStateless := usesStatelessProtocol(r)
		if isStateless {
			h = stateless
		}
		if r.Body != nil && r.Body != http.NoBody {
			// The body must arrive within bodyReadTimeout; the deadline is
			// lifted once it has, so a long answer is not cut.
			rc := http.NewResponseController(w)
			if rc.SetReadDeadline(time.Now().Add(bodyReadTimeout)) == nil {
				r.Body = &deadlineBody{ReadCloser: r.Body, rc: rc}
			}
		}
		client := clientKey(r)
		var sessionMade func(id string)
		switch {
		case r.Method == http.MethodGet && !isStateless:
			release, err := cl.openStream(client)
			if refuse(w, err) {
				return
			}
			defer release()
		case r.Method == http.MethodPost && isStateless:
			// The SDK checks that the Mcp-Method header names the method
			// of the body, and refuses the request when it does not.
			if r.Header.Get("Mcp-Method") == listenMethod {
				release, err := cl.openStream(client)
				if refuse(w, err) {
					return
				}
				defer release()
			}
		case r.Method == http.MethodPost && r.Header.Get("Mcp-Session-Id") == "":
			live := map[string]bool{}
			for ss := range srv.Sessions() {
				if id := ss.ID(); id != "" {
					live[id] = true
				}
			}
			done, err := cl.openSession(client, live)
			if refuse(w, err) {
				return
			}
			sessionMade = done
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		sw := newStreamWriter(w, ctx, cancel, lim.StreamBuffer)
		h.ServeHTTP(sw, r.WithContext(ctx))
		sw.end()
		if sessionMade != nil {
			sessionMade(w.Header().Get("Mcp-Session-Id"))
		}
	})
}

// refuse answers a request refused by err, a *limitError, and reports
// whether it did.
func refuse(w http.ResponseWriter, err error) bool {
	var le *limitError
	if !errors.As(err, &le) {
		return false
	}
	w.Header().Set("Retry-After", "60")
	http.Error(w, le.Error(), le.status())
	return true
}

// listenMethod is the request of the protocol without sessions that opens
// a stream of notifications.
const listenMethod = "subscriptions/listen"

// deadlineBody lifts the connection's read deadline once the body is read.
type deadlineBody struct {
	io.ReadCloser
	rc   *http.ResponseController
	done bool
}

func (b *deadlineBody) Read(p []byte) (int, error) {
	n, err := b.ReadCloser.Read(p)
	if err == io.EOF && !b.done {
		b.done = true
		_ = b.rc.SetReadDeadline(time.Time{})
	}
	return n, err
}

// eventStreams are the requests that last until the client leaves: GET
// event streams, and the POSTs of the protocol without sessions, among
// which subscriptions/listen never ends by itself. closeAll ends the GET
// streams at once and those POSTs after statelessDrain, so an ordinary
// request in flight still finishes, and a listen stream does not hold
// the shutdown for its whole grace period.
type eventStreams struct {
	mu     sync.Mutex
	closed bool
	cancel map[*http.Request]context.CancelFunc
	posts  map[*http.Request]context.CancelFunc
}

// statelessDrain is how long a stateless request may go on after
// shutdown began; far longer than any tool call, far shorter than
// ShutdownGrace.
const statelessDrain = 2 * time.Second

func (e *eventStreams) wrap(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var reqs map[*http.Request]context.CancelFunc
		switch {
		case r.Method == http.MethodGet:
			reqs = e.cancel
		case r.Method == http.MethodPost && usesStatelessProtocol(r):
			reqs = e.posts
		default:
			next.ServeHTTP(w, r)
			return
		}
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		r = r.WithContext(ctx)
		e.mu.Lock()
		if e.closed {
			e.mu.Unlock()
			http.Error(w, "503: the server is shutting down", http.StatusServiceUnavailable)
			return
		}
		reqs[r] = cancel
		e.mu.Unlock()
		defer func() {
			e.mu.Lock()
			delete(reqs, r)
			e.mu.Unlock()
		}()
		next.ServeHTTP(w, r)
	})
}

func (e *eventStreams) closeAll() {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.closed = true
	for _, cancel := range e.cancel {
		cancel()
	}
	posts := make([]context.CancelFunc, 0, len(e.posts))
	for _, cancel := range e.posts {
		posts = append(posts, cancel)
	}
	time.AfterFunc(statelessDrain, func() {
		for _, cancel := range posts {
			cancel()
		}
	})
}

// Listen checks addr (loopback only without a token) and listens on it;
// flag names the option that gave addr, for the error.
func Listen(flag, addr, token string) (net.Listener, error) {
	if err := CheckAddr(flag, addr, token); err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("%s %q: %w", flag, addr, err)
	}
	return ln, nil
}

// ServeViewer serves the viewer alone on ln until ctx is done, then shuts
// down as Serve does: event streams end at once, pages in flight finish.
func ServeViewer(ctx context.Context, ln net.Listener, viewer *ui.Handler) error {
	mux := http.NewServeMux()
	mux.Handle(ui.Prefix, viewer)
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, ui.Prefix, http.StatusSeeOther)
	})
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: ReadHeaderTimeout, IdleTimeout: IdleConnTimeout}
	srv.RegisterOnShutdown(viewer.Close)
	return ServeUntilDone(ctx, srv, ln, "the viewer")
}
