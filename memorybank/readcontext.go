package memorybank

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"time"
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
	// MaxBytes budgets the memory sections (0: Options.ContextBudget, which
	// defaults to unlimited). It counts the bytes encoding/json writes for
	// each included memory file entry ("path":{...} in branchMemory or
	// globalMemory) plus each listed path (a JSON string in
	// otherBranchFiles/otherGlobalFiles); the rules, section names,
	// separators and the truncated flag are not counted. Core files come
	// first, in order, while they fit; then the paths of core files left
	// out; then the paths of the other documents; Truncated reports that
	// something was left out.
	MaxBytes int `json:"maxBytes,omitempty"`
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
	// Truncated is true when the budget left out a core file or a path.
	Truncated bool `json:"truncated,omitempty"`
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
}

// ReadContext returns rules, branch memory and global memory in one call, as
// the read_context of a memory-bank server. A branch bank without documents is first
// initialised with the core file templates in the request's language.
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
	budget := req.MaxBytes
	if budget == 0 {
		budget = b.opts.ContextBudget
	}
	if budget < 0 {
		return nil, invalidRequest("read_context: maxBytes %d must be positive, or 0 for the default", budget)
	}
	res := &ReadContextResult{}
	if incRules {
		text, err := b.Rules(ctx, lang)
		if err != nil {
			return nil, err
		}
		res.Rules = &RulesSection{Content: text}
	}
	type section struct {
		scope Scope
		core  []string
		other []string
		out   map[string]ContextFile
	}
	var sections []*section
	if incBranch {
		core, other, err := b.bankPaths(ctx, ScopeBranch, req.Branch, b.opts.BranchCoreFiles)
		if err != nil {
			return nil, err
		}
		if len(core)+len(other) == 0 {
			if err := b.InitBranch(ctx, req.Branch, lang); err != nil {
				return nil, err
			}
			if core, other, err = b.bankPaths(ctx, ScopeBranch, req.Branch, b.opts.BranchCoreFiles); err != nil {
				return nil, err
			}
		}
		res.BranchMemory = map[string]ContextFile{}
		sections = append(sections, &section{scope: ScopeBranch, core: core, other: other, out: res.BranchMemory})
	}
	if incGlobal {
		core, other, err := b.bankPaths(ctx, ScopeGlobal, "", b.opts.GlobalCoreFiles)
		if err != nil {
			return nil, err
		}
		res.GlobalMemory = map[string]ContextFile{}
		sections = append(sections, &section{scope: ScopeGlobal, core: core, other: other, out: res.GlobalMemory})
	}
	used := 0
	fits := func(n int) bool {
		if budget == 0 {
			return true
		}
		if used+n > budget {
			res.Truncated = true
			return false
		}
		used += n
		return true
	}
	var skipped [2][]string // core files left out, per section
	for i, s := range sections {
		for _, p := range s.core {
			d, err := b.Read(ctx, ReadRequest{Scope: s.scope, Branch: req.Branch, Path: p})
			if errors.Is(err, ErrNotFound) {
				continue // deleted since listed
			}
			if errors.Is(err, ErrCorrupt) {
				b.opts.Logger.WarnContext(ctx, "memorybank: core file cannot be decoded; listed instead", "path", p, "err", err)
				skipped[i] = append(skipped[i], p)
				continue
			}
			if err != nil {
				return nil, err
			}
			cf := ContextFile{Path: p, Content: d.Content, Tags: d.Tags, LastModified: d.LastModified}
			if budget > 0 {
				enc, _ := json.Marshal(cf)
				if !fits(jsonLen(p) + 1 + len(enc)) { // "path":{...}
					skipped[i] = append(skipped[i], p)
					continue
				}
			}
			s.out[p] = cf
		}
	}
	for i, s := range sections {
		// Core files left out are listed before the other paths.
		kept := s.other
		if budget > 0 || len(skipped[i]) > 0 {
			kept = nil
			for _, names := range [][]string{skipped[i], s.other} {
				for _, p := range names {
					if budget > 0 && !fits(jsonLen(p)) {
						break
					}
					kept = append(kept, p)
				}
			}
			slices.Sort(kept)
		}
		if s.scope == ScopeBranch {
			res.OtherBranchFiles = kept
		} else {
			res.OtherGlobalFiles = kept
		}
	}
	return res, nil
}

func flag(p *bool) bool { return p == nil || *p }

// jsonLen is the length of s encoded as a JSON string, as encoding/json
// writes it.
func jsonLen(s string) int {
	b, _ := json.Marshal(s)
	return len(b)
}

// bankPaths returns the core files of a bank, in the order of the core
// list, and the other document paths, sorted, from its index: no document
// is read. A core name matches its path exactly, or with the other of
// .json/.md when the exact path is absent; a name ending in "/" matches
// every path below it.
func (b *Bank) bankPaths(ctx context.Context, scope Scope, branch string, coreNames []string) (core, other []string, err error) {
	prefix, err := b.bankPrefix(ctx, scope, branch, false)
	if err != nil {
		return nil, nil, err
	}
	idx, err := b.pathIndex(ctx, prefix)
	if err != nil {
		return nil, nil, err
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
	other = make([]string, 0, len(sorted)-len(core))
	from := 0
	for _, i := range at {
		other = append(other, sorted[from:i]...)
		from = i + 1
	}
	return core, append(other, sorted[from:]...), nil
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
