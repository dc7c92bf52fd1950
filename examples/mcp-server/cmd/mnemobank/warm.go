package main

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/examples/mcp-server/trust"
	"github.com/mnemobank/mnemobank/memorybank"
)

// warmIdle is how long the server must have had no request before the
// warm-up starts a step: an agent's first requests come in a burst
// (initialize, the lists, read_context), then the model thinks for
// seconds.
const warmIdle = 150 * time.Millisecond

// startWarmUp does in the background, while the client is quiet, the work
// its later requests would otherwise wait for: first the credential rules
// (which the first write needs: 100 to 300 ms of CPU), then the text index
// of every bank (which the first search_documents needs; reading and
// indexing a branch of 50 chat-length documents costs tens of
// milliseconds). Each step starts only once srv has had no request in
// flight for warmIdle: on a machine of two cores, work started at once
// made the first read_context wait three to four times longer. A request
// that needs a step before it ran does that step itself, as without the
// warm-up. It returns the function that stops the warm-up and waits, so
// the stores are not closed under it.
//
// Decision: every bank is indexed, not only the client's branch (known
// only once the client answers roots/list): a search's default scope is
// every bank, and what is indexed is what that search would read anyway.
func startWarmUp(ctx context.Context, srv *mcp.Server, bank *memorybank.Bank, logger *slog.Logger) (stop func()) {
	idle := newIdleWatch(srv)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if !idle.wait(ctx) {
			return
		}
		if err := trust.Warm(); err != nil {
			logger.Error("mnemobank: the credential rules failed to load; every write is refused", "err", err)
		}
		if !idle.wait(ctx) {
			return
		}
		err := bank.Warm(ctx, memorybank.ScopeAll, "")
		if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
			logger.Warn("mnemobank: indexing the banks for search ahead of time failed; the first search will", "err", err)
		}
	}()
	return func() { cancel(); <-done }
}

// idleWatch follows a server's requests: how many are in flight, and when
// the last one ended.
type idleWatch struct {
	mu       sync.Mutex
	inFlight int
	last     time.Time
}

func newIdleWatch(srv *mcp.Server) *idleWatch {
	w := &idleWatch{last: time.Now()}
	srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			w.mu.Lock()
			w.inFlight++
			w.mu.Unlock()
			defer func() {
				w.mu.Lock()
				w.inFlight--
				w.last = time.Now()
				w.mu.Unlock()
			}()
			return next(ctx, method, req)
		}
	})
	return w
}

// wait returns true once no request is in flight and none ended within
// warmIdle, or false when ctx ends first.
func (w *idleWatch) wait(ctx context.Context) bool {
	t := time.NewTicker(warmIdle / 3)
	defer t.Stop()
	for {
		w.mu.Lock()
		quiet := w.inFlight == 0 && time.Since(w.last) >= warmIdle
		w.mu.Unlock()
		if quiet {
			return true
		}
		select {
		case <-ctx.Done():
			return false
		case <-t.C:
		}
	}
}
