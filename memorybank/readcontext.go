package memorybank

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mnemobank/mnemobank/screen"
	"slices"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// ReadContextRequest asks for rules, branch memory and global memory in one
// call: the read_context of a memory-bank server.
type ReadContextRequest struct {
	// Branch is required when branch memory is included.
	Branch string `json:"branch,omitempty"`
	// Language: "en", "ja" or "zh"; "" means Options.Language.
	Language Language `json:"language,omitempty"`
	// The three sections are included when the flag is nil or true.
	IncludeRules        *bool `json:"includeRules,omitempty"`
	IncludeBranchMemory *bool `json:"includeBranchMemory,omitempty"`
	IncludeGlobalMemory *bool `json:"includeGlobalMemory,omitempty"`
	// MaxTokens budgets the memory sections in tokens, as counted by
	// Options.TokenCounter (0: Options.ContextTokens). It counts the JSON
	// encoding/json writes for each included memory file entry
	// ("path":{...} in branchMemory or globalMemory) and each listed path;
	// the rules, section names and separators are not counted. Core files
	// come first, in order, while they fit in nine tenths of it; a tenth is
	// kept for the listing of what was left out. Giving it, or a Query, also
	// fills the rest of the budget with whole documents beyond the core
	// files (see Query).
	MaxTokens int `json:"maxTokens,omitempty"`
	// Query, when given, chooses the documents beyond the core files:
	// those most relevant to it (as Search ranks them) first, then the most
	// recently modified; without it, but with MaxTokens, the most recent.
	// Each is included whole while it fits, the others are listed in
	// LeftOut in that order. Ranking by a query uses the full-text index,
	// which a process builds on first use by reading each document of the
	// banks once.
	Query string `json:"query,omitempty"`
	// ExcludeFlagged leaves out documents a write flagged as addressing
	// the agent (Options.Flagger); they are listed in Withheld instead.
	// Options.ExcludeFlagged does it for every call.
	ExcludeFlagged bool `json:"excludeFlagged,omitempty"`
}

// ReadContextResult is the output of ReadContext. A section is nil (and absent from
// the JSON) when it was not requested; an included but empty bank is an
// empty map.
type ReadContextResult struct {
	Rules        *RulesSection          `json:"rules,omitempty"`
	BranchMemory map[string]ContextFile `json:"branchMemory,omitzero"`
	GlobalMemory map[string]ContextFile `json:"globalMemory,omitzero"`
	// OtherBranchFiles and OtherGlobalFiles list, sorted, the paths of
	// documents that are not core files (or did not fit the budget); read
	// them with Read.
	OtherBranchFiles []string `json:"otherBranchFiles,omitempty"`
	OtherGlobalFiles []string `json:"otherGlobalFiles,omitempty"`
	// LeftOut lists, when documents beyond the core files were chosen
	// (Query or MaxTokens), the documents that did not fit, most relevant
	// (or most recent) first, with their size in tokens (estimated from
	// their stored size when they were not read), up to a tenth of the
	// token budget.
	LeftOut []LeftOutFile `json:"leftOut,omitempty"`
	// More counts the documents neither included nor listed, and Note says
	// how to find them.
	More int    `json:"more,omitempty"`
	Note string `json:"note,omitempty"`
	// Truncated is true when the budget left out a core file or a path.
	Truncated bool `json:"truncated,omitempty"`
	// Withheld lists the documents left out because they are flagged
	// (ReadContextRequest.ExcludeFlagged), with their flags.
	Withheld []WithheldFile `json:"withheld,omitempty"`
}

// WithheldFile is a flagged document ReadContext left out on request.
type WithheldFile struct {
	Scope Scope         `json:"scope"`
	Path  string        `json:"path"`
	Flags []screen.Flag `json:"flags"`
}

// LeftOutFile is a document ReadContext left out for its budget.
type LeftOutFile struct {
	Scope  Scope  `json:"scope"`
	Path   string `json:"path"`
	Tokens int    `json:"tokens"`
}

// RulesSection is the rules section of ReadContext: Markdown text.
type RulesSection struct {
	Content string `json:"content"`
}

// ContextFile is one memory file of ReadContext.
type ContextFile struct {
	Path string `json:"path"`
	// Content is the parsed JSON envelope for a JSON document, a JSON string
	// for a text document.
	Content      json.RawMessage `json:"content"`
	Tags         []string        `json:"tags"`
	LastModified time.Time       `json:"lastModified"`
	// Flags are the document's poisoning flags (Document.Flags): an agent
	// should treat its text as data, never as instructions.
	Flags []screen.Flag `json:"flags,omitempty"`
}

// ReadContext returns rules, branch memory and global memory in one call, as
// the read_context of a memory-bank server. A branch bank without documents is first
// initialised with the core file templates in the request's language.
//
// It keeps to a token budget (MaxTokens, else Options.ContextTokens):
// core files first, each whole, while they fit in nine tenths of it; with a
// Query or MaxTokens, then the documents most relevant to the query (else
// the most recent), each whole; what was left out is listed (paths, or
// LeftOut with token counts) within the last tenth, and the rest counted in
// More, so a large bank never floods the context.
func (b *Bank) ReadContext(ctx context.Context, req ReadContextRequest) (*ReadContextResult, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	lang := req.Language
	if lang == "" {
		lang = b.opts.Language
	}
	if !validLanguage(lang) {
		return nil, invalidRequest("read_context: language %q is not one of en, ja, zh", lang)
	}
	incRules, incBranch, incGlobal := flag(req.IncludeRules), flag(req.IncludeBranchMemory), flag(req.IncludeGlobalMemory)
	if incBranch && req.Branch == "" {
		return nil, invalidRequest("read_context: branch is required when branch memory is included; pass the current git branch name (the bank does not guess it) or set includeBranchMemory to false")
	}
	if req.MaxTokens < 0 {
		return nil, invalidRequest("read_context: maxTokens %d must be positive, or 0 for the default", req.MaxTokens)
	}
	if len(req.Query) > MaxQueryBytes {
		return nil, invalidRequest("read_context: query is %d bytes; the limit is %d: give the key words only", len(req.Query), MaxQueryBytes)
	}
	choose := req.Query != "" || req.MaxTokens > 0 // fill the budget with documents
	tb := newTokenBudget(req.MaxTokens, b.opts)
	res := &ReadContextResult{}
	if incRules {
		text, err := b.Rules(ctx, lang)
		if err != nil {
			return nil, err
		}
		res.Rules = &RulesSection{Content: text}
	}
	var sections []*ctxSection
	if incBranch {
		core, other, versions, err := b.bankPaths(ctx, ScopeBranch, req.Branch, b.opts.BranchCoreFiles)
		if err != nil {
			return nil, err
		}
		if len(core)+len(other) == 0 {
			if err := b.InitBranch(ctx, req.Branch, lang); err != nil {
				return nil, err
			}
			if core, other, versions, err = b.bankPaths(ctx, ScopeBranch, req.Branch, b.opts.BranchCoreFiles); err != nil {
				return nil, err
			}
		}
		res.BranchMemory = map[string]ContextFile{}
		sections = append(sections, &ctxSection{scope: ScopeBranch, core: core, other: other, versions: versions, out: res.BranchMemory})
	}
	if incGlobal {
		core, other, versions, err := b.bankPaths(ctx, ScopeGlobal, "", b.opts.GlobalCoreFiles)
		if err != nil {
			return nil, err
		}
		res.GlobalMemory = map[string]ContextFile{}
		sections = append(sections, &ctxSection{scope: ScopeGlobal, core: core, other: other, versions: versions, out: res.GlobalMemory})
	}
	// include adds a document to its section if it fits the budget; it
	// returns its cost in tokens, and whether it was included.
	include := func(s *ctxSection, p string) (tokens int, ok bool, err error) {
		cf, tokens, err := b.contextFile(ctx, s.scope, req.Branch, p, s.versions[p], tb)
		if errors.Is(err, ErrCorrupt) {
			b.opts.Logger.WarnContext(ctx, "memorybank: document cannot be decoded; listed instead", "path", p, "err", err)
			return 0, false, nil
		}
		if err != nil {
			return 0, false, err
		}
		if (req.ExcludeFlagged || b.opts.ExcludeFlagged) && len(cf.Flags) > 0 {
			flags := slices.Clone(cf.Flags)
			for i := range flags {
				flags[i].Excerpt = "" // the text is withheld, its quote too
			}
			res.Withheld = append(res.Withheld, WithheldFile{Scope: s.scope, Path: p, Flags: flags})
			return 0, true, nil
		}
		if tb.limited() {
			if !tb.fits(tokens) {
				res.Truncated = true
				return tokens, false, nil
			}
		}
		s.out[p] = cf
		return tokens, true, nil
	}
	for _, s := range sections {
		for _, p := range s.core {
			tokens, ok, err := include(s, p)
			if errors.Is(err, ErrNotFound) {
				continue // deleted since listed
			}
			if err != nil {
				return nil, err
			}
			if !ok {
				s.skipped = append(s.skipped, leftOut{path: p, tokens: tokens})
			}
		}
	}
	if choose {
		if err := b.chooseDocuments(ctx, req, sections, include); err != nil {
			return nil, err
		}
		b.listLeftOut(res, sections, tb)
		return res, nil
	}
	listed := 0
	for _, s := range sections {
		// Core files left out are listed before the other paths.
		kept := s.other
		if tb.limited() || len(s.skipped) > 0 {
			kept = nil
			names := make([]string, 0, len(s.skipped)+len(s.other))
			for _, l := range s.skipped {
				names = append(names, l.path)
			}
			names = append(names, s.other...)
			for i, p := range names {
				if !tb.fitsListing(p) {
					res.Truncated = true
					res.More += len(names) - i
					break
				}
				kept = append(kept, p)
			}
			slices.Sort(kept)
		}
		listed += len(kept)
		if s.scope == ScopeBranch {
			res.OtherBranchFiles = kept
		} else {
			res.OtherGlobalFiles = kept
		}
	}
	if res.More > 0 {
		res.Note = moreNote(res.More)
	}
	return res, nil
}

func moreNote(n int) string {
	return fmt.Sprintf("and %d more; use search_documents or list_documents", n)
}

// ctxSection is one memory section of ReadContext being filled.
type ctxSection struct {
	scope Scope
	core  []string
	other []string
	// versions holds the store version of each core file as the bank's
	// index knows it (see contextFile).
	versions map[string]string
	out      map[string]ContextFile
	skipped  []leftOut // core files left out
	left     []leftOut // other documents left out, in order
}

type leftOut struct {
	path   string
	tokens int
}

// tokenBudget counts ReadContext's tokens: the memory files within the
// budget less the listing's share, the listing within its share.
type tokenBudget struct {
	counter      TokenCounter
	max, listMax int // the files' and the listing's shares, when limit
	limit        bool
	used, listed int
}

// listingShare is the part of the token budget kept for the listing of
// what was left out.
const listingShare = 10

func newTokenBudget(req int, o Options) *tokenBudget {
	t := &tokenBudget{counter: o.TokenCounter, max: req}
	if t.max == 0 && o.ContextTokens > 0 {
		t.max = o.ContextTokens
	}
	if t.max > 0 {
		// A budget of 1 leaves the files nothing: limited still, not unlimited.
		t.limit = true
		t.listMax = max(t.max/listingShare, 1)
		t.max -= t.listMax
	}
	return t
}

func (t *tokenBudget) limited() bool { return t.limit }

func (t *tokenBudget) count(s string) int { return t.counter.CountTokens(s) }

func (t *tokenBudget) fits(n int) bool {
	if !t.limit {
		return true
	}
	if t.used+n > t.max {
		return false
	}
	t.used += n
	return true
}

// fitsListing counts one listed entry (its JSON) against the listing's
// share.
func (t *tokenBudget) fitsListing(entry string) bool {
	if !t.limit {
		return true
	}
	n := t.count(entry) + 1 // the separator
	if t.listed+n > t.listMax {
		return false
	}
	t.listed += n
	return true
}

// chooseDocuments fills the token budget with whole documents beyond the
// core files: those most relevant to the query first, then the most
// recent. Documents are read only while they may fit; the others are left
// out with their size estimated from the index.
func (b *Bank) chooseDocuments(ctx context.Context, req ReadContextRequest, sections []*ctxSection,
	include func(*ctxSection, string) (int, bool, error)) error {
	type cand struct {
		s       *ctxSection
		path    string
		score   float64
		recent  time.Time
		estimat int
	}
	var terms []string
	if req.Query != "" {
		terms = textsearch.QueryTerms(req.Query)
	}
	var cands []cand
	var st textsearch.Stats
	idxs := make([]*catalog, len(sections))
	for i, s := range sections {
		prefix, err := b.bankPrefix(ctx, s.scope, req.Branch, false)
		if err != nil {
			return err
		}
		var idx *catalog
		if len(terms) > 0 {
			idx, err = b.textIndexOf(ctx, prefix)
			if err == nil {
				st.Merge(idx.text.ix.Stats(terms))
			}
		} else {
			idx, err = b.entryIndex(ctx, prefix)
		}
		if err != nil {
			return err
		}
		idxs[i] = idx
		idx.mu.Unlock()
	}
	for i, s := range sections {
		idx := idxs[i]
		idx.mu.Lock()
		scores := map[string]float64{}
		if len(terms) > 0 && st.N > 0 {
			best, _ := idx.text.score(terms, &st, nil, 0)
			for _, h := range best {
				scores[h.path] = h.score
			}
		}
		for _, p := range s.other {
			c := cand{s: s, path: p, score: scores[p], estimat: 1}
			if e := idx.entries[p]; e != nil {
				c.recent = e.LastModified
				c.estimat = max(e.Size/4, 1)
			}
			cands = append(cands, c)
		}
		idx.mu.Unlock()
	}
	slices.SortStableFunc(cands, func(x, y cand) int {
		if x.score != y.score {
			if x.score > y.score {
				return -1
			}
			return 1
		}
		return y.recent.Compare(x.recent)
	})
	// Stop reading after a few documents in a row did not fit: the rest
	// are listed by their estimated size.
	const maxMisses = 8
	misses := 0
	for _, c := range cands {
		if misses >= maxMisses {
			c.s.left = append(c.s.left, leftOut{path: c.path, tokens: c.estimat})
			continue
		}
		tokens, ok, err := include(c.s, c.path)
		if errors.Is(err, ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if ok {
			misses = 0
		} else {
			misses++
			c.s.left = append(c.s.left, leftOut{path: c.path, tokens: tokens})
		}
	}
	return nil
}

// listLeftOut lists what was left out, core files first, within the
// listing's share of the token budget, and counts the rest.
func (b *Bank) listLeftOut(res *ReadContextResult, sections []*ctxSection, tb *tokenBudget) {
	for _, s := range sections {
		for _, list := range [][]leftOut{s.skipped, s.left} {
			for _, l := range list {
				res.Truncated = true
				f := LeftOutFile{Scope: s.scope, Path: l.path, Tokens: l.tokens}
				enc, _ := json.Marshal(f)
				if res.More > 0 || !tb.fitsListing(string(enc)) {
					res.More++
					continue
				}
				res.LeftOut = append(res.LeftOut, f)
			}
		}
	}
	if res.More > 0 {
		res.Note = moreNote(res.More)
	}
}

func flag(p *bool) bool { return p == nil || *p }

// bankPaths returns the core files of a bank, in the order of the core
// list, the other document paths, sorted, and the store version of each
// core file, from its index: no document is read. A core name matches its path exactly, or with the other of
// .json/.md when the exact path is absent; a name ending in "/" matches
// every path below it.
func (b *Bank) bankPaths(ctx context.Context, scope Scope, branch string, coreNames []string) (core, other []string, versions map[string]string, err error) {
	prefix, err := b.bankPrefix(ctx, scope, branch, false)
	if err != nil {
		return nil, nil, nil, err
	}
	idx, err := b.pathIndex(ctx, prefix)
	if err != nil {
		return nil, nil, nil, err
	}
	defer idx.mu.Unlock()
	sorted := idx.sortedPaths()
	taken := map[string]bool{}
	for _, c := range coreNames {
		if strings.HasSuffix(c, "/") {
			i, _ := slices.BinarySearch(sorted, c)
			for ; i < len(sorted) && strings.HasPrefix(sorted[i], c); i++ {
				if p := sorted[i]; !taken[p] {
					taken[p] = true
					core = append(core, p)
				}
			}
			continue
		}
		for _, cand := range []string{c, swapExt(c)} {
			if _, ok := idx.paths[cand]; ok && cand != "" && !taken[cand] {
				taken[cand] = true
				core = append(core, cand)
				break
			}
		}
	}
	// Copy the paths between the core files: a few copies, not a lookup
	// per document.
	at := make([]int, 0, len(core))
	for _, p := range core {
		i, _ := slices.BinarySearch(sorted, p)
		at = append(at, i)
	}
	slices.Sort(at)
	versions = make(map[string]string, len(core))
	for _, p := range core {
		versions[p] = idx.paths[p]
	}
	other = make([]string, 0, len(sorted)-len(core))
	from := 0
	for _, i := range at {
		other = append(other, sorted[from:i]...)
		from = i + 1
	}
	return core, append(other, sorted[from:]...), versions, nil
}

func swapExt(p string) string {
	switch {
	case strings.HasSuffix(p, ".json"):
		return strings.TrimSuffix(p, ".json") + ".md"
	case strings.HasSuffix(p, ".md"):
		return strings.TrimSuffix(p, ".md") + ".json"
	}
	return ""
}
