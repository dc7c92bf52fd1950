package memories

import (
	"bytes"
	"cmp"
	"math"
	"slices"
	"strings"
)

// Relevance.
//
// A memory matches a query when every query term (the folded query split at
// white space) occurs in its folded title, a tag or its content, as a
// substring: exactly the matches a plain substring search finds. Matches
// are then ranked by BM25F, the ranking memorybank's full-text search uses:
// each term weighs by how rare it is among the memories (inverse document
// frequency), and by how often it occurs in each field, with field weights
// (title and tags 3, content 1) and length normalisation, so a term in a
// short title beats the same term deep in a long note. Ties go to the
// newer memory, then the later one in the file.

// BM25F parameters.
const (
	bm25K1       = 1.2
	bm25B        = 0.75
	weightTitle  = 3.0
	weightTags   = 3.0
	weightBody   = 1.0
	minTermScore = 1e-9
)

// index is the folded text of a file's memories, built once per version of
// the file, so a search does not parse and fold the file again. The fields
// of every memory are laid end to end in one buffer (separated by a zero
// byte, which folded text never holds), so a term is looked for in one
// pass over the buffer, not once per memory.
type index struct {
	version string // the store's version ("" for a file that does not exist)
	ms      []Memory
	text    []byte
	starts  []int      // starts[3*i+f]: offset of field f (title, tags, body) of memory i
	avg     [3]float64 // average field lengths
}

func newIndex(version string, ms []Memory) *index {
	ix := &index{version: version, ms: ms, starts: make([]int, 0, 3*len(ms)+1)}
	var f folder
	var sum [3]int
	for i := range ms {
		m := &ms[i]
		for field := range 3 {
			ix.starts = append(ix.starts, len(ix.text))
			switch field {
			case 0:
				ix.text = f.appendFold(ix.text, m.Title)
			case 1:
				for k, tag := range m.Tags {
					if k > 0 {
						ix.text = append(ix.text, '\n')
					}
					ix.text = f.appendFold(ix.text, tag)
				}
			case 2:
				ix.text = f.appendFold(ix.text, m.Content)
			}
			sum[field] += len(ix.text) - ix.starts[len(ix.starts)-1]
			ix.text = append(ix.text, 0)
		}
	}
	ix.starts = append(ix.starts, len(ix.text))
	for k := range sum {
		ix.avg[k] = math.Max(1, float64(sum[k])/math.Max(1, float64(len(ms))))
	}
	return ix
}

// fieldLen is the length of field f of memory i.
func (ix *index) fieldLen(i, f int) int { return ix.starts[3*i+f+1] - ix.starts[3*i+f] - 1 }

// occurrences counts term in every field: counts[i][f] for memory i.
func (ix *index) occurrences(term []byte) map[int]*[3]int {
	out := map[int]*[3]int{}
	if len(term) == 0 {
		return out
	}
	for at := 0; ; {
		k := bytes.Index(ix.text[at:], term)
		if k < 0 {
			return out
		}
		pos := at + k
		slot, _ := slices.BinarySearch(ix.starts, pos+1)
		slot-- // the field holding pos
		c := out[slot/3]
		if c == nil {
			c = new([3]int)
			out[slot/3] = c
		}
		c[slot%3]++
		at = pos + 1
	}
}

// termScore is BM25F's contribution of a term found c times in memory i,
// with document frequency df among n memories.
func (ix *index) termScore(i int, c *[3]int, df int) float64 {
	weights := [3]float64{weightTitle, weightTags, weightBody}
	w := 0.0
	for f := range 3 {
		w += weights[f] * float64(c[f]) / (1 - bm25B + bm25B*float64(ix.fieldLen(i, f))/ix.avg[f])
	}
	n := float64(len(ix.ms))
	idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
	return math.Max(minTermScore, idf*w*(bm25K1+1)/(w+bm25K1))
}

// scored is a match and its relevance.
type scored struct {
	i     int
	score float64
}

// rank returns the memories matching query, best first. An empty query
// matches every memory, newest first.
func (ix *index) rank(query string) []scored {
	var terms [][]byte
	for _, t := range strings.Fields(Fold(query)) {
		terms = append(terms, []byte(t))
	}
	if len(terms) == 0 {
		order := newestFirst(ix.ms)
		out := make([]scored, len(order))
		for k, i := range order {
			out[k] = scored{i: i}
		}
		return out
	}
	var score map[int]float64
	for _, t := range terms {
		occ := ix.occurrences(t)
		next := make(map[int]float64, len(occ))
		for i, c := range occ {
			if prev, ok := score[i]; ok || score == nil {
				next[i] = prev + ix.termScore(i, c, len(occ))
			}
		}
		score = next
		if len(score) == 0 {
			return nil
		}
	}
	out := make([]scored, 0, len(score))
	for i, s := range score {
		out = append(out, scored{i: i, score: s})
	}
	slices.SortFunc(out, func(a, b scored) int {
		return cmp.Or(
			cmp.Compare(b.score, a.score),
			cmp.Compare(ix.ms[b.i].Date, ix.ms[a.i].Date),
			cmp.Compare(b.i, a.i))
	})
	return out
}

// memories returns copies of the memories at the given ranks.
func (ix *index) memories(r []scored) []Memory {
	out := make([]Memory, len(r))
	for k, s := range r {
		out[k] = ix.ms[s.i]
		out[k].Tags = slices.Clone(out[k].Tags)
	}
	return out
}

// maxPromptTerms bounds the words of a prompt used to rank memories for an
// injection, longest first: enough to find what a prompt is about.
const maxPromptTerms = 32

// stopWords are English words too common in prompts to say what a prompt
// is about (CJK prompts have no spaces: their runs are kept whole).
var stopWords = map[string]bool{
	"the": true, "and": true, "for": true, "with": true, "that": true, "this": true, "from": true, "are": true,
	"was": true, "were": true, "you": true, "your": true, "our": true, "please": true, "into": true, "not": true,
	"but": true, "can": true, "will": true, "all": true, "any": true, "has": true, "have": true, "had": true,
	"its": true, "what": true, "when": true, "how": true, "why": true, "then": true, "there": true, "them": true,
	"they": true, "should": true, "would": true, "could": true, "about": true, "also": true, "just": true,
}

// relevantFirst orders every memory for an injection: those sharing any
// word (of three or more bytes, folded) with prompt first, by BM25F over
// the words they hold, then the rest newest first. ranked is false when no
// memory shares a word, so the order is newest first throughout.
func (ix *index) relevantFirst(prompt string) (order []int, ranked bool) {
	seen := map[string]bool{}
	var words []string
	for _, w := range strings.Fields(Fold(prompt)) {
		w = strings.Trim(w, ".,;:!?()[]{}\"'`")
		if len(w) >= 3 && !seen[w] && !stopWords[w] {
			seen[w] = true
			words = append(words, w)
		}
	}
	slices.SortStableFunc(words, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	words = words[:min(len(words), maxPromptTerms)]
	score := make([]float64, len(ix.ms))
	for _, w := range words {
		occ := ix.occurrences([]byte(w))
		for i, c := range occ {
			score[i] += ix.termScore(i, c, len(occ))
			ranked = true
		}
	}
	order = newestFirst(ix.ms)
	if ranked {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	}
	return order, ranked
}
