package memorybank

import (
	"context"
	"slices"
	"strings"
	"time"
)

// Match says whether a search hit must carry all the tags or any of them.
type Match string

const (
	MatchAny Match = "or" // the default, also for ""
	MatchAll Match = "and"
)

// SearchRequest finds documents by tags.
type SearchRequest struct {
	Tags  []string `json:"tags"`
	Match Match    `json:"match,omitempty"` // "or" (default) or "and"
	// Scope is ScopeBranch, ScopeGlobal or ScopeAll (default: the branch if
	// Branch is set, plus global).
	Scope  Scope  `json:"scope,omitempty"`
	Branch string `json:"branch,omitempty"` // required for ScopeBranch
}

// SearchHit is one document found by SearchByTags.
type SearchHit struct {
	Scope        Scope     `json:"scope"`
	Branch       string    `json:"branch,omitempty"`
	Path         string    `json:"path"`
	Title        string    `json:"title"`
	DocumentType string    `json:"documentType"`
	Tags         []string  `json:"tags"`
	LastModified time.Time `json:"lastModified"`
	Version      int64     `json:"version"`
}

// SearchByTags finds documents carrying any (MatchAny) or all (MatchAll) of
// the tags, with their real titles and metadata, sorted by scope (branch
// first) and path. It is served by the tag index: a search reads one small
// marker per bank, not the documents (see the package documentation).
func (b *Bank) SearchByTags(ctx context.Context, req SearchRequest) ([]SearchHit, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	if len(req.Tags) == 0 {
		return nil, invalidRequest("search: give at least one tag")
	}
	switch req.Match {
	case "", MatchAny, MatchAll:
	default:
		return nil, invalidRequest("search: match %q is not \"and\" or \"or\"", req.Match)
	}
	var scopes []Scope
	switch req.Scope {
	case ScopeBranch:
		scopes = []Scope{ScopeBranch}
	case ScopeGlobal:
		scopes = []Scope{ScopeGlobal}
	case "", ScopeAll:
		if req.Branch != "" {
			scopes = []Scope{ScopeBranch, ScopeGlobal}
		} else {
			scopes = []Scope{ScopeGlobal}
		}
	default:
		return nil, invalidRequest("search: scope %q is not \"branch\", \"global\" or \"all\"", req.Scope)
	}
	hits := []SearchHit{}
	for _, s := range scopes {
		prefix, err := b.bankPrefix(ctx, s, req.Branch, false)
		if err != nil {
			return nil, err
		}
		idx, err := b.entryIndex(ctx, prefix)
		if err != nil {
			return nil, err
		}
		branch := ""
		if s == ScopeBranch {
			branch = req.Branch
		}
		start := len(hits)
		for _, p := range idx.match(req.Tags, req.Match == MatchAll) {
			e := idx.entries[p]
			hits = append(hits, SearchHit{Scope: s, Branch: branch, Path: p, Title: e.Title, DocumentType: e.DocumentType,
				Tags: slices.Clone(e.Tags), LastModified: e.LastModified, Version: e.Version})
		}
		idx.mu.Unlock()
		slices.SortFunc(hits[start:], func(a, b SearchHit) int { return strings.Compare(a.Path, b.Path) })
	}
	return hits, nil
}

// match returns the paths carrying all (or any) of tags. For "and" it walks
// the smallest tag set and checks the others.
func (idx *bankIndex) match(tags []string, all bool) []string {
	var out []string
	if all {
		sets := make([]map[string]struct{}, len(tags))
		for i, t := range tags {
			sets[i] = idx.byTag[t]
			if len(sets[i]) == 0 {
				return nil
			}
		}
		slices.SortFunc(sets, func(a, b map[string]struct{}) int { return len(a) - len(b) })
	next:
		for p := range sets[0] {
			for _, s := range sets[1:] {
				if _, ok := s[p]; !ok {
					continue next
				}
			}
			out = append(out, p)
		}
		return out
	}
	seen := map[string]bool{}
	for _, t := range tags {
		for p := range idx.byTag[t] {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}
