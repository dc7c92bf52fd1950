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
	"errors"
	"io"
	"net/http"
	"time"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

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
