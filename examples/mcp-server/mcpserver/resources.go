package mcpserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"path"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
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

// ResourceURI is the resource URI of a document of the bank:
// memorybank://global/<path> or memorybank://branch/<branch>/<path>.
func ResourceURI(scope memorybank.Scope, branch, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	if scope == memorybank.ScopeGlobal {
		return globalURIPrefix + strings.Join(segs, "/")
	}
	return branchURIPrefix + url.PathEscape(branch) + "/" + strings.Join(segs, "/")
}

// parseDocURI is the inverse of ResourceURI, refusing anything that is not a
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
			return req, fmt.Errorf("resource %s names no document: use memorybank://branch/<branch>/<path>", quoteInput(uri))
		}
		b, err := url.PathUnescape(enc)
		if err != nil {
			return req, fmt.Errorf("resource %s: the branch is not percent-encoded correctly: %v", quoteInput(uri), err)
		}
		if err := memorybank.ValidateBranch(b); err != nil {
			return req, fmt.Errorf("resource %s: the branch is not valid (%w)", quoteInput(uri), memorybank.ErrInvalidRequest)
		}
		req.Branch, rest = b, after
	} else {
		return req, fmt.Errorf("resource %s is not a memory bank document: URIs are memorybank://global/<path> and memorybank://branch/<branch>/<path>", quoteInput(uri))
	}
	p, err := url.PathUnescape(rest)
	if err != nil {
		return req, fmt.Errorf("resource %s: the path is not percent-encoded correctly: %v", quoteInput(uri), err)
	}
	if err := memorybank.ValidatePath(p); err != nil {
		return req, fmt.Errorf("resource %s: the path is not a valid document path (%w); paths are relative, with no \"..\" or hidden segments", quoteInput(uri), memorybank.ErrInvalidRequest)
	}
	req.Path = p
	return req, nil
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

func (s *Server) addResources() {
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

func (s *Server) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rr, err := parseDocURI(uri)
	if err != nil {
		return nil, invalidParams(err)
	}
	doc, err := s.bank.Read(ctx, rr)
	if errors.Is(err, memorybank.ErrNotFound) {
		return nil, resourceNotFound(uri, req.ProtocolVersion())
	}
	if err != nil {
		return nil, internalError(err)
	}
	text := doc.Text()
	if doc.Format == memorybank.FormatJSON {
		text = string(doc.Content)
	}
	mime := mimeType(rr.Path)
	// A document larger than a write could store answers its beginning
	// and a note (as text: cut JSON is no longer JSON).
	if cut, truncated := tools.Truncate(text, s.bank.Options().MaxDocumentBytes); truncated {
		text, mime = cut, "text/plain"
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: text}}}, nil
}

func (s *Server) listResources(ctx context.Context) (*mcp.ListResourcesResult, error) {
	// Answered here, not by the SDK, so its SetCacheable is not called.
	res := &mcp.ListResourcesResult{Resources: []*mcp.Resource{}, Cacheable: privateCache()}
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
				URI: ResourceURI(scope, branch, e.Path), Name: name, Title: e.Title,
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

func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	rr, err := parseDocURI(req.Params.URI)
	if err != nil {
		return invalidParams(err)
	}
	if err := s.watcher.add(ctx, req.Session, req.Params.URI, rr); err != nil {
		var le *subscriptionLimitError
		if errors.As(err, &le) {
			return invalidParams(err)
		}
		return internalError(err)
	}
	s.track(req.Session)
	return nil
}

// invalidParams is a client's mistake, as a JSON-RPC error (-32602).
func invalidParams(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: err.Error()}
}

// resourceNotFound is the protocol's error for a resource that does not
// exist, with the URI, cut short, in its data. Its code depends on the
// protocol version the request uses: -32602 (invalid params) from
// 2026-07-28 on (SEP-2164, the SDK's mcp.CodeResourceNotFound), and
// -32002, which the specifications of 2024-11-05 to 2025-11-25 name,
// before.
func resourceNotFound(uri, protocol string) error {
	short := quoteInput(uri)
	data, _ := json.Marshal(map[string]string{"uri": short})
	return &jsonrpc.Error{Code: resourceNotFoundCode(protocol), Message: "resource not found: " + short, Data: data}
}

// legacyResourceNotFound is the code for a missing resource before
// protocol 2026-07-28.
const legacyResourceNotFound = -32002

func resourceNotFoundCode(protocol string) int64 {
	if protocol != "" && protocol < StatelessProtocol {
		return legacyResourceNotFound
	}
	return jsonrpc.CodeInvalidParams
}

// internalError is the server's failure, as a JSON-RPC error (-32603).
func internalError(err error) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInternalError, Message: err.Error()}
}

// unsubscribe ends the calling session's watch of the document, never
// another session's.
func (s *Server) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	s.watcher.remove(req.Session, req.Params.URI)
	return nil
}

// pollInterval is how often the watcher looks for changes to subscribed
// documents. Writes by this process and by others on the same bank are
// seen alike, through the store.
const pollInterval = 200 * time.Millisecond

// Limits of subscriptions, checked before a document is watched. A
// session may watch maxSubscriptionsPerSession documents, so one session
// cannot take the server's maxWatchedDocuments (over all sessions); a
// session's watches end with it.
const (
	maxSubscriptionsPerSession = 100
	maxWatchedDocuments        = 10000
)

// errSubscriptionLimit: a subscription over a limit; see
// subscriptionLimitError.
var errSubscriptionLimit = errors.New("too many subscriptions")

// subscriptionLimitError says which subscription limit was reached.
type subscriptionLimitError struct {
	Limit   int
	Session bool // the session's limit; otherwise the server's
}

func (e *subscriptionLimitError) Error() string {
	if e.Session {
		return fmt.Sprintf("%v: a session may watch at most %d documents; unsubscribe from some first", errSubscriptionLimit, e.Limit)
	}
	return fmt.Sprintf("%v: the server watches at most %d documents over all sessions; try again later", errSubscriptionLimit, e.Limit)
}

func (e *subscriptionLimitError) Unwrap() error { return errSubscriptionLimit }

// watcher polls the store for changes to the subscribed documents: one
// change-count reading per tick when the store counts its changes
// (memorybank.ChangeCounter), and, when the count moved or the store does
// not count, one listing of the store for all watched documents together:
// the work of a tick does not grow with the number of watches.
type watcher struct {
	bank   *memorybank.Bank
	logger *slog.Logger
	notify func(uri string)

	mu        sync.Mutex
	docs      map[string]*watched                        // by URI
	bySession map[*mcp.ServerSession]map[string]struct{} // the URIs each session watches
	running   bool
	done      chan struct{}
}

type watched struct {
	sessions int // sessions watching it
	doc      memorybank.ReadRequest
	version  string // the store's version; "" when the document does not exist
}

func newWatcher(bank *memorybank.Bank, logger *slog.Logger) *watcher {
	return &watcher{bank: bank, logger: logger, docs: map[string]*watched{},
		bySession: map[*mcp.ServerSession]map[string]struct{}{}, done: make(chan struct{})}
}

// add makes ss watch uri (the document doc); watching it again is no new
// watch.
func (w *watcher) add(ctx context.Context, ss *mcp.ServerSession, uri string, doc memorybank.ReadRequest) error {
	w.mu.Lock()
	mine := w.bySession[ss]
	_, again := mine[uri]
	switch {
	case again:
		w.mu.Unlock()
		return nil
	case len(mine) >= maxSubscriptionsPerSession:
		w.mu.Unlock()
		return &subscriptionLimitError{Limit: maxSubscriptionsPerSession, Session: true}
	case w.docs[uri] == nil && len(w.docs) >= maxWatchedDocuments:
		w.mu.Unlock()
		return &subscriptionLimitError{Limit: maxWatchedDocuments}
	}
	w.mu.Unlock()
	vs, err := w.bank.DocumentVersions(ctx, []memorybank.ReadRequest{doc})
	if err != nil {
		return err
	}
	v := vs[0]
	w.mu.Lock()
	defer w.mu.Unlock()
	mine = w.bySession[ss]
	if _, again := mine[uri]; again {
		return nil
	}
	if len(mine) >= maxSubscriptionsPerSession {
		return &subscriptionLimitError{Limit: maxSubscriptionsPerSession, Session: true}
	}
	cur := w.docs[uri]
	if cur == nil {
		if len(w.docs) >= maxWatchedDocuments {
			return &subscriptionLimitError{Limit: maxWatchedDocuments}
		}
		cur = &watched{doc: doc, version: v}
		w.docs[uri] = cur
	}
	cur.sessions++
	if mine == nil {
		mine = map[string]struct{}{}
		w.bySession[ss] = mine
	}
	mine[uri] = struct{}{}
	if !w.running {
		w.running = true
		go w.loop()
	}
	return nil
}

// remove ends ss's watch of uri, if it has one.
func (w *watcher) remove(ss *mcp.ServerSession, uri string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.removeLocked(ss, uri)
}

func (w *watcher) removeLocked(ss *mcp.ServerSession, uri string) {
	mine := w.bySession[ss]
	if _, ok := mine[uri]; !ok {
		return
	}
	delete(mine, uri)
	if len(mine) == 0 {
		delete(w.bySession, ss)
	}
	if cur := w.docs[uri]; cur != nil {
		if cur.sessions--; cur.sessions <= 0 {
			delete(w.docs, uri)
		}
	}
}

// release ends every watch of ss (its session ended).
func (w *watcher) release(ss *mcp.ServerSession) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for uri := range w.bySession[ss] {
		w.removeLocked(ss, uri)
	}
}

// watchedDocuments is the number of documents watched over all sessions.
func (w *watcher) watchedDocuments() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return len(w.docs)
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

func (w *watcher) loop() {
	// The Bank says when the documents may have changed: at once on a
	// store that is told (pgstore: PostgreSQL LISTEN/NOTIFY), else when
	// its change count moved, read every pollInterval.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	changed := w.bank.Watch(ctx, pollInterval)
	w.check() // a write between the first subscription's read and Watch's first reading
	for {
		select {
		case <-w.done:
			return
		case _, open := <-changed:
			if !open {
				return
			}
			w.check()
		}
	}
}

// check notifies the subscribers of every document whose version changed.
func (w *watcher) check() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	w.mu.Lock()
	uris := make([]string, 0, len(w.docs))
	docs := make([]memorybank.ReadRequest, 0, len(w.docs))
	for uri, d := range w.docs {
		uris = append(uris, uri)
		docs = append(docs, d.doc)
	}
	w.mu.Unlock()
	if len(docs) == 0 {
		return
	}
	// One listing of each bank for every watched document.
	versions, err := w.bank.DocumentVersions(ctx, docs)
	if err != nil {
		w.logger.Warn("watching the subscribed documents", "err", err)
		return
	}
	var changed []string
	w.mu.Lock()
	for i, uri := range uris {
		if d := w.docs[uri]; d != nil && d.version != versions[i] {
			d.version = versions[i]
			changed = append(changed, uri)
		}
	}
	w.mu.Unlock()
	for _, uri := range changed {
		w.notify(uri)
	}
}
