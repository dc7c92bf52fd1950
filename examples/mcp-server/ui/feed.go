package ui

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/mnemobank/mnemobank/memorybank"
)

// The live feed: one watcher of the bank, running while at least one
// event stream is open, compares a listing of every bank before and after
// each change signal and sends what it finds to every stream.

// Limits of the feed.
const (
	maxEventsPerChange = 50               // events of one signal; the rest are counted in one "more" event
	streamBuffer       = 64               // events queued for a slow stream before it misses some
	keepAlive          = 30 * time.Second // a comment line on an idle stream
)

// event is one change the feed shows.
type event struct {
	Kind    string    `json:"kind"` // created, changed, deleted, or more
	Bank    string    `json:"bank,omitempty"`
	Path    string    `json:"path,omitempty"`
	Title   string    `json:"title,omitempty"`
	Version int64     `json:"version,omitempty"`
	Time    time.Time `json:"time"`
	URL     string    `json:"url,omitempty"`
	More    int       `json:"more,omitempty"`
}

type docState struct {
	version int64
	title   string
}

type feed struct {
	bank *memorybank.Bank
	log  *slog.Logger
	max  int

	mu     sync.Mutex
	subs   map[chan event]struct{}
	stop   context.CancelFunc // the watcher's, while it runs
	ready  chan struct{}      // closed once the watcher has its first listing
	closed bool
	ended  chan struct{} // closed by close: every stream returns
}

func newFeed(b *memorybank.Bank, log *slog.Logger, maxSubs int) *feed {
	return &feed{bank: b, log: log, max: maxSubs, subs: map[chan event]struct{}{}, ended: make(chan struct{})}
}

var (
	errFeedClosed = &httpError{status: http.StatusServiceUnavailable, msg: "503: the server is shutting down"}
	errFeedFull   = &httpError{status: http.StatusServiceUnavailable, msg: fmt.Sprintf("503: %d live feeds are open, the most this viewer serves; close a tab", maxStreams)}
)

// subscribe adds a stream, starting the watcher for the first one. Every
// change made after ready is closed is sent to the stream.
func (f *feed) subscribe() (ch chan event, ready <-chan struct{}, err error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return nil, nil, errFeedClosed
	}
	if len(f.subs) >= f.max {
		return nil, nil, errFeedFull
	}
	ch = make(chan event, streamBuffer)
	f.subs[ch] = struct{}{}
	if f.stop == nil {
		ctx, cancel := context.WithCancel(context.Background())
		f.stop, f.ready = cancel, make(chan struct{})
		go f.watch(ctx, f.ready)
	}
	return ch, f.ready, nil
}

// unsubscribe removes a stream, stopping the watcher after the last.
func (f *feed) unsubscribe(ch chan event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.subs, ch)
	if len(f.subs) == 0 && f.stop != nil {
		f.stop()
		f.stop = nil
	}
}

func (f *feed) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return
	}
	f.closed = true
	close(f.ended)
	if f.stop != nil {
		f.stop()
		f.stop = nil
	}
}

func (f *feed) broadcast(evs []event) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for ch := range f.subs {
		for _, e := range evs {
			select {
			case ch <- e:
			default: // a stream that does not read misses events, never blocks the others
			}
		}
	}
}

func (f *feed) watch(ctx context.Context, ready chan struct{}) {
	signals := f.bank.Watch(ctx, 0)
	prev, err := f.snapshot(ctx)
	if err != nil {
		f.log.Warn("ui: live feed cannot list the bank", "err", err)
	}
	close(ready)
	for range signals {
		next, err := f.snapshot(ctx)
		if err != nil {
			if ctx.Err() == nil {
				f.log.Warn("ui: live feed cannot list the bank", "err", err)
			}
			continue
		}
		if evs := changes(prev, next, time.Now()); len(evs) > 0 {
			f.broadcast(evs)
		}
		prev = next
	}
}

// snapshot lists every document of every bank.
func (f *feed) snapshot(ctx context.Context) (map[ref]docState, error) {
	banks := []ref{{Scope: memorybank.ScopeGlobal}}
	branches, err := f.bank.Branches(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range branches {
		banks = append(banks, ref{Scope: memorybank.ScopeBranch, Branch: b})
	}
	out := map[ref]docState{}
	for _, b := range banks {
		entries, err := f.bank.List(ctx, memorybank.ListRequest{Scope: b.Scope, Branch: b.Branch})
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			out[ref{b.Scope, b.Branch, e.Path}] = docState{e.Version, e.Title}
		}
	}
	return out, nil
}

// changes are the events between two snapshots, at most
// maxEventsPerChange and a "more" event counting the rest.
func changes(prev, next map[ref]docState, now time.Time) []event {
	var evs []event
	more := 0
	add := func(e event) {
		if len(evs) < maxEventsPerChange {
			evs = append(evs, e)
		} else {
			more++
		}
	}
	for r, s := range next {
		p, ok := prev[r]
		switch {
		case !ok:
			add(event{Kind: "created", Bank: r.BankName(), Path: r.Path, Title: s.title, Version: s.version, Time: now, URL: r.URL()})
		case p.version != s.version:
			add(event{Kind: "changed", Bank: r.BankName(), Path: r.Path, Title: s.title, Version: s.version, Time: now, URL: r.URL()})
		}
	}
	for r, p := range prev {
		if _, ok := next[r]; !ok {
			add(event{Kind: "deleted", Bank: r.BankName(), Path: r.Path, Title: p.title, Version: p.version, Time: now, URL: r.HistoryURL()})
		}
	}
	if more > 0 {
		evs = append(evs, event{Kind: "more", More: more, Time: now})
	}
	return evs
}

// events serves the live feed as server-sent events: one "change" event
// per changed document, until the client leaves or the Handler closes.
func (h *Handler) events(w http.ResponseWriter, r *http.Request) {
	ch, ready, err := h.feed.subscribe()
	if err != nil {
		h.fail(w, r, err)
		return
	}
	defer h.feed.unsubscribe(ch)
	select {
	case <-ready:
	case <-r.Context().Done():
		return
	case <-h.feed.ended:
		return
	}
	rc := http.NewResponseController(w)
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	if _, err := fmt.Fprint(w, ": mnemobank live feed\nretry: 2000\n\n"); err != nil {
		return
	}
	if rc.Flush() != nil {
		return
	}
	tick := time.NewTicker(keepAlive)
	defer tick.Stop()
	for {
		select {
		case <-r.Context().Done():
			return
		case <-h.feed.ended:
			return
		case <-tick.C:
			if _, err := fmt.Fprint(w, ": keep-alive\n\n"); err != nil {
				return
			}
		case e := <-ch:
			data, err := json.Marshal(e)
			if err != nil {
				return
			}
			if _, err := fmt.Fprintf(w, "event: change\ndata: %s\n\n", data); err != nil {
				return
			}
		}
		if rc.Flush() != nil {
			return
		}
	}
}
