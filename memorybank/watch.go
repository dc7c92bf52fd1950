package memorybank

import (
	"context"
	"time"
)

// What a host that shows documents to someone else (an MCP server's
// resource subscriptions, a viewer) needs from a Bank, so that it never
// reaches through Bank.Store.

// Watch returns a channel that receives a value soon after the documents
// may have changed, by any writer the store can see (this Bank, other
// Banks, other processes), until ctx ends; then it is closed. Signals are
// coalesced and may be spurious: a receiver reads what it shows again
// (DocumentVersions). A store with ChangeNotifier signals the Bank at once
// (pgstore: PostgreSQL LISTEN/NOTIFY); over a plain ChangeCounter the count
// is read every interval (0: DefaultWatchInterval) and a signal sent only
// when it moved; over any other store a signal is sent every interval.
func (b *Bank) Watch(ctx context.Context, interval time.Duration) <-chan struct{} {
	out := make(chan struct{}, 1)
	if err := b.ready(); err != nil {
		close(out)
		return out
	}
	if interval <= 0 {
		interval = DefaultWatchInterval
	}
	signal := func() {
		select {
		case out <- struct{}{}:
		default:
		}
	}
	// The first reading is taken before Watch returns, so a write made
	// after it returns is always signalled.
	var changed <-chan struct{}
	if cn, ok := b.store.(ChangeNotifier); ok {
		changed = cn.WatchChanges(ctx)
	}
	cc, counts := b.store.(ChangeCounter)
	var last ChangeCount
	have := false
	if counts {
		if c, err := cc.Changes(ctx); err == nil {
			last, have = c, true
		}
	}
	go func() {
		defer close(out)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case _, open := <-changed:
				if !open {
					return
				}
				signal()
				continue
			case <-t.C:
				if changed != nil {
					continue // the notifier polls for itself while it cannot listen
				}
			}
			if !counts {
				signal()
				continue
			}
			c, err := cc.Changes(ctx)
			if err != nil {
				signal() // cannot tell: let the receiver look
				continue
			}
			if !have || c != last {
				last, have = c, true
				signal()
			}
		}
	}()
	return out
}

// DocumentVersions returns the store version of each document named
// (opaque; it changes on every write of the document), in one listing of
// each bank involved. A document that does not exist, and a request that
// names none (an invalid path, a branch without a bank), get "".
func (b *Bank) DocumentVersions(ctx context.Context, docs []ReadRequest) ([]string, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	out := make([]string, len(docs))
	byPrefix := map[string]map[string][]int{} // bank prefix -> key -> indices
	for i, d := range docs {
		l, err := b.locate(ctx, d.Scope, d.Branch, d.Path, false)
		if err != nil {
			continue
		}
		keys := byPrefix[l.prefix]
		if keys == nil {
			keys = map[string][]int{}
			byPrefix[l.prefix] = keys
		}
		keys[l.key] = append(keys[l.key], i)
	}
	for prefix, keys := range byPrefix {
		for obj, err := range b.store.List(ctx, prefix) {
			if err != nil {
				return nil, err
			}
			for _, i := range keys[obj.Key] {
				out[i] = obj.Version
			}
		}
	}
	return out, nil
}
