package textsearch

import (
	"strings"
	"sync"
	"unicode/utf8"
)

// snippetScanners analyse the texts of snippets with the default
// Analyzer, each remembering the words it saw (a page of hits shares most
// of its words, and the next search's pages too), so a word is analysed
// once rather than once an occurrence.
var snippetScanners = sync.Pool{New: func() any { return &scanner{memo: map[string]*memoWord{}} }}

// Snippet returns the passage of about width bytes of text holding the
// most distinct terms (as QueryTerms gives them), cut at character
// boundaries, white space collapsed, with "…" where text was cut. Without
// any term in text, the passage starts at the byte offset at (clamped; the
// caller's substring match), or at the beginning for at < 0.
func Snippet(text string, terms []string, width, at int) string {
	if width <= 0 {
		width = 160
	}
	want := make(map[string]int, len(terms))
	for i, t := range terms {
		want[t] = i
	}
	type hit struct{ start, end, term int }
	var hits []hit
	sc := snippetScanners.Get().(*scanner)
	sc.fn = func(t Token) {
		if i, ok := want[string(t.Term)]; ok && len(hits) < 10000 {
			hits = append(hits, hit{t.Start, t.End, i})
		}
	}
	sc.scan(text)
	sc.fn = nil
	snippetScanners.Put(sc)
	from := 0
	if len(hits) > 0 {
		best, bestN := 0, 0
		seen := make([]int, len(terms))
		for i := range hits {
			n := 0 // distinct terms in the window starting at hits[i]
			for j := i; j < len(hits) && hits[j].end-hits[i].start <= width; j++ {
				if seen[hits[j].term] != i+1 {
					seen[hits[j].term] = i + 1
					n++
				}
			}
			if n > bestN {
				best, bestN = i, n
			}
		}
		from = max(hits[best].start-width/4, 0)
	} else if at > 0 {
		from = max(min(at, len(text))-width/4, 0)
	}
	to := min(from+width, len(text))
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	s := strings.Join(strings.Fields(text[from:to]), " ")
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return s
}
