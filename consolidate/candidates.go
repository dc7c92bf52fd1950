package consolidate

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Kind is a kind of candidate.
type Kind string

const (
	KindDuplicate Kind = "duplicate"
	KindConflict  Kind = "conflict"
	KindStale     Kind = "stale"
	KindPromote   Kind = "promote"
)

// Ref names a memory (Memory, its id) or a document (Scope, Branch, Path).
type Ref struct {
	Memory string           `json:"memory,omitempty"`
	Scope  memorybank.Scope `json:"scope,omitempty"`
	Branch string           `json:"branch,omitempty"`
	Path   string           `json:"path,omitempty"`
}

// IsMemory reports whether r names a memory.
func (r Ref) IsMemory() bool { return r.Memory != "" }

func (r Ref) String() string {
	switch {
	case r.IsMemory():
		return "memory " + r.Memory
	case r.Scope == memorybank.ScopeBranch:
		return fmt.Sprintf("document %s of branch %s", r.Path, r.Branch)
	}
	return "document " + r.Path + " of the global bank"
}

// Entry is a memory or a document as a candidate shows it.
type Entry struct {
	Ref   Ref      `json:"ref"`
	Title string   `json:"title"`
	Tags  []string `json:"tags"`
	Date  string   `json:"date"` // YYYY-MM-DD: a memory's date, a document's last change
	Text  string   `json:"text"`
	// Version is what a plan step built on this entry carries: a memory's
	// memories.Fingerprint, a document's version as a decimal.
	Version string `json:"version"`
	// Uses and LastUsed: how often a memory was returned and when last
	// (stale candidates).
	Uses     int    `json:"uses,omitempty"`
	LastUsed string `json:"lastUsed,omitempty"`
}

// Candidate is one thing that could be tidied.
type Candidate struct {
	Kind    Kind    `json:"kind"`
	Entries []Entry `json:"entries"` // duplicates: newest first
	Score   float64 `json:"score,omitempty"`
	// Differs holds, for a conflict, the words only the first entry has
	// and those only the second has.
	Differs [][]string `json:"differs,omitempty"`
	Reason  string     `json:"reason"`
}

// Candidates is what Gather found.
type Candidates struct {
	Items []Candidate `json:"candidates"`
	// Memories and Documents: how many entries were read.
	Memories  int `json:"memories"`
	Documents int `json:"documents"`
}

// DefaultStaleAfter is Options.StaleAfter's default.
const DefaultStaleAfter = 90 * 24 * time.Hour

// MaxDocuments bounds the documents Gather reads from one bank.
const MaxDocuments = 10000

// Options configure Gather.
type Options struct {
	// Now is the clock for staleness; nil means time.Now.
	Now func() time.Time
	// StaleAfter: a memory neither used nor written for this long is
	// stale; 0 means DefaultStaleAfter, negative turns stale candidates
	// off.
	StaleAfter time.Duration
	// MergedBranches are the branches merged into the default branch, as
	// git knows them; their banks' documents are promotion candidates.
	MergedBranches []string
	// Branches whose banks are searched for duplicate documents, besides
	// the global bank and the merged branches.
	Branches []string
}

// Sources are what Gather reads; either may be nil.
type Sources struct {
	Memories *memories.Manager
	Bank     *memorybank.Bank
}

// ErrTooMany: a bank holds more documents than Gather reads.
var ErrTooMany = errors.New("consolidate: too many documents")

// Gather reports the candidates of src. It reads only: nothing changes.
func Gather(ctx context.Context, src Sources, opts *Options) (*Candidates, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.StaleAfter == 0 {
		o.StaleAfter = DefaultStaleAfter
	}
	out := &Candidates{Items: []Candidate{}}
	if src.Memories != nil {
		if err := gatherMemories(ctx, src.Memories, o, out); err != nil {
			return nil, err
		}
	}
	if src.Bank != nil {
		if err := gatherDocuments(ctx, src.Bank, o, out); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// memoryEntry is m as an entry, but for its Version: a hash of the
// memory, which setVersions computes only for the few memories the
// candidates show.
func memoryEntry(m memories.Memory) Entry {
	return Entry{Ref: Ref{Memory: m.ID}, Title: m.Title, Tags: m.Tags, Date: m.Date, Text: m.Content}
}

// setVersions gives the memory entries of items their Version.
func setVersions(items []Candidate, ms []memories.Memory, byID map[string]int) {
	version := make(map[int]string)
	for _, it := range items {
		for k := range it.Entries {
			e := &it.Entries[k]
			if !e.Ref.IsMemory() {
				continue
			}
			i := byID[e.Ref.Memory]
			v, ok := version[i]
			if !ok {
				v = memories.Fingerprint(ms[i])
				version[i] = v
			}
			e.Version = v
		}
	}
}

func gatherMemories(ctx context.Context, mm *memories.Manager, o Options, out *Candidates) error {
	d, err := mm.NearDuplicates(ctx)
	if err != nil {
		return err
	}
	ms, pairs, clusters := d.Memories, d.Pairs, d.Clusters
	out.Memories = len(ms)
	first := len(out.Items)
	entries := make([]Entry, len(ms))
	byID := make(map[string]int, len(ms))
	for i, m := range ms {
		entries[i] = memoryEntry(m)
		byID[m.ID] = i
	}
	out.Items = append(out.Items, duplicates(clusters, pairs, byID, entries)...)
	out.Items = append(out.Items, conflicts(pairs, byID, entries)...)
	if o.StaleAfter > 0 {
		usage, err := mm.Usage(ctx)
		if err != nil {
			return err
		}
		cut := o.Now().Add(-o.StaleAfter).Format(time.DateOnly)
		for i, m := range ms {
			u := usage[m.ID]
			last := max(u.Last, m.Date)
			if last < cut {
				e := entries[i]
				e.Uses, e.LastUsed = u.Count, u.Last
				reason := fmt.Sprintf("written %s, never returned by a search or an injection since", m.Date)
				if u.Count > 0 {
					reason = fmt.Sprintf("last returned %s (%d times in all), written %s", u.Last, u.Count, m.Date)
				}
				out.Items = append(out.Items, Candidate{Kind: KindStale, Entries: []Entry{e}, Reason: reason})
			}
		}
	}
	setVersions(out.Items[first:], ms, byID)
	return nil
}

// duplicates turns clusters into candidates, with the best score of a
// pair inside each.
func duplicates(clusters []memories.Cluster, pairs []memories.Pair, byID map[string]int, entries []Entry) []Candidate {
	of := make(map[string]int, len(clusters)*2) // id → its cluster
	best := make([]float64, len(clusters))
	for k, c := range clusters {
		for _, id := range c.IDs {
			of[id] = k
		}
	}
	for _, p := range pairs {
		if k, ok := of[p.A]; ok && p.Score >= memories.SimilarThreshold && of[p.B] == k {
			best[k] = max(best[k], p.Score)
		}
	}
	out := make([]Candidate, 0, len(clusters))
	for k, c := range clusters {
		cand := Candidate{Kind: KindDuplicate, Score: best[k]}
		for _, id := range c.IDs {
			cand.Entries = append(cand.Entries, entries[byID[id]])
		}
		cand.Reason = fmt.Sprintf("%d entries say nearly the same thing (similarity up to %.2f)", len(c.IDs), cand.Score)
		out = append(out, cand)
	}
	return out
}

// conflicts pairs entries that disagree on one subject: the same folded
// title with texts that are not duplicates, or duplicates but for their
// numbers.
func conflicts(pairs []memories.Pair, byID map[string]int, entries []Entry) []Candidate {
	var out []Candidate
	seen := map[[2]int]bool{}
	add := func(a, b int, score float64, reason string) {
		if a > b {
			a, b = b, a
		}
		if seen[[2]int{a, b}] {
			return
		}
		seen[[2]int{a, b}] = true
		ea, eb := entries[a], entries[b]
		onlyA, onlyB := differs(ea.Text, eb.Text)
		out = append(out, Candidate{Kind: KindConflict, Entries: []Entry{ea, eb}, Score: score,
			Differs: [][]string{onlyA, onlyB}, Reason: reason})
	}
	dup := map[[2]int]bool{}
	for _, p := range pairs {
		a, b := byID[p.A], byID[p.B]
		if p.Score >= memories.SimilarThreshold {
			dup[[2]int{min(a, b), max(a, b)}] = true
			continue
		}
		if p.NumbersDiffer {
			add(a, b, p.RawScore, "the same statement with different numbers")
		}
	}
	byTitle := map[string][]int{}
	for i, e := range entries {
		t := memories.Fold(e.Title)
		byTitle[t] = append(byTitle[t], i)
	}
	var titles []string // those more than one entry has
	for t, g := range byTitle {
		if len(g) > 1 {
			titles = append(titles, t)
		}
	}
	slices.Sort(titles)
	for _, t := range titles {
		g := byTitle[t]
		for x := range g {
			for y := x + 1; y < len(g); y++ {
				a, b := g[x], g[y]
				if dup[[2]int{min(a, b), max(a, b)}] || entries[a].Text == entries[b].Text {
					continue
				}
				add(a, b, 0, "the same title with different texts")
			}
		}
	}
	slices.SortStableFunc(out, func(x, y Candidate) int { return cmp.Compare(y.Score, x.Score) })
	return out
}

func docEntry(d *memorybank.Document) Entry {
	return Entry{Ref: Ref{Scope: d.Scope, Branch: d.Branch, Path: d.Path}, Title: d.Title, Tags: d.Tags,
		Date: d.LastModified.Format(time.DateOnly), Text: docText(d), Version: strconv.FormatInt(d.Version, 10)}
}

// docText is a document's text: a text document's text, a JSON
// document's content as stored.
func docText(d *memorybank.Document) string {
	if d.Format == memorybank.FormatText {
		return d.Text()
	}
	return string(d.Content)
}

// readBank reads every document of one bank.
func readBank(ctx context.Context, b *memorybank.Bank, scope memorybank.Scope, branch string) ([]Entry, error) {
	page, err := b.ListPage(ctx, memorybank.ListRequest{Scope: scope, Branch: branch, Limit: MaxDocuments})
	if err != nil {
		return nil, err
	}
	if page.Total > MaxDocuments {
		return nil, fmt.Errorf("%w: the bank (%s %s) holds %d documents, over %d; consolidate a part of it",
			ErrTooMany, scope, branch, page.Total, MaxDocuments)
	}
	out := make([]Entry, 0, len(page.Items))
	for _, le := range page.Items {
		d, err := b.Read(ctx, memorybank.ReadRequest{Scope: scope, Branch: branch, Path: le.Path})
		if errors.Is(err, memorybank.ErrNotFound) {
			continue // deleted since the listing
		}
		if err != nil {
			return nil, err
		}
		out = append(out, docEntry(d))
	}
	return out, nil
}

func gatherDocuments(ctx context.Context, b *memorybank.Bank, o Options, out *Candidates) error {
	type bank struct {
		scope  memorybank.Scope
		branch string
	}
	banks := []bank{{scope: memorybank.ScopeGlobal}}
	seen := map[string]bool{}
	for _, br := range slices.Concat(o.MergedBranches, o.Branches) {
		if !seen[br] {
			seen[br] = true
			banks = append(banks, bank{memorybank.ScopeBranch, br})
		}
	}
	read := map[bank][]Entry{}
	for _, bk := range banks {
		es, err := readBank(ctx, b, bk.scope, bk.branch)
		if err != nil {
			return err
		}
		read[bk] = es
		out.Documents += len(es)
		if len(es) < 2 {
			continue
		}
		ms := make([]memories.Memory, len(es))
		byID := make(map[string]int, len(es))
		for i, e := range es {
			ms[i] = memories.Memory{ID: e.Ref.Path, Title: e.Title, Tags: e.Tags, Date: e.Date, Content: e.Text}
			byID[e.Ref.Path] = i
		}
		d := memories.NearDuplicates(ms)
		pairs, clusters := d.Pairs, d.Clusters
		out.Items = append(out.Items, duplicates(clusters, pairs, byID, es)...)
		out.Items = append(out.Items, conflicts(pairs, byID, es)...)
	}
	global := map[string]Entry{}
	for _, e := range read[bank{scope: memorybank.ScopeGlobal}] {
		global[e.Ref.Path] = e
	}
	for _, br := range o.MergedBranches {
		for _, e := range read[bank{memorybank.ScopeBranch, br}] {
			g, ok := global[e.Ref.Path]
			switch {
			case !ok:
				out.Items = append(out.Items, Candidate{Kind: KindPromote, Entries: []Entry{e},
					Reason: fmt.Sprintf("branch %s is merged; the global bank has no %s", br, e.Ref.Path)})
			case g.Text != e.Text:
				out.Items = append(out.Items, Candidate{Kind: KindPromote, Entries: []Entry{e, g},
					Reason: fmt.Sprintf("branch %s is merged; its %s differs from the global bank's", br, e.Ref.Path)})
			}
		}
	}
	return nil
}
