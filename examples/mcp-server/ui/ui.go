package ui

import (
	"crypto/rand"
	"embed"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Prefix is the path every page is served under. A host mounts the
// Handler there (http.ServeMux.Handle(ui.Prefix, h)).
const Prefix = "/ui/"

// Actor is who the history records for a revert made from a viewer
// without tokens; with tokens it is the token's name.
const Actor = "person:ui"

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Errors of New.
var (
	// ErrOptions: Options that cannot serve (no Bank, a bad host entry).
	ErrOptions = errors.New("ui: invalid options")
)

// Options configure the viewer. Bank is required; the zero value of every
// other field is the default.
type Options struct {
	// Bank is the memory bank shown; its global bank holds the skill graphs.
	Bank *memorybank.Bank
	// Memories are the learned memories; nil hides their pages.
	Memories *memories.Manager
	// ReadOnly hides every change (revert, delete, restore) and answers 403
	// to them.
	ReadOnly bool
	// Token is the shared token (MNEMOBANK_TOKEN), an admin token named
	// tokens.AdminName. Without Auth it is the only token accepted. With
	// Auth, which accepts it too, it only keys the session cookies, so a
	// session survives a restart and holds on every server given the same
	// Token.
	Token string
	// Auth, when set, checks the token of every request: any token it
	// accepts opens the viewer, with what the token's scope allows (see
	// the package documentation). The HTTP server passes the
	// *tokens.Authenticator of its MCP endpoint, so both share one cache
	// of lookups and one count of failed tokens. Nil with a Token: an
	// Authenticator of that token alone. Nil without one: no token is
	// needed, and every change is allowed (unless ReadOnly).
	Auth Authenticator
	// Hosts are host names (without port) accepted in the Host header
	// besides the loopback names localhost, 127.0.0.1 and ::1: the name the
	// viewer is reached by. "*" accepts any, and only with a Token.
	Hosts []string
	// Logger receives errors of pages; nil discards.
	Logger *slog.Logger
}

// Handler serves the viewer under Prefix. Close ends its event streams.
type Handler struct {
	opts       Options
	log        *slog.Logger
	auth       Authenticator // nil: no token needed
	key        []byte        // per-process key of the CSRF tokens
	sessionKey []byte        // key of the session cookies
	pages      map[string]*template.Template
	static     http.Handler
	feed       *feed
	mux        *http.ServeMux

	banksSummary banksSummary
	graphs       *graphCache
}

// New checks opts and parses the pages' templates. It starts nothing: the
// live feed's watcher runs only while an event stream is open.
func New(opts Options) (*Handler, error) {
	if opts.Bank == nil {
		return nil, fmt.Errorf("%w: Options.Bank is nil; pass the *memorybank.Bank to show", ErrOptions)
	}
	for _, h := range opts.Hosts {
		if h == "*" && opts.Token == "" && opts.Auth == nil {
			return nil, fmt.Errorf("%w: Hosts \"*\" (any host name) needs a Token; without one only loopback names are safe from DNS rebinding", ErrOptions)
		}
		if h == "" || strings.ContainsAny(h, ":/ ") && net.ParseIP(h) == nil {
			return nil, fmt.Errorf("%w: Hosts entry %q is not a host name; give it without scheme or port, e.g. \"bank.example.org\"", ErrOptions, h)
		}
	}
	h := &Handler{opts: opts, log: opts.Logger, key: make([]byte, 32), graphs: newGraphCache()}
	h.opts.Hosts = append([]string(nil), opts.Hosts...)
	if h.log == nil {
		h.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if _, err := rand.Read(h.key); err != nil {
		return nil, err
	}
	h.auth = opts.Auth
	if h.auth == nil && opts.Token != "" {
		h.auth = tokens.NewAuthenticator(nil, &tokens.AuthOptions{AdminToken: opts.Token, Logger: h.log})
	}
	var err error
	if h.sessionKey, err = sessionKey(opts.Token); err != nil {
		return nil, err
	}
	if err := h.parseTemplates(); err != nil {
		return nil, err
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, err
	}
	h.static = http.StripPrefix(Prefix+"static/", http.FileServerFS(sub))
	h.feed = newFeed(opts.Bank, h.log, maxStreams)
	h.routes()
	return h, nil
}

// Close ends the open event streams and refuses new ones; pages are still
// served. Call it when the server shuts down (http.Server.RegisterOnShutdown),
// since a stream never ends by itself.
func (h *Handler) Close() { h.feed.close() }

// routes serves each page and change to tokens of the scope it needs,
// the scope the MCP tool doing the same needs: reading is read; a change
// is write (a revert beyond the token's own writes is admin, decided by
// package ownrevert), and so is its confirmation page.
func (h *Handler) routes() {
	m := http.NewServeMux()
	read := tokens.ScopeRead
	get := func(p string, f func(http.ResponseWriter, *http.Request) error) {
		m.Handle("GET "+Prefix+p, h.page(h.need(read, "this page", f)))
	}
	write := tokens.ScopeWrite
	change := func(p, what string, f func(http.ResponseWriter, *http.Request) error) {
		m.Handle("GET "+Prefix+p, h.page(h.need(write, what, f)))
		m.Handle("POST "+Prefix+p, h.change(write, what, f))
	}
	get("{$}", h.banks)
	get("docs", h.documents)
	get("doc", h.document)
	get("raw", h.raw)
	get("history", h.history)
	get("diff", h.diff)
	get("search", h.search)
	get("memories", h.memoriesList)
	get("memories/trash", h.trash)
	get("memories/consolidate", h.consolidation)
	get("skills", h.skills)
	get("skill", h.skill)
	get("skill/graph.svg", h.graphSVG)
	change("revert", "reverting a document", h.revertRoute)
	change("memories/delete", "deleting a memory", h.deleteMemoryRoute)
	change("memories/restore", "restoring a memory", h.restoreMemoryRoute)
	m.Handle("POST "+Prefix+"memories/consolidate", h.change(write, "applying a consolidation", h.applyConsolidation))
	m.Handle("POST "+Prefix+"signout", h.page(h.form(h.signOut)))
	m.Handle("GET "+Prefix+"events", h.page(h.need(read, "the live feed", func(w http.ResponseWriter, r *http.Request) error {
		h.events(w, r)
		return nil
	})))
	m.Handle("GET "+Prefix+"static/", h.page(h.need(read, "this file", func(w http.ResponseWriter, r *http.Request) error {
		h.static.ServeHTTP(w, r)
		return nil
	})))
	m.Handle(Prefix, h.page(func(w http.ResponseWriter, r *http.Request) error {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			return &httpError{status: http.StatusMethodNotAllowed, msg: fmt.Sprintf("%s %s is not served: pages are read with GET, changes sent with POST from their forms", r.Method, r.URL.Path)}
		}
		return &httpError{status: http.StatusNotFound, msg: fmt.Sprintf("no page %s; the pages start at %s", r.URL.Path, Prefix)}
	}))
	h.mux = m
}

// revertRoute, deleteMemoryRoute and restoreMemoryRoute are a change's
// confirmation page (GET) and the change (POST).
func (h *Handler) revertRoute(w http.ResponseWriter, r *http.Request) error {
	if r.Method == http.MethodPost {
		return h.revert(w, r)
	}
	return h.confirmRevert(w, r)
}

func (h *Handler) deleteMemoryRoute(w http.ResponseWriter, r *http.Request) error {
	if r.Method == http.MethodPost {
		return h.deleteMemory(w, r)
	}
	return h.confirmDeleteMemory(w, r)
}

func (h *Handler) restoreMemoryRoute(w http.ResponseWriter, r *http.Request) error {
	if r.Method == http.MethodPost {
		return h.restoreMemory(w, r)
	}
	return h.confirmRestoreMemory(w, r)
}

// ServeHTTP checks every request (headers, Host, token, size) before its
// page sees it.
func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	setSecurityHeaders(w.Header())
	if err := h.checkHost(r); err != nil {
		h.fail(w, r, err)
		return
	}
	if err := checkFetchSite(r); err != nil {
		h.fail(w, r, err)
		return
	}
	if len(r.URL.RawQuery) > maxQueryBytes {
		h.fail(w, r, &httpError{status: http.StatusRequestURITooLong,
			msg: fmt.Sprintf("the query string is %d bytes; the limit is %d", len(r.URL.RawQuery), maxQueryBytes)})
		return
	}
	r, ok := h.authenticate(w, r)
	if !ok {
		return
	}
	h.mux.ServeHTTP(w, r)
}
