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
	return h.render(w, r, http.StatusOK, "banks", "Memory banks", "banks", struct {
		Banks []bankRow
		Pager pager
	}{rows, newPager(Prefix, r.URL.Query(), offset, limit, len(shown), len(branches))})
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
	body, err := renderContent(d)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "document", d.Title, "banks", struct {
		Ref     ref
		Doc     *memorybank.Document
		Old     bool
		Content template.HTML
	}{doc, d, version > 0, body})
}

func parseVersion(name, s string) (int64, error) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v < 1 {
		return 0, badRequest("%s %q is not a version number (1 or more)", name, s)
	}
	return v, nil
}

// renderContent is the document's content as a page shows it: Markdown
// rendered and sanitised, JSON shown as a tree, other text as it is.
func renderContent(d *memorybank.Document) (template.HTML, error) {
	if d.Format == memorybank.FormatJSON {
		var env struct {
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(d.Content, &env); err != nil || env.Content == nil {
			env.Content = d.Content
		}
		return render.JSON(env.Content)
	}
	text := d.Text()
	if isMarkdown(d.Path) {
		return render.Markdown([]byte(text)), nil
	}
	return template.HTML("<pre>" + template.HTMLEscapeString(text) + "</pre>"), nil
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
	var current int64
	if d, err := h.opts.Bank.Read(r.Context(), doc.read()); err == nil {
		current = d.Version
	} else if !errors.Is(err, memorybank.ErrNotFound) {
		return err
	}
	type row struct {
		memorybank.HistoryEntry
		Prev      int64 // the version before, for "changes"; 0 for none
		CanRevert bool
	}
	rows := make([]row, len(p.Items))
	for i, e := range p.Items {
		rows[i] = row{HistoryEntry: e, CanRevert: !e.Deleted && e.Version != current}
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
	return h.render(w, r, http.StatusOK, "diff", "Changes of "+doc.Path, "banks", struct {
		Ref            ref
		From, To       int64
		Lines          []render.Line
		Added, Removed int
	}{doc, from, to, lines, added, removed})
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

// confirmRevert asks before a revert.
func (h *Handler) confirmRevert(w http.ResponseWriter, r *http.Request) error {
	if err := h.refuseReadOnly(); err != nil {
		return err
	}
	q := r.URL.Query()
	doc, err := parseDoc(q)
	if err != nil {
		return err
	}
	v, err := parseVersion("version", q.Get("version"))
	if err != nil {
		return err
	}
	var current int64
	if d, err := h.opts.Bank.Read(r.Context(), doc.read()); err == nil {
		current = d.Version
	} else if !errors.Is(err, memorybank.ErrNotFound) {
		return err
	}
	if _, err := history.ReadVersion(r.Context(), h.opts.Bank, doc.read(), v); err != nil {
		return err
	}
	fields := doc.values()
	fields.Set("version", strconv.FormatInt(v, 10))
	fields.Set("ifVersion", strconv.FormatInt(current, 10))
	return h.render(w, r, http.StatusOK, "confirm", "Revert "+doc.Path, "banks", confirmation{
		Class:    "revert",
		Action:   Prefix + "revert",
		Question: fmt.Sprintf("Revert %s (%s) to version %d?", doc.Path, doc.BankName(), v),
		Detail: fmt.Sprintf("The content of version %d is written as a new version (the history keeps every version); the history records the actor %q.",
			v, Actor),
		Fields: hiddenFields(fields),
		Button: fmt.Sprintf("Revert to version %d", v),
		Links:  []link{{"See the changes this undoes", doc.DiffURL(v, current)}, {"Cancel", doc.HistoryURL()}},
		Cancel: doc.HistoryURL(),
	})
}

// revert writes an earlier version as the next one, only if the document
// is still at the version the confirmation showed.
func (h *Handler) revert(w http.ResponseWriter, r *http.Request) error {
	f := r.PostForm
	doc, err := parseDoc(f)
	if err != nil {
		return err
	}
	v, err := parseVersion("version", f.Get("version"))
	if err != nil {
		return err
	}
	var ifVersion int64
	if s := f.Get("ifVersion"); s != "" && s != "0" {
		if ifVersion, err = parseVersion("ifVersion", s); err != nil {
			return err
		}
	}
	res, err := history.Revert(r.Context(), h.opts.Bank, memorybank.RevertRequest{Scope: doc.Scope, Branch: doc.Branch, Path: doc.Path,
		ToVersion: v, IfVersion: ifVersion, Actor: Actor})
	if errors.Is(err, memorybank.ErrConflict) {
		return &httpError{status: http.StatusConflict, err: err,
			msg: fmt.Sprintf("%s changed since the confirmation was shown (%v); nothing was reverted. Open its history again.", doc.Path, err)}
	}
	if err != nil {
		return err
	}
	h.forgetBanks()
	h.log.Info("ui: reverted", "scope", doc.Scope, "branch", doc.Branch, "path", doc.Path, "to", v, "version", res.Version)
	http.Redirect(w, r, doc.HistoryURL(), http.StatusSeeOther)
	return nil
}

// confirmation is the page asking before a change.
type confirmation struct {
	Class, Action, Question, Detail, Button string
	Fields                                  []field
	Links                                   []link
	Cancel                                  string
}

type field struct{ Name, Value string }

type link struct{ Text, URL string }

func hiddenFields(v url.Values) []field {
	var out []field
	for _, k := range slices.Sorted(func(yield func(string) bool) {
		for k := range v {
			if !yield(k) {
				return
			}
		}
	}) {
		out = append(out, field{k, v.Get(k)})
	}
	return out
}

// Search limits.
const (
	searchPage    = 20
	maxSearchTags = 20
)

// search finds documents by words, in one bank or all, with tags.
func (h *Handler) search(w http.ResponseWriter, r *http.Request) error {
	q := r.URL.Query()
	query := q.Get("q")
	if len(query) > memorybank.MaxQueryBytes {
		return badRequest("the query is %d bytes; the limit is %d", len(query), memorybank.MaxQueryBytes)
	}
	offset, _, err := paging(q)
	if err != nil {
		return err
	}
	req := memorybank.TextSearchRequest{Query: query, Scope: memorybank.ScopeAll, Branch: q.Get("branch"), Offset: offset, Limit: searchPage}
	switch s := q.Get("scope"); s {
	case "", "all":
	case "global", "branch":
		req.Scope = memorybank.Scope(s)
	default:
		return badRequest("scope %q is not all, global or branch", s)
	}
	if req.Branch != "" {
		if err := memorybank.ValidateBranch(req.Branch); err != nil {
			return badRequest("branch: %v", err)
		}
	} else if req.Scope == memorybank.ScopeBranch {
		return badRequest("scope branch needs a branch")
	}
	for _, t := range strings.Split(q.Get("tags"), ",") {
		if t = strings.TrimSpace(t); t != "" {
			req.Tags = append(req.Tags, t)
		}
	}
	if len(req.Tags) > maxSearchTags {
		return badRequest("%d tags given; at most %d", len(req.Tags), maxSearchTags)
	}
	type hit struct {
		memorybank.TextHit
		Ref ref
	}
	var hits []hit
	var pg pager
	if strings.TrimSpace(query) != "" {
		p, err := h.opts.Bank.SearchTextPage(r.Context(), req)
		if err != nil {
			return err
		}
		for _, t := range p.Items {
			hits = append(hits, hit{t, ref{t.Scope, t.Branch, t.Path}})
		}
		pg = newPager(Prefix+"search", q, offset, searchPage, len(hits), p.Total)
	}
	return h.render(w, r, http.StatusOK, "search", "Search", "search", struct {
		Query, Scope, Branch, Tags string
		Searched                   bool
		Hits                       []hit
		Pager                      pager
	}{query, string(req.Scope), req.Branch, q.Get("tags"), strings.TrimSpace(query) != "", hits, pg})
}
