package ui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/mnemobank/mnemobank/consolidate"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Paging: every list shows pageSize rows unless ?limit= asks for another
// number up to maxPageSize; ?offset= goes up to maxOffset.
const (
	pageSize    = 50
	maxPageSize = 100
	maxOffset   = 1_000_000
)

// pageNames are the templates, each parsed with layout.html.
var pageNames = []string{"banks", "documents", "document", "history", "diff", "confirm", "search", "memories", "trash", "consolidate", "skills", "skill", "error"}

func (h *Handler) parseTemplates() error {
	funcs := template.FuncMap{
		"when": func(t time.Time) string {
			if t.IsZero() {
				return "—"
			}
			return t.UTC().Format("2006-01-02 15:04:05 UTC")
		},
		"prefix":  func() string { return Prefix },
		"visible": render.VisibleText,
		"lineClass": func(op byte) string {
			switch op {
			case '+':
				return "add"
			case '-':
				return "del"
			}
			return "same"
		},
		"lineMark": func(op byte) string {
			if op == '+' || op == '-' {
				return string(op)
			}
			return ""
		},
	}
	h.pages = make(map[string]*template.Template, len(pageNames)+1)
	for _, name := range pageNames {
		t, err := template.New(name).Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return fmt.Errorf("ui: template %s: %w", name, err)
		}
		h.pages[name] = t
	}
	// The sign-in page stands alone: the layout's style sheet, script and
	// links all need the token it asks for.
	t, err := template.New("signin").Funcs(funcs).ParseFS(templateFS, "templates/signin.html")
	if err != nil {
		return fmt.Errorf("ui: template signin: %w", err)
	}
	h.pages["signin"] = t
	return nil
}

// view is what every page's template gets.
type view struct {
	Title       string
	Nav         string // the menu entry to mark
	ReadOnly    bool   // nothing can be changed from this page: a read-only viewer, or a read token
	HasMemories bool
	// User and Scope name the request's token, when there are tokens;
	// SignOut is the CSRF token of the sign-out form of a cookie session.
	User, Scope, SignOut string
	Data                 any
}

// render writes the page name with data, or the error page when the
// template fails (it is executed into a buffer first).
func (h *Handler) render(w http.ResponseWriter, r *http.Request, status int, name, title, nav string, data any) error {
	v := view{Title: title, Nav: nav, ReadOnly: !h.may(r, tokens.ScopeWrite), HasMemories: h.opts.Memories != nil, Data: data}
	if id, ok := identity(r); ok {
		v.User, v.Scope = id.Name, id.Scope.String()
		if cookieSession(r) {
			v.SignOut = h.csrfToken(r, Prefix+"signout")
		}
	}
	return h.execute(w, r, status, name, "layout", v)
}

// renderPage writes the standalone page name with data.
func (h *Handler) renderPage(w http.ResponseWriter, r *http.Request, status int, name string, data any) error {
	return h.execute(w, r, status, name, name, data)
}

func (h *Handler) execute(w http.ResponseWriter, r *http.Request, status int, name, tmpl string, data any) error {
	var buf bytes.Buffer
	if err := h.pages[name].ExecuteTemplate(&buf, tmpl, data); err != nil {
		return fmt.Errorf("rendering %s: %w", name, err)
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(buf.Bytes())
	}
	return nil
}

// page serves a GET page; its error becomes an error page.
func (h *Handler) page(f func(http.ResponseWriter, *http.Request) error) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); err != nil {
			h.fail(w, r, err)
		}
	})
}

// change serves a POST that changes something (what, needing scope
// need): refused when read-only, then when the token's scope is short,
// then checked as a form (see form), all before the change is looked at.
func (h *Handler) change(need tokens.Scope, what string, f func(http.ResponseWriter, *http.Request) error) http.Handler {
	return h.page(func(w http.ResponseWriter, r *http.Request) error {
		if h.opts.ReadOnly {
			return forbidden(http.StatusForbidden, "403: this viewer is read-only (--ui-read-only): nothing can be changed from it")
		}
		return h.need(need, what, h.form(f))(w, r)
	})
}

// form checks a POST from one of the viewer's forms: from this origin,
// small, with this process's CSRF token for its path and session.
func (h *Handler) form(f func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if err := checkOrigin(r); err != nil {
			return err
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
		if err := r.ParseForm(); err != nil {
			return badRequest("the form could not be read (at most %d bytes): %v", maxFormBytes, err)
		}
		if err := h.checkCSRF(r, r.URL.Path, r.PostForm.Get("csrf")); err != nil {
			return err
		}
		return f(w, r)
	}
}

// refuseReadOnly is what a confirmation page of a change answers when the
// viewer is read-only.
func (h *Handler) refuseReadOnly() error {
	if h.opts.ReadOnly {
		return forbidden(http.StatusForbidden, "403: this viewer is read-only (--ui-read-only): nothing can be changed from it")
	}
	return nil
}

// fail answers err: an *httpError with its status and message, a library
// error by its kind, anything else as 500 (logged).
func (h *Handler) fail(w http.ResponseWriter, r *http.Request, err error) {
	he := asHTTPError(err)
	if he.status >= 500 {
		h.log.Error("ui: page failed", "path", r.URL.Path, "err", err)
	}
	if errors.Is(err, context.Canceled) {
		return
	}
	if r.URL.Path == Prefix+"skill/graph.svg" || r.URL.Path == Prefix+"events" {
		http.Error(w, he.msg, he.status)
		return
	}
	if rerr := h.render(w, r, he.status, "error", http.StatusText(he.status), "", he); rerr != nil {
		http.Error(w, he.msg, he.status)
	}
}

// Status and Message are read by the error template.
func (e *httpError) Status() int     { return e.status }
func (e *httpError) Message() string { return e.msg }

func asHTTPError(err error) *httpError {
	var he *httpError
	if errors.As(err, &he) {
		return he
	}
	status := http.StatusInternalServerError
	switch {
	case errors.Is(err, memorybank.ErrNotFound), errors.Is(err, memories.ErrNotFound):
		status = http.StatusNotFound
	case errors.Is(err, memorybank.ErrConflict), errors.Is(err, memories.ErrConflict), errors.Is(err, consolidate.ErrChanged):
		status = http.StatusConflict
	case errors.Is(err, memorybank.ErrInvalidRequest), errors.Is(err, memorybank.ErrInvalidPath),
		errors.Is(err, memorybank.ErrInvalidBranch), errors.Is(err, memories.ErrInvalid), errors.Is(err, memories.ErrLimit),
		errors.Is(err, consolidate.ErrInvalidPlan):
		status = http.StatusBadRequest
	}
	return &httpError{status: status, msg: err.Error(), err: err}
}

// paging reads ?offset= and ?limit=.
func paging(q url.Values) (offset, limit int, err error) {
	offset, limit = 0, pageSize
	if s := q.Get("offset"); s != "" {
		n, perr := strconv.Atoi(s)
		if perr != nil || n < 0 || n > maxOffset {
			return 0, 0, badRequest("offset %q is not a number from 0 to %d", s, maxOffset)
		}
		offset = n
	}
	if s := q.Get("limit"); s != "" {
		n, perr := strconv.Atoi(s)
		if perr != nil || n < 1 || n > maxPageSize {
			return 0, 0, badRequest("limit %q is not a number from 1 to %d", s, maxPageSize)
		}
		limit = n
	}
	return offset, limit, nil
}

// pager is the "previous / next" of a list.
type pager struct {
	From, To, Total int
	Prev, Next      string
	Of              string // what is counted, when the page does not say
}

// newPager links the pages around offset; base is the page's URL without
// offset.
func newPager(path string, q url.Values, offset, limit, shown, total int) pager {
	p := pager{From: offset + 1, To: offset + shown, Total: total}
	if shown == 0 {
		p.From = offset
	}
	link := func(off int) string {
		v := url.Values{}
		for k, vs := range q {
			v[k] = vs
		}
		v.Set("offset", strconv.Itoa(off))
		return path + "?" + v.Encode()
	}
	if offset > 0 {
		p.Prev = link(max(offset-limit, 0))
	}
	if offset+shown < total {
		p.Next = link(offset + limit)
	}
	return p
}
