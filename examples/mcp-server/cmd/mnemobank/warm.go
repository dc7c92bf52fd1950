package main

import (
	"context"
	"errors"
	"log/slog"

	"github.com/mnemobank/mnemobank/examples/mcp-server/trust"
	"github.com/mnemobank/mnemobank/memorybank"
)

// startWarmUp does in the background, while the server answers its first
// requests, the work those requests would otherwise wait for: first the
// credential rules (which the first write needs), then the text index of
// every bank (which the first search_documents needs; reading and
// indexing a branch of 50 chat-length documents costs tens of
// milliseconds). It returns the function that stops it and waits, so the
// stores are not closed under it.
//
// Decision: every bank is indexed, not only the client's branch (known
// only once the client answers roots/list): a search's default scope is
// every bank, and what is indexed is what that search would read anyway.
func startWarmUp(ctx context.Context, bank *memorybank.Bank, logger *slog.Logger) (stop func()) {
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := trust.Warm(); err != nil {
			logger.Error("mnemobank: the credential rules failed to load; every write is refused", "err", err)
		}
		if ctx.Err() != nil {
			return
		}
		// Any word does: the search brings every bank's index up to date
		// before it scores.
		_, err := bank.Search(ctx, memorybank.TextSearchRequest{Query: "warm", Scope: memorybank.ScopeAll, Limit: 1})
		if err != nil && !errors.Is(err, context.Canceled) && ctx.Err() == nil {
			logger.Warn("mnemobank: indexing the banks for search ahead of time failed; the first search will", "err", err)
		}
	}()
	return func() { cancel(); <-done }
}
