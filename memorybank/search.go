package memorybank

import (
	"context"
	"encoding/json"
	"errors"
	"github.com/mnemobank/mnemobank/screen"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemobank/mnemobank/internal/textsearch"
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
	// Offset hits are skipped and at most Limit returned (0: all).
	Offset int `json:"offset,omitempty"`
	Limit  int `json:"limit,omitempty"`
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
	p, err := b.SearchByTagsPage(ctx, req)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// SearchByTagsPage is SearchByTags with the number of matches: only the
// hits of the page are built.
func (b *Bank) SearchByTagsPage(ctx context.Context, req SearchRequest) (*Page[SearchHit], error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	if req.Offset < 0 || req.Limit < 0 {
		return nil, invalidRequest("search: offset %d and limit %d must not be negative", req.Offset, req.Limit)
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
	total := 0
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
		paths := idx.match(req.Tags, req.Match == MatchAll)
		slices.Sort(paths)
		for _, p := range paths {
			total++
			if total <= req.Offset || req.Limit > 0 && len(hits) >= req.Limit {
				continue
			}
			e := idx.entries[p]
			hits = append(hits, SearchHit{Scope: s, Branch: branch, Path: p, Title: e.Title, DocumentType: e.DocumentType,
				Tags: slices.Clone(e.Tags), LastModified: e.LastModified, Version: e.Version})
		}
		idx.mu.Unlock()
	}
	return &Page[SearchHit]{Items: hits, Total: total}, nil
}

// match returns the paths carrying all (or any) of tags. For "and" it walks
// the smallest tag set and checks the others.
func (idx *catalog) match(tags []string, all bool) []string {
	var out []string
	if all {
		sets := make([]map[string]struct{}, len(tags))
		for i, t := range tags {
			sets[i] = idx.byTag[foldTag(t)]
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
		for p := range idx.byTag[foldTag(t)] {
			if !seen[p] {
				seen[p] = true
				out = append(out, p)
			}
		}
	}
	return out
}

// TextSearchRequest finds documents by the words of a query.
type TextSearchRequest struct {
	// Query is free text in any language: "how do we refresh tokens",
	// "認証の方式", "数据库迁移".
	Query string `json:"query"`
	// Scope is ScopeBranch (the bank of Branch), ScopeGlobal, or ScopeAll
	// (the default): the global bank and the bank of Branch when given,
	// else every branch bank.
	Scope  Scope  `json:"scope,omitempty"`
	Branch string `json:"branch,omitempty"`
	// Tags, when given, keep only documents carrying all of them (compared
	// without regard to case or width).
	Tags []string `json:"tags,omitempty"`
	// Limit is the most results returned: 0 means DefaultSearchLimit; at
	// most MaxSearchLimit.
	Limit int `json:"limit,omitempty"`
	// Offset skips that many of the best results (to page through them).
	Offset int `json:"offset,omitempty"`
}

// TextHit is one document found by Search.
type TextHit struct {
	Scope  Scope  `json:"scope"`
	Branch string `json:"branch,omitempty"`
	Path   string `json:"path"`
	Title  string `json:"title"`
	// Score is the document's relevance (BM25F): higher is better; scores
	// compare within one search only.
	Score float64 `json:"score"`
	// Snippet is a short passage of the document's text around its best
	// match, or its beginning.
	Snippet string `json:"snippet"`
	// Flags are the document's poisoning flags (Document.Flags).
	Flags []screen.Flag `json:"flags,omitempty"`
}

// Search finds the documents most relevant to a query, best first: BM25F
// over the title and path, the tags and the text (a text document's text,
// the string values of a JSON document's content), with a tag match
// counting double (internal/textsearch, DocumentParams). Length is
// normalised more fully when the documents' lengths vary widely (short
// notes beside long answers). A document tagged "user" weighs double, one
// tagged "assistant" 0.7: in a chat kept a message a document, what is
// asked about later is mostly what the user said. Words are compared
// after Unicode compatibility and case folding and English stemming;
// function words ("how", "the") are left out of a query that has other
// words; Chinese and Japanese text, written without spaces, is matched by
// character bigrams. A search sees every write acknowledged
// before it began, by this Bank or any other on the same store; it reads
// only documents changed since the last search (a fresh process reads the
// bank's full-text index snapshot and the documents changed since it was
// written, or each document of the bank once).
func (b *Bank) Search(ctx context.Context, req TextSearchRequest) ([]TextHit, error) {
	p, err := b.SearchTextPage(ctx, req)
	if err != nil {
		return nil, err
	}
	return p.Items, nil
}

// SearchTextPage is Search with the number of matching documents.
func (b *Bank) SearchTextPage(ctx context.Context, req TextSearchRequest) (*Page[TextHit], error) {
	if req.Offset < 0 {
		return nil, invalidRequest("search: offset %d must not be negative", req.Offset)
	}
	if len(req.Query) > MaxQueryBytes {
		return nil, invalidRequest("search: query is %d bytes; the limit is %d: search for the key words only", len(req.Query), MaxQueryBytes)
	}
	terms := textsearch.QueryTerms(req.Query)
	if len(terms) == 0 {
		return nil, invalidRequest("search: query %q has no words to search for; give words such as \"login token refresh\"", req.Query)
	}
	if len(req.Tags) > b.opts.MaxTags {
		return nil, invalidRequest("search: %d tags given; at most %d", len(req.Tags), b.opts.MaxTags)
	}
	limit := req.Limit
	switch {
	case limit == 0:
		limit = DefaultSearchLimit
	case limit < 0 || limit > MaxSearchLimit:
		return nil, invalidRequest("search: limit %d is not between 1 and %d", limit, MaxSearchLimit)
	}
	banks, err := b.searchBanks(ctx, req.Scope, req.Branch)
	if err != nil {
		return nil, err
	}
	// Pass 1: bring each bank's index up to date and gather the collection
	// statistics, so scores compare across banks.
	var st textsearch.Stats
	idxs := make([]*catalog, len(banks))
	for i, sb := range banks {
		idx, err := b.textIndexOf(ctx, sb.prefix)
		if err != nil {
			return nil, err
		}
		st.Merge(idx.text.ix.Stats(terms))
		idx.mu.Unlock()
		idxs[i] = idx
	}
	if st.N == 0 {
		return &Page[TextHit]{Items: []TextHit{}}, nil
	}
	// Pass 2: score.
	var hits []scoredHit
	total := 0
	for i, idx := range idxs {
		idx.mu.Lock()
		var allowed map[string]struct{}
		if len(req.Tags) > 0 {
			allowed = map[string]struct{}{}
			for _, p := range idx.match(req.Tags, true) {
				allowed[p] = struct{}{}
			}
		}
		scored, n := idx.text.score(terms, &st, allowed, req.Offset+limit)
		total += n
		for _, h := range scored {
			title := ""
			if e := idx.entries[h.path]; e != nil {
				title = e.Title
			}
			hits = append(hits, scoredHit{bank: banks[i], path: h.path, title: title, score: h.score})
		}
		idx.mu.Unlock()
	}
	slices.SortFunc(hits, func(x, y scoredHit) int {
		if x.score != y.score {
			if x.score > y.score {
				return -1
			}
			return 1
		}
		if c := strings.Compare(x.bank.prefix, y.bank.prefix); c != 0 {
			return c
		}
		return strings.Compare(x.path, y.path)
	})
	hits = hits[min(req.Offset, len(hits)):]
	if len(hits) > limit {
		hits = hits[:limit]
	}
	snips := b.snippets(ctx, hits, terms)
	out := make([]TextHit, 0, len(hits))
	for i, h := range hits {
		sn := snips[i]
		if errors.Is(sn.err, ErrNotFound) {
			continue // deleted since
		}
		if sn.err != nil {
			return nil, sn.err
		}
		out = append(out, TextHit{Scope: h.bank.scope, Branch: h.bank.branch, Path: h.path, Title: h.title,
			Score: math.Round(h.score*1e4) / 1e4, Snippet: sn.text, Flags: sn.flags})
	}
	return &Page[TextHit]{Items: out, Total: total}, nil
}

type snippetResult struct {
	text  string
	flags []screen.Flag
	err   error
}

// snippets reads the hits' documents for their snippets and flags, on as
// many processors as there are (each is a read and an analysis of one
// document: most of a warm search's time).
func (b *Bank) snippets(ctx context.Context, hits []scoredHit, terms []string) []snippetResult {
	out := make([]snippetResult, len(hits))
	one := func(i int) {
		h := hits[i]
		r := &out[i]
		r.text, r.flags, r.err = b.snippet(ctx, h.bank.prefix+h.path, h.path, terms)
	}
	workers := min(runtime.GOMAXPROCS(0), len(hits))
	if workers <= 1 {
		for i := range hits {
			one(i)
		}
		return out
	}
	var next atomic.Int64
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for i := int(next.Add(1) - 1); i < len(hits); i = int(next.Add(1) - 1) {
				one(i)
			}
		})
	}
	wg.Wait()
	return out
}

// Warm brings the catalogs of the banks a Search of scope and branch
// would cover up to date now (their listing, entries and full-text index),
// reading what changed since they were last current, so that the next
// search costs what a warm one does. It writes nothing but the catalog's
// snapshots (a bank's full-text index, when a sixteenth of it changed
// since its snapshot; its entries, in a bank of 128 documents or more), as
// a search would. A server may call it in the background at start-up;
// Search needs no Warm to be correct.
func (b *Bank) Warm(ctx context.Context, scope Scope, branch string) error {
	if err := b.ready(); err != nil {
		return err
	}
	banks, err := b.searchBanks(ctx, scope, branch)
	if err != nil {
		return err
	}
	for _, sb := range banks {
		idx, err := b.textIndexOf(ctx, sb.prefix)
		if err != nil {
			return err
		}
		idx.mu.Unlock()
	}
	return nil
}

type scoredHit struct {
	bank  searchBank
	path  string
	title string
	score float64
}

// searchBank is one bank a search covers.
type searchBank struct {
	scope  Scope
	branch string
	prefix string
}

// searchBanks resolves the scope of a search to its banks.
func (b *Bank) searchBanks(ctx context.Context, scope Scope, branch string) ([]searchBank, error) {
	global := searchBank{scope: ScopeGlobal, prefix: GlobalPrefix}
	one := func() (searchBank, error) {
		prefix, err := b.bankPrefix(ctx, ScopeBranch, branch, false)
		return searchBank{scope: ScopeBranch, branch: branch, prefix: prefix}, err
	}
	switch scope {
	case ScopeGlobal:
		return []searchBank{global}, nil
	case ScopeBranch:
		sb, err := one()
		if err != nil {
			return nil, err
		}
		return []searchBank{sb}, nil
	case "", ScopeAll:
		if branch != "" {
			sb, err := one()
			if err != nil {
				return nil, err
			}
			return []searchBank{sb, global}, nil
		}
		dirs, err := b.branchDirs(ctx)
		if err != nil {
			return nil, err
		}
		out := []searchBank{global}
		for _, d := range dirs {
			out = append(out, searchBank{scope: ScopeBranch, branch: d.name, prefix: BranchPrefix + d.dir + "/"})
		}
		return out, nil
	}
	return nil, invalidRequest("search: scope %q is not \"branch\", \"global\" or \"all\"", scope)
}

// branchDir is a branch bank's directory and its branch name.
type branchDirName struct{ dir, name string }

// branchListing caches the directories of the branch banks, under the
// catalogs' freshness rule.
type branchListing struct {
	mu    sync.Mutex
	fresh freshness
	dirs  map[string]struct{}
}

// branchDirs returns the branch banks, sorted by directory: those listed
// in the store (listed again when the catalogs' freshness rule says so)
// and those this Bank wrote since.
func (b *Bank) branchDirs(ctx context.Context) ([]branchDirName, error) {
	l := &b.branchList
	l.mu.Lock()
	defer l.mu.Unlock()
	o, err := b.observe(ctx)
	if err != nil {
		return nil, err
	}
	if !l.fresh.current(o, b.opts.Clock) {
		dirs := map[string]struct{}{}
		for obj, err := range b.store.List(ctx, BranchPrefix) {
			if err != nil {
				return nil, err
			}
			dir, rest, ok := strings.Cut(strings.TrimPrefix(obj.Key, BranchPrefix), "/")
			if ok && !reserved(rest) {
				dirs[dir] = struct{}{}
			}
		}
		l.dirs = dirs
		l.fresh.listedAt(b.opts.Clock())
	}
	l.fresh.checked(o)
	all := maps.Clone(l.dirs)
	b.mu.Lock()
	for prefix := range b.catalogs {
		if dir, ok := strings.CutPrefix(prefix, BranchPrefix); ok {
			all[strings.TrimSuffix(dir, "/")] = struct{}{}
		}
	}
	b.mu.Unlock()
	out := make([]branchDirName, 0, len(all))
	for _, dir := range slices.Sorted(maps.Keys(all)) {
		name, err := b.branchName(ctx, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, branchDirName{dir: dir, name: name})
	}
	return out, nil
}

// branchName is the branch a directory records in its marker, else the
// directory's name.
func (b *Bank) branchName(ctx context.Context, dir string) (string, error) {
	b.mu.Lock()
	name, ok := b.branches[dir]
	b.mu.Unlock()
	if ok {
		return name, nil
	}
	obj, err := b.store.Get(ctx, BranchPrefix+dir+"/"+branchMarker)
	if errors.Is(err, ErrNotFound) {
		return dir, nil
	}
	if err != nil {
		return "", err
	}
	var rec branchRecord
	if json.Unmarshal(obj.Data, &rec) != nil || rec.Branch == "" {
		return dir, nil
	}
	b.mu.Lock()
	b.branches[dir] = rec.Branch
	b.mu.Unlock()
	return rec.Branch, nil
}
