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

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Prefix is the path every page is served under. A host mounts the
// Handler there (http.ServeMux.Handle(ui.Prefix, h)).
const Prefix = "/ui/"

// Actor is who the history records for a revert made from the viewer.
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
	// Token, when set, is required of every request: once as ?token= (then
	// kept in a cookie) or as "Authorization: Bearer <token>".
	Token string
	// Hosts are host names (without port) accepted in the Host header
	// besides the loopback names localhost, 127.0.0.1 and ::1: the name the
	// viewer is reached by. "*" accepts any, and only with a Token.
	Hosts []string
	// Logger receives errors of pages; nil discards.
	Logger *slog.Logger
}

// Handler serves the viewer under Prefix. Close ends its event streams.
type Handler struct {
	opts   Options
	log    *slog.Logger
	key    []byte // per-process key of the CSRF tokens
	pages  map[string]*template.Template
	static http.Handler
	feed   *feed
	mux    *http.ServeMux

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
		if h == "*" && opts.Token == "" {
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

func (h *Handler) routes() {
	m := http.NewServeMux()
	get := func(p string, f func(http.ResponseWriter, *http.Request) error) {
		m.Handle("GET "+Prefix+p, h.page(f))
	}
	post := func(p string, f func(http.ResponseWriter, *http.Request) error) {
		m.Handle("POST "+Prefix+p, h.change(f))
	}
	get("{$}", h.banks)
	get("docs", h.documents)
	get("doc", h.document)
	get("raw", h.raw)
	get("history", h.history)
	get("diff", h.diff)
	get("revert", h.confirmRevert)
	post("revert", h.revert)
	get("search", h.search)
	get("memories", h.memoriesList)
	get("memories/delete", h.confirmDeleteMemory)
	post("memories/delete", h.deleteMemory)
	get("memories/trash", h.trash)
	get("memories/consolidate", h.consolidation)
	post("memories/consolidate", h.applyConsolidation)
	get("memories/restore", h.confirmRestoreMemory)
	post("memories/restore", h.restoreMemory)
	get("skills", h.skills)
	get("skill", h.skill)
	m.Handle("GET "+Prefix+"skill/graph.svg", h.page(h.graphSVG))
	m.Handle("GET "+Prefix+"events", http.HandlerFunc(h.events))
	m.Handle("GET "+Prefix+"static/", h.static)
	m.Handle(Prefix, h.page(func(w http.ResponseWriter, r *http.Request) error {
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			w.Header().Set("Allow", "GET, HEAD")
			return &httpError{status: http.StatusMethodNotAllowed, msg: fmt.Sprintf("%s %s is not served: pages are read with GET, changes sent with POST from their forms", r.Method, r.URL.Path)}
		}
		return &httpError{status: http.StatusNotFound, msg: fmt.Sprintf("no page %s; the pages start at %s", r.URL.Path, Prefix)}
	}))
	h.mux = m
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
	if ok := h.authenticate(w, r); !ok {
		return
	}
	h.mux.ServeHTTP(w, r)
}
