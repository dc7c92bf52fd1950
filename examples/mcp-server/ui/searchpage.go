package ui

import (
	"net/http"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

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
