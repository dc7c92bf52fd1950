package ui

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// ref names one document (or, without Path, one bank) in URLs:
// ?scope=global|branch&branch=NAME&path=PATH.
type ref struct {
	Scope  memorybank.Scope
	Branch string
	Path   string
}

// parseBank reads scope and branch.
func parseBank(q url.Values) (ref, error) {
	var r ref
	switch s := q.Get("scope"); s {
	case "global", "":
		r.Scope = memorybank.ScopeGlobal
		if q.Get("branch") != "" {
			return r, badRequest("branch %q given with scope global; use scope=branch", q.Get("branch"))
		}
	case "branch":
		r.Scope, r.Branch = memorybank.ScopeBranch, q.Get("branch")
		if err := memorybank.ValidateBranch(r.Branch); err != nil {
			return r, badRequest("branch: %v", err)
		}
	default:
		return r, badRequest("scope %q is not global or branch", s)
	}
	return r, nil
}

// parseDoc reads scope, branch and path.
func parseDoc(q url.Values) (ref, error) {
	r, err := parseBank(q)
	if err != nil {
		return r, err
	}
	r.Path = q.Get("path")
	if err := memorybank.ValidatePath(r.Path); err != nil {
		return r, badRequest("path: %v", err)
	}
	return r, nil
}

func (r ref) values() url.Values {
	v := url.Values{"scope": {string(r.Scope)}}
	if r.Branch != "" {
		v.Set("branch", r.Branch)
	}
	if r.Path != "" {
		v.Set("path", r.Path)
	}
	return v
}

// URL is the ref's page: the bank's documents, or the document.
func (r ref) URL() string {
	if r.Path == "" {
		return Prefix + "docs?" + r.values().Encode()
	}
	return Prefix + "doc?" + r.values().Encode()
}

// BankURL is the page of the ref's bank.
func (r ref) BankURL() string { return ref{Scope: r.Scope, Branch: r.Branch}.URL() }

// Fields are the ref as hidden form fields.
func (r ref) Fields() []field { return hiddenFields(r.values()) }

// HistoryURL is the document's history.
func (r ref) HistoryURL() string { return Prefix + "history?" + r.values().Encode() }

// VersionURL is the document at version v.
func (r ref) VersionURL(v int64) string {
	q := r.values()
	q.Set("version", strconv.FormatInt(v, 10))
	return Prefix + "doc?" + q.Encode()
}

// DiffURL compares versions from and to.
func (r ref) DiffURL(from, to int64) string {
	q := r.values()
	q.Set("from", strconv.FormatInt(from, 10))
	q.Set("to", strconv.FormatInt(to, 10))
	return Prefix + "diff?" + q.Encode()
}

// RevertURL confirms a revert to version v.
func (r ref) RevertURL(v int64) string {
	q := r.values()
	q.Set("version", strconv.FormatInt(v, 10))
	return Prefix + "revert?" + q.Encode()
}

// BankName is how a bank is named on the pages.
func (r ref) BankName() string {
	if r.Scope == memorybank.ScopeBranch {
		return "branch " + r.Branch
	}
	return "global"
}

func (r ref) read() memorybank.ReadRequest {
	return memorybank.ReadRequest{Scope: r.Scope, Branch: r.Branch, Path: r.Path}
}

type bankRow struct {
	Ref        ref
	Docs       int
	LastChange time.Time
}

func (h *Handler) bankRow(ctx context.Context, r ref) (bankRow, error) {
	entries, err := h.opts.Bank.List(ctx, memorybank.ListRequest{Scope: r.Scope, Branch: r.Branch})
	if err != nil {
		return bankRow{}, err
	}
	row := bankRow{Ref: r, Docs: len(entries)}
	for _, e := range entries {
		if e.LastModified.After(row.LastChange) {
			row.LastChange = e.LastModified
		}
	}
	return row, nil
}

// banksMaxAge is how long the banks page reuses its counts: counting
// every document of every bank lists them all (tens of milliseconds at
// 10,000 documents on a directory), so the counts are taken at most once
// a second, whoever asks.
const banksMaxAge = time.Second

// banksSummary is the last counting of the banks.
type banksSummary struct {
	mu   sync.Mutex
	at   time.Time
	rows []bankRow // the global bank first, then the branches by name
}

// allBanks counts the documents of every bank, or reuses a counting
// younger than banksMaxAge.
func (h *Handler) allBanks(ctx context.Context) ([]bankRow, error) {
	s := &h.banksSummary
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rows != nil && time.Since(s.at) < banksMaxAge {
		return s.rows, nil
	}
	global, err := h.bankRow(ctx, ref{Scope: memorybank.ScopeGlobal})
	if err != nil {
		return nil, err
	}
	branches, err := h.opts.Bank.Branches(ctx)
	if err != nil {
		return nil, err
	}
	slices.Sort(branches)
	rows := append(make([]bankRow, 0, len(branches)+1), global)
	for _, b := range branches {
		row, err := h.bankRow(ctx, ref{Scope: memorybank.ScopeBranch, Branch: b})
		if err != nil {
			return nil, err
		}
		rows = append(rows, row)
	}
	s.rows, s.at = rows, time.Now()
	return rows, nil
}

// forgetBanks drops the counting after a change made here.
func (h *Handler) forgetBanks() {
	h.banksSummary.mu.Lock()
	h.banksSummary.rows = nil
	h.banksSummary.mu.Unlock()
}

// banks lists the global bank and a page of the branch banks.
func (h *Handler) banks(w http.ResponseWriter, r *http.Request) error {
	offset, limit, err := paging(r.URL.Query())
	if err != nil {
		return err
	}
	all, err := h.allBanks(r.Context())
	if err != nil {
		return err
	}
	branches := all[1:]
	shown := branches[min(offset, len(branches)):min(offset+limit, len(branches))]
	rows := []bankRow{}
	if offset == 0 {
		rows = append(rows, all[0])
	}
	rows = append(rows, shown...)
	pg := newPager(Prefix, r.URL.Query(), offset, limit, len(shown), len(branches))
	pg.Of = "branch banks"
	return h.render(w, r, http.StatusOK, "banks", "Memory banks", "banks", struct {
		Banks []bankRow
		Pager pager
	}{rows, pg})
}

// documents lists a page of one bank's documents, by path.
func (h *Handler) documents(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	bank, err := parseBank(q)
	if err != nil {
		return err
	}
	offset, limit, err := paging(q)
	if err != nil {
		return err
	}
	prefix := q.Get("prefix")
	if len(prefix) > memorybank.MaxKeyLen {
		return badRequest("prefix is %d bytes; the limit is %d", len(prefix), memorybank.MaxKeyLen)
	}
	p, err := h.opts.Bank.ListPage(r.Context(), memorybank.ListRequest{Scope: bank.Scope, Branch: bank.Branch, Prefix: prefix, Offset: offset, Limit: limit})
	if err != nil {
		return err
	}
	type row struct {
		memorybank.ListEntry
		Ref ref
	}
	rows := make([]row, len(p.Items))
	for i, e := range p.Items {
		rows[i] = row{e, ref{bank.Scope, bank.Branch, e.Path}}
	}
	return h.render(w, r, http.StatusOK, "documents", "Documents of "+bank.BankName(), "banks", struct {
		Bank   ref
		Prefix string
		Docs   []row
		Pager  pager
	}{bank, prefix, rows, newPager(Prefix+"docs", q, offset, limit, len(rows), p.Total)})
}

// document shows one document, or one retained version of it.
func (h *Handler) document(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	doc, err := parseDoc(q)
	if err != nil {
		return err
	}
	var version int64
	if s := q.Get("version"); s != "" {
		if version, err = parseVersion("version", s); err != nil {
			return err
		}
	}
	var d *memorybank.Document
	if version > 0 {
		d, err = history.ReadVersion(r.Context(), h.opts.Bank, doc.read(), version)
	} else {
		d, err = h.opts.Bank.Read(r.Context(), doc.read())
	}
	if err != nil {
		return err
	}
	var body template.HTML
	text := docText(d)
	limit := h.showLimit()
	truncated := len(text) > limit
	if truncated {
		body = renderTruncated(text, limit)
	} else {
		body = renderContent(d)
	}
	return h.render(w, r, http.StatusOK, "document", d.Title, "banks", struct {
		Ref       ref
		Doc       *memorybank.Document
		Old       bool
		Truncated bool
		Content   template.HTML
		Extra     template.HTML
	}{doc, d, version > 0, truncated && version == 0, body, extraMembers(d)})
}

func parseVersion(name, s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 1 {
		return 0, badRequest("%s %q is not a version number (1 or more)", name, s)
	}
	return v, nil
}

// renderContent is the document's content as a page shows it: Markdown
// rendered and sanitised, JSON shown as a tree, other text as it is. It
// never fails: content that cannot be rendered (JSON past render.JSON's
// limits, or malformed) is shown as escaped text after a note saying why,
// so the page still shows the document.
func renderContent(d *memorybank.Document) template.HTML {
	if d.Format == memorybank.FormatJSON {
		var env struct {
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(d.Content, &env); err != nil || env.Content == nil {
			env.Content = d.Content
		}
		tree, err := render.JSON(env.Content)
		if err != nil {
			return render.PlainText(env.Content, notTreeNote(len(env.Content), err))
		}
		return tree
	}
	text := d.Text()
	if isMarkdown(d.Path) {
		return render.Markdown([]byte(text))
	}
	return template.HTML("<pre>" + template.HTMLEscapeString(text) + "</pre>")
}

// notTreeNote says why a JSON document of n bytes is not shown as a tree.
func notTreeNote(n int, err error) string {
	var why string
	var se *render.SyntaxError
	switch {
	case errors.Is(err, render.ErrTooDeep):
		why = fmt.Sprintf("its objects and arrays nest deeper than %d levels, the most a tree shows", render.MaxJSONDepth)
	case errors.Is(err, render.ErrTooLarge):
		why = fmt.Sprintf("it is %d bytes, above the %d-byte limit for a tree", n, render.MaxJSONBytes)
	case errors.As(err, &se):
		why = "it is not valid JSON"
		if se.Offset >= 0 {
			why += fmt.Sprintf(" (at byte %d: %s)", se.Offset, se.Msg)
		} else {
			why += " (" + se.Msg + ")"
		}
	default:
		why = err.Error()
	}
	return "This JSON document is not shown as a tree: " + why + ". Its text is shown as it is stored."
}

func isMarkdown(path string) bool {
	p := strings.ToLower(path)
	return strings.HasSuffix(p, ".md") || strings.HasSuffix(p, ".markdown") || !strings.Contains(p[strings.LastIndex(p, "/")+1:], ".")
}

// history lists a page of a document's history, newest first.
func (h *Handler) history(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	doc, err := parseDoc(q)
	if err != nil {
		return err
	}
	offset, limit, err := paging(q)
	if err != nil {
		return err
	}
	p, err := history.Page(r.Context(), h.opts.Bank, memorybank.HistoryRequest{Scope: doc.Scope, Branch: doc.Branch, Path: doc.Path, Offset: offset, Limit: limit})
	if err != nil {
		return err
	}
	current, err := h.currentVersion(r.Context(), doc)
	if err != nil {
		return err
	}
	type row struct {
		memorybank.HistoryEntry
		Prev      int64 // the version before, for "changes"; 0 for none
		CanRevert bool
	}
	rows := make([]row, len(p.Items))
	for i, e := range p.Items {
		rows[i] = row{HistoryEntry: e, CanRevert: !e.Deleted && e.Version != current && h.may(r, tokens.ScopeWrite)}
		if i+1 < len(p.Items) {
			rows[i].Prev = p.Items[i+1].Version
		} else if e.Version > 1 && !e.Created {
			rows[i].Prev = e.Version - 1
		}
		if e.Deleted {
			rows[i].Prev = 0
		}
	}
	return h.render(w, r, http.StatusOK, "history", "History of "+doc.Path, "banks", struct {
		Ref     ref
		Current int64
		Entries []row
		Pager   pager
	}{doc, current, rows, newPager(Prefix+"history", q, offset, limit, len(rows), p.Total)})
}

// Limits of a diff: each side's text.
const (
	maxDiffBytes = 1 << 20
	maxDiffLines = 20000
)

// diff shows the lines that differ between two versions (to: the current
// one when not given; from: the one before to).
func (h *Handler) diff(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	doc, err := parseDoc(q)
	if err != nil {
		return err
	}
	ctx := r.Context()
	cur, err := h.opts.Bank.Read(ctx, doc.read())
	if err != nil && !errors.Is(err, memorybank.ErrNotFound) {
		return err
	}
	var to, from int64
	if s := q.Get("to"); s != "" {
		if to, err = parseVersion("to", s); err != nil {
			return err
		}
	} else if cur != nil {
		to = cur.Version
	} else {
		return badRequest("the document is deleted: give the versions to compare as from and to (see its history)")
	}
	if s := q.Get("from"); s != "" {
		if from, err = parseVersion("from", s); err != nil {
			return err
		}
	} else {
		from = max(to-1, 1)
	}
	a, err := h.versionText(ctx, doc, from, cur)
	if err != nil {
		return err
	}
	b, err := h.versionText(ctx, doc, to, cur)
	if err != nil {
		return err
	}
	lines := render.LineDiff(a, b)
	added, removed := 0, 0
	for _, l := range lines {
		switch l.Op {
		case '+':
			added++
		case '-':
			removed++
		}
	}
	// Past render.MaxDiffLines the changed part is shown removed and added
	// whole; the page says so, or it would read as every line rewritten.
	var unmatched int
	if render.DiffTooLarge(a, b) {
		unmatched = render.MaxDiffLines
	}
	return h.render(w, r, http.StatusOK, "diff", "Changes of "+doc.Path, "banks", struct {
		Ref            ref
		From, To       int64
		Lines          []render.Line
		Added, Removed int
		Unmatched      int // render.MaxDiffLines when the change was too large to match, else 0
	}{doc, from, to, lines, added, removed, unmatched})
}

// versionText is the text a diff compares: a text document's text, a JSON
// document's canonical envelope (metadata included).
func (h *Handler) versionText(ctx context.Context, doc ref, v int64, cur *memorybank.Document) (string, error) {
	d := cur
	if cur == nil || cur.Version != v {
		var err error
		if d, err = history.ReadVersion(ctx, h.opts.Bank, doc.read(), v); err != nil {
			return "", fmt.Errorf("version %d of %s: %w", v, doc.Path, err)
		}
	}
	text := d.Text()
	if d.Format == memorybank.FormatJSON {
		var buf bytes.Buffer
		if json.Indent(&buf, d.Content, "", "  ") == nil {
			text = buf.String()
		} else {
			text = string(d.Content)
		}
	}
	if len(text) > maxDiffBytes || strings.Count(text, "\n") > maxDiffLines {
		return "", badRequest("version %d of %s is over %d bytes or %d lines: too large to compare here", v, doc.Path, maxDiffBytes, maxDiffLines)
	}
	return text, nil
}
