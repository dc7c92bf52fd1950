package memories

import (
	"cmp"
	"slices"

	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// Fold returns s folded for matching: Unicode compatibility normalisation
// (NFKC: composed and decomposed "café" alike, full-width ASCII and the
// ideographic space as ASCII, half-width katakana as full-width with their
// sound marks composed, "ﬁ" as "fi", "①" as "1") and full case folding
// ("Straße" as "strasse"), as golang.org/x/text implements them. It is
// the one fold of mnemobank's search (internal/textsearch.Fold).
func Fold(s string) string { return textsearch.Fold(s) }

// Search limits.
const (
	// DefaultSearchLimit is the number of hits of a SearchRequest without
	// a Limit.
	DefaultSearchLimit = 10
	// MaxSearchLimit bounds SearchRequest.Limit.
	MaxSearchLimit = 100
)

// SearchRequest is a search of the memories (Manager.Find).
type SearchRequest struct {
	// Query is what to look for: a few words or a sentence, at most
	// MaxQueryBytes. Empty: every memory, newest first.
	Query string
	// Limit is the most hits returned: 0 means DefaultSearchLimit; over
	// MaxSearchLimit (or negative) is a *LimitError.
	Limit int
}

// Hit is a memory found by a search.
type Hit struct {
	Memory
	// Score is the BM25F relevance of the memory to the query (0 for a
	// memory matched only as a substring, or by an empty query). Scores
	// compare within one search only.
	Score float64 `json:"score"`
	// Substring is true when the memory holds every word of the query as a
	// substring: the matches a plain substring search finds, which come
	// before all others.
	Substring bool `json:"substring"`
	// Snippet is the passage of the content, about 160 bytes, holding the
	// most query terms, with "…" where it was cut.
	Snippet string `json:"snippet"`
}

// SearchResult is the outcome of Manager.Find.
type SearchResult struct {
	Hits []Hit `json:"hits"`
	// Total is the number of memories that match, Hits included: Total -
	// len(Hits) more are beyond the limit.
	Total int `json:"total"`
}

// Match returns the memories of ms (given in file order) that match query,
// best first: those holding every word of the folded query as a
// substring of their title, a tag or their content first, then every
// other memory sharing a term with the query (see "Relevance" in rank.go),
// each group ranked by BM25F; ties go to newer dates, then to entries
// later in the file. An empty query matches every memory, newest first.
// Match is pure; ms is not modified.
func Match(ms []Memory, query string) []Memory {
	ix := newIndex("", ms)
	r, _ := ix.rank(query, 0)
	return ix.memories(r)
}

// newestFirst returns the indexes of ms ordered by date, newest first, then
// by position, later first.
func newestFirst(ms []Memory) []int {
	idx := make([]int, len(ms))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int {
		return cmp.Or(cmp.Compare(ms[b].Date, ms[a].Date), cmp.Compare(b, a))
	})
	return idx
}
