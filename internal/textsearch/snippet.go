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
	// The window of a hit holds it and the hits after it up to the first
	// that ends more than width bytes past its start; the best window is
	// the first with the most distinct terms. Hits come in order of start,
	// so windows close in order, each when the first hit past it comes:
	// the first to close holding every term is the best, and the text after
	// it need not be analysed.
	type hit struct{ start, end, term int }
	var hits []hit
	seen := make([]int, len(terms))
	distinct := func(i, j int) int { // distinct terms of hits[i:j]
		n := 0
		for _, h := range hits[i:j] {
			if seen[h.term] != i+1 {
				seen[h.term] = i + 1
				n++
			}
		}
		return n
	}
	best, bestN, open := 0, 0, 0
	sc := snippetScanners.Get().(*scanner)
	sc.fn = func(t Token) {
		i, ok := want[string(t.Term)]
		if !ok || sc.stop {
			return
		}
		hits = append(hits, hit{t.Start, t.End, i})
		j := len(hits) - 1
		for ; open <= j && hits[j].end-hits[open].start > width; open++ {
			if n := distinct(open, j); n > bestN {
				best, bestN = open, n
				if n == len(want) {
					sc.stop = true
					return
				}
			}
		}
		if len(hits) == 10000 {
			sc.stop = true // enough to choose from
		}
	}
	sc.scan(text)
	full := sc.stop && bestN == len(want)
	sc.fn, sc.stop = nil, false
	snippetScanners.Put(sc)
	from := 0
	if len(hits) > 0 {
		if !full {
			for i := open; i < len(hits); i++ { // the windows still open
				j := i
				for j < len(hits) && hits[j].end-hits[i].start <= width {
					j++
				}
				if n := distinct(i, j); n > bestN {
					best, bestN = i, n
				}
			}
		}
		from = max(hits[best].start-width/4, 0)
	} else if at > 0 {
		from = max(min(at, len(text))-width/4, 0)
	}
	return passage(text, from, width)
}

// passage is the text of about width bytes from byte from, widened to whole
// characters, its spaces folded, with an ellipsis on each cut side.
func passage(text string, from, width int) string {
	to := min(from+width, len(text))
	for from > 0 && from < len(text) && !utf8.RuneStart(text[from]) {
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
