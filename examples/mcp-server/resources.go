package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Every document of the bank is a resource:
//
//	memorybank://global/<path>
//	memorybank://branch/<branch>/<path>
//
// with the branch percent-encoded as one path segment (feature/login is
// feature%2Flogin) and each segment of the path percent-encoded as in any
// URL. A JSON document reads as its envelope (application/json), a text
// document as its text. resources/list lists every document of the global
// bank and of every branch bank, in one page.

const (
	globalURIPrefix = "memorybank://global/"
	branchURIPrefix = "memorybank://branch/"
)

// docURI returns the resource URI of a document.
func docURI(scope memorybank.Scope, branch, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	if scope == memorybank.ScopeGlobal {
		return globalURIPrefix + strings.Join(segs, "/")
	}
	return branchURIPrefix + url.PathEscape(branch) + "/" + strings.Join(segs, "/")
}

// parseDocURI is the inverse of docURI, refusing anything that is not a
// valid document of the bank.
func parseDocURI(uri string) (memorybank.ReadRequest, error) {
	var req memorybank.ReadRequest
	rest, ok := strings.CutPrefix(uri, globalURIPrefix)
	if ok {
		req.Scope = memorybank.ScopeGlobal
	} else if rest, ok = strings.CutPrefix(uri, branchURIPrefix); ok {
		req.Scope = memorybank.ScopeBranch
		enc, after, found := strings.Cut(rest, "/")
		if !found {
			return req, fmt.Errorf("resource %q names no document: use memorybank://branch/<branch>/<path>", uri)
		}
		b, err := url.PathUnescape(enc)
		if err != nil {
			return req, fmt.Errorf("resource %q: the branch is not percent-encoded correctly: %v", uri, err)
		}
		if err := memorybank.ValidateBranch(b); err != nil {
			return req, fmt.Errorf("resource %q: %v", uri, err)
		}
		req.Branch, rest = b, after
	} else {
		return req, fmt.Errorf("resource %q is not a memory bank document: URIs are memorybank://global/<path> and memorybank://branch/<branch>/<path>", uri)
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return req, fmt.Errorf("resource %q: the path is not percent-encoded correctly: %v", uri, err)
	}
	if err := memorybank.ValidatePath(p); err != nil {
		return req, fmt.Errorf("resource %q: %v", uri, err)
	}
	req.Path = p
	return req, nil
}

// storeKey is the store key of a document.
func storeKey(req memorybank.ReadRequest) (string, error) {
	if req.Scope == memorybank.ScopeGlobal {
		return memorybank.GlobalPrefix + req.Path, nil
	}
	dir, err := memorybank.BranchDir(req.Branch)
	if err != nil {
		return "", err
	}
	return memorybank.BranchPrefix + dir + "/" + req.Path, nil
}

func mimeType(p string) string {
	switch path.Ext(p) {
	case ".json":
		return "application/json"
	case ".md":
		return "text/markdown"
	}
	return "text/plain"
}

func (s *server) addResources() {
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "global-document",
		Title:       "Document of the global memory bank",
		URITemplate: "memorybank://global/{+path}",
		Description: "A document of the global memory bank, shared by every branch: a JSON envelope or Markdown text.",
	}, s.readResource)
	s.AddResourceTemplate(&mcp.ResourceTemplate{
		Name:        "branch-document",
		Title:       "Document of a branch memory bank",
		URITemplate: "memorybank://branch/{branch}/{+path}",
		Description: "A document of the memory bank of one git branch; the branch is percent-encoded (feature/login is feature%2Flogin).",
	}, s.readResource)
	s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			if method == "resources/list" {
				return s.listResources(ctx)
			}
			return next(ctx, method, req)
		}
	})
}

func (s *server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rr, err := parseDocURI(uri)
	if err != nil {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	doc, err := s.bank.Read(ctx, rr)
	if errors.Is(err, memorybank.ErrNotFound) {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	if err != nil {
		return nil, err
	}
	text := doc.Text()
	if doc.Format == memorybank.FormatJSON {
		text = string(doc.Content)
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mimeType(rr.Path), Text: text}}}, nil
}

func (s *server) listResources(ctx context.Context) (*mcp.ListResourcesResult, error) {
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}}
	add := func(scope memorybank.Scope, branch string) error {
		entries, err := s.bank.List(ctx, memorybank.ListRequest{Scope: scope, Branch: branch})
		if err != nil {
			return err
		}
		for _, e := range entries {
			name := e.Path
			if scope == memorybank.ScopeBranch {
				name = branch + ": " + e.Path
			}
			res.Resources = append(res.Resources, &mcp.Resource{
				URI: docURI(scope, branch, e.Path), Name: name, Title: e.Title,
				MIMEType: mimeType(e.Path), Size: int64(e.Size),
			})
		}
		return nil
	}
	if err := add(memorybank.ScopeGlobal, ""); err != nil {
		return nil, err
	}
	branches, err := s.bank.Branches(ctx)
	if err != nil {
		return nil, err
	}
	for _, b := range branches {
		if memorybank.ValidateBranch(b) != nil {
			continue
		}
		if err := add(memorybank.ScopeBranch, b); err != nil {
			return nil, err
		}
	}
	return res, nil
}

func (s *server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	rr, err := parseDocURI(req.Params.URI)
	if err != nil {
		return err
	}
	key, err := storeKey(rr)
	if err != nil {
		return err
	}
	return s.watcher.add(ctx, req.Params.URI, key)
}

func (s *server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.watcher.remove(req.Params.URI)
	return nil
}

// pollInterval is how often the watcher looks for changes to subscribed
// documents. Writes by this process and by others on the same bank are
// seen alike, through the store.
const pollInterval = 200 * time.Millisecond

// maxSubscriptions bounds the documents watched at once (over all
// sessions): each is listed when the store changes.
const maxSubscriptions = 1000

// watcher polls the store for changes to the subscribed documents: one
// change-count reading per tick when the store counts its changes
// (memorybank.ChangeCounter), and one listing per subscribed document when
// the count moved or the store does not count.
type watcher struct {
	bank   *memorybank.Bank
	logger *slog.Logger
	notify func(uri string)

	mu      sync.Mutex
	subs    map[string]*watched // by URI
	running bool
	done    chan struct{}
	last    memorybank.ChangeCount
	haveCnt bool
}

type watched struct {
	n       int // subscriptions to it, over all sessions
	key     string
	version string // the store's version; "" when the document does not exist
}

func newWatcher(bank *memorybank.Bank, logger *slog.Logger) *watcher {
	return &watcher{bank: bank, logger: logger, subs: map[string]*watched{}, done: make(chan struct{})}
}

func (w *watcher) add(ctx context.Context, uri, key string) error {
	v, err := w.version(ctx, key)
	if err != nil {
		return err
	}
	w.mu.Lock()
	defer w.mu.Unlock()
	if cur, ok := w.subs[uri]; ok {
		cur.n++
	} else {
		if len(w.subs) >= maxSubscriptions {
			return fmt.Errorf("at most %d documents can be subscribed at once; unsubscribe from some first", maxSubscriptions)
		}
		w.subs[uri] = &watched{n: 1, key: key, version: v}
	}
	if !w.running {
		w.running = true
		if cc, ok := w.bank.Store().(memorybank.ChangeCounter); ok {
			if c, err := cc.Changes(ctx); err == nil {
				w.last, w.haveCnt = c, true
			}
		}
		go w.loop()
	}
	return nil
}

func (w *watcher) remove(uri string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if cur, ok := w.subs[uri]; ok {
		if cur.n--; cur.n <= 0 {
			delete(w.subs, uri)
		}
	}
}

func (w *watcher) stop() {
	w.mu.Lock()
	defer w.mu.Unlock()
	select {
	case <-w.done:
	default:
		close(w.done)
	}
}

// version returns the store version of key, "" when it holds nothing.
func (w *watcher) version(ctx context.Context, key string) (string, error) {
	for obj, err := range w.bank.Store().List(ctx, key) {
		if err != nil {
			return "", err
		}
		if obj.Key == key {
			return obj.Version, nil
		}
	}
	return "", nil
}

func (w *watcher) loop() {
	t := time.NewTicker(pollInterval)
	defer t.Stop()
	for {
		select {
		case <-w.done:
			return
		case <-t.C:
			w.check()
		}
	}
}

// check notifies the subscribers of every document whose version changed.
func (w *watcher) check() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if cc, ok := w.bank.Store().(memorybank.ChangeCounter); ok {
		c, err := cc.Changes(ctx)
		if err == nil {
			w.mu.Lock()
			same := w.haveCnt && c == w.last
			w.last, w.haveCnt = c, true
			w.mu.Unlock()
			if same {
				return
			}
		}
	}
	w.mu.Lock()
	subs := make(map[string]watched, len(w.subs))
	for uri, s := range w.subs {
		subs[uri] = *s
	}
	w.mu.Unlock()
	for uri, s := range subs {
		v, err := w.version(ctx, s.key)
		if err != nil {
			w.logger.Warn("watching a subscribed document", "uri", uri, "err", err)
			continue
		}
		if v == s.version {
			continue
		}
		w.mu.Lock()
		if cur, ok := w.subs[uri]; ok {
			cur.version = v
		}
		w.mu.Unlock()
		w.notify(uri)
	}
}
