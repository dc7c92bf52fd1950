package mcphttp

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
)

// Path is where the streamable HTTP transport is served.
const Path = "/mcp"

// ShutdownGrace bounds how long in-flight HTTP requests may finish after a
// SIGTERM before the server closes their connections.
const ShutdownGrace = 10 * time.Second

// Serve serves h at http://addr/mcp, and the viewer of viewer (if not
// nil) at http://addr/ui/, until ctx is done, then shuts down gracefully:
// it stops accepting, lets in-flight requests finish (at most
// ShutdownGrace), and returns. ready, if set, is told the address
// listened on (useful with port 0).
func Serve(ctx context.Context, addr, token string, h http.Handler, viewer *ui.Options, logger *slog.Logger, ready func(net.Addr)) error {
	return ServeAccess(ctx, addr, Access{Token: token, Logger: logger}, h, viewer, logger, ready)
}

// ServeAccess is Serve with the per-person tokens of acc.Store beside the
// shared token: each request of /mcp runs with its token's identity (see
// Access), and the protected resource metadata is served at MetadataPath.
// The viewer is made from viewer with the host names addr is reached by
// (ViewerHosts) and, when requests must authenticate, the same
// authenticator as /mcp: any valid token opens it, with its scope.
func ServeAccess(ctx context.Context, addr string, acc Access, h http.Handler, viewer *ui.Options, logger *slog.Logger, ready func(net.Addr)) error {
	on, err := acc.check(ctx, "--http", addr)
	if err != nil {
		return err
	}
	if viewer != nil {
		o := *viewer
		o.Hosts = ViewerHosts(addr, on)
		viewer = &o
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("--http %q: %w", addr, err)
	}
	return serveListener(ctx, ln, acc, on, h, viewer, logger, ready)
}

// ViewerHosts are the host names a viewer served on addr accepts besides
// the loopback ones (ui.Options.Hosts): addr's host; any host when addr's
// is unspecified (0.0.0.0), and only when requests authenticate, since a
// viewer without a token is safe from DNS rebinding only under loopback
// names.
func ViewerHosts(addr string, authenticated bool) []string {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	switch ip := net.ParseIP(host); {
	case host == "" || ip != nil && ip.IsUnspecified():
		if authenticated {
			return []string{"*"}
		}
	case host != "localhost" && (ip == nil || !ip.IsLoopback()):
		return []string{host}
	}
	return nil
}

// serveListener is ServeAccess on a listener; on says whether requests
// must authenticate.
func serveListener(ctx context.Context, ln net.Listener, acc Access, on bool, h http.Handler, viewerOpts *ui.Options, logger *slog.Logger, ready func(net.Addr)) error {
	mux := http.NewServeMux()
	var authn *tokens.Authenticator
	if on {
		authn = acc.newAuthenticator()
		h = requireAccess(authn, h)
		mux.Handle(MetadataPath, metadataHandler())
	}
	mux.Handle(Path, h)
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "404: the MCP endpoint is "+Path, http.StatusNotFound)
	})
	var viewer *ui.Handler
	if viewerOpts != nil {
		o := *viewerOpts
		o.Token = acc.Token
		if authn != nil {
			o.Auth = authn
		}
		var err error
		if viewer, err = ui.New(o); err != nil {
			ln.Close()
			return err
		}
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
	logger.Info("mnemobank: serving MCP over streamable HTTP", "url", "http://"+ln.Addr().String()+Path, "authentication", on, "personal tokens", acc.Store != nil)
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
