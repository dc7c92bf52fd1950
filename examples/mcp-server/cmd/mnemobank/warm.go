package main

import (
	"context"
	"log/slog"

	"github.com/mnemobank/mnemobank/examples/mcp-server/trust"
)

// warmUp does in the background, once the server serves, the work its
// first requests would otherwise wait for: building the credential rules
// (which the first write needs). It gives up when ctx ends.
func warmUp(ctx context.Context, logger *slog.Logger) {
	if ctx.Err() != nil {
		return
	}
	if err := trust.Warm(); err != nil {
		logger.Error("mnemobank: the credential rules failed to load; every write is refused", "err", err)
	}
}
