package mcphttp

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"sync"
)

// A client, for the per-client limits, is the pair of the credential it
// presents (the Authorization header, kept as a hash) and the IP address
// it connects from (without the port, which a client picks anew for each
// connection). With the one team token every client shares, that is the
// machine: agents on one machine share its limits, and clients behind one
// proxy or NAT count as one client (forwarding headers are not trusted,
// since any client can write them). A client holds at most
// Limits.MaxSessionsPerClient sessions and Limits.MaxStreamsPerClient
// streams, so that no one client takes the server's caps.

// clientKey identifies the client of r.
func clientKey(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	sum := sha256.Sum256([]byte(r.Header.Get("Authorization")))
	return hex.EncodeToString(sum[:8]) + "@" + host
}

// limitError is a request refused for a limit: per client (429) or for
// the server (503).
type limitError struct {
	what      string // "MCP sessions" or "event streams"
	limit     int
	perClient bool
}

func (e *limitError) Error() string {
	if e.perClient {
		return fmt.Sprintf("429: this client (its address and credential) holds its maximum of %d %s; close some first", e.limit, e.what)
	}
	return fmt.Sprintf("503: the server holds its maximum of %d %s; try again later", e.limit, e.what)
}

func (e *limitError) status() int {
	if e.perClient {
		return http.StatusTooManyRequests
	}
	return http.StatusServiceUnavailable
}

// clients counts what each client holds: its open event streams (a
// session's GET stream, a subscriptions/listen stream) and its sessions.
// Sessions end without telling the handler (idle timeout, DELETE, the
// client leaving), so the sessions each client opened are kept by ID and
// pruned against the server's live sessions when a new one is asked for.
type clients struct {
	lim Limits

	mu       sync.Mutex
	streams  map[string]int             // open streams per client
	nStreams int                        // open streams over all clients
	sessions map[string]map[string]bool // session IDs per client
	pending  map[string]int             // sessions being made per client
}

func newClients(lim Limits) *clients {
	return &clients{lim: lim, streams: map[string]int{}, sessions: map[string]map[string]bool{}, pending: map[string]int{}}
}

// openStream counts a new stream of client, or refuses it; release
// uncounts it.
func (c *clients) openStream(client string) (release func(), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.streams[client] >= c.lim.MaxStreamsPerClient:
		return nil, &limitError{what: "event streams", limit: c.lim.MaxStreamsPerClient, perClient: true}
	case c.nStreams >= c.lim.MaxStreams:
		return nil, &limitError{what: "event streams", limit: c.lim.MaxStreams}
	}
	c.streams[client]++
	c.nStreams++
	var once sync.Once
	return func() {
		once.Do(func() {
			c.mu.Lock()
			defer c.mu.Unlock()
			c.nStreams--
			if c.streams[client]--; c.streams[client] <= 0 {
				delete(c.streams, client)
			}
		})
	}, nil
}

// openSession reserves a session for client, given the IDs of the
// server's live sessions, or refuses it. done is called with the new
// session's ID once the request made it ("" when it made none).
func (c *clients) openSession(client string, live map[string]bool) (done func(id string), err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	total := 0
	for cl, ids := range c.sessions {
		for id := range ids {
			if !live[id] {
				delete(ids, id)
			}
		}
		if len(ids) == 0 {
			delete(c.sessions, cl)
		}
		total += len(ids)
	}
	for _, n := range c.pending {
		total += n
	}
	// Sessions made some other way (none over this handler) still count
	// toward the server's cap.
	total = max(total, len(live))
	switch {
	case len(c.sessions[client])+c.pending[client] >= c.lim.MaxSessionsPerClient:
		return nil, &limitError{what: "MCP sessions", limit: c.lim.MaxSessionsPerClient, perClient: true}
	case total >= c.lim.MaxSessions:
		return nil, &limitError{what: "MCP sessions", limit: c.lim.MaxSessions}
	}
	c.pending[client]++
	return func(id string) {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.pending[client]--; c.pending[client] <= 0 {
			delete(c.pending, client)
		}
		if id == "" {
			return
		}
		if c.sessions[client] == nil {
			c.sessions[client] = map[string]bool{}
		}
		c.sessions[client][id] = true
	}, nil
}
