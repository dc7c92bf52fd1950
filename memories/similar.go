package memories

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// Near-duplicates.
//
// Two texts say nearly the same thing when their content terms (folded,
// stemmed, function words dropped) mostly coincide, each term weighed by
// its rarity among the memories: the cosine of their IDF-weighted term
// sets. A different number, name or rare word lowers it more than a
// different common word, so "the pool size is 20" and "the pool size is
// 50" stay apart while rephrasings of one fact meet; two texts stating
// different numbers count half (numberPenalty). The candidates are
// the memories BM25 ranks best for the new text; SimilarThreshold was
// chosen on a labelled set of pairs (TestSimilarDetector).

// SimilarThreshold is the similarity (0 to 1) at and above which a memory
// is reported as saying nearly the same thing as a new one: on the
// labelled pairs of testdata/similar, precision 0.97 and recall 0.89 (0.5
// would give 0.94 and 0.94; a false alarm blocks an add, so precision
// comes first).
const SimilarThreshold = 0.6

// similarCandidates bounds the memories compared with a new text.
const similarCandidates = 20

// Similar is an existing memory that says nearly the same thing as a
// text, and how similar it is (SimilarThreshold to 1).
type Similar struct {
	ID    string  `json:"id"`
	Score float64 `json:"score"`
}

// ErrSimilar: Add was asked to add a memory only if none says nearly the
// same thing (AddOptions.IfNoSimilar), and one does.
var ErrSimilar = errors.New("memories: a memory saying nearly the same thing exists")

// SimilarError reports the memories that made AddWith refuse a memory. It
// unwraps to ErrSimilar.
type SimilarError struct {
	Similar []Similar
	Titles  []string // the title of each, for the message
}

func (e *SimilarError) Error() string {
	var b strings.Builder
	b.WriteString(ErrSimilar.Error())
	for i, s := range e.Similar {
		if i == 0 {
			b.WriteString(": ")
		} else {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s (similarity %.2f, %s)", s.ID, s.Score, quote(e.Titles[i]))
	}
	b.WriteString("; nothing was written: delete or keep the existing memory, or add without IfNoSimilar")
	return b.String()
}

func (e *SimilarError) Unwrap() error { return ErrSimilar }

// AddOptions are the options of AddWith.
type AddOptions struct {
	// Tags as for Add.
	Tags []string
	// IfNoSimilar refuses to add a memory when an existing one says
	// nearly the same thing: AddWith writes nothing and returns a
	// *SimilarError (ErrSimilar) naming it.
	IfNoSimilar bool
}

// AddResult is what AddWith added, and the existing memories that say
// nearly the same thing, most similar first.
type AddResult struct {
	Memory  Memory    `json:"memory"`
	Similar []Similar `json:"similar"`
}

// AddWith is Add that also reports the existing memories saying nearly the
// same thing as content (see Similar), and with opts.IfNoSimilar refuses
// to add when there are any. Unlike Add it reads the file (indexed once
// per version, as Search does). Two concurrent AddWith calls of the same
// text may both add it: the check and the append are not one atomic step.
func (m *Manager) AddWith(ctx context.Context, content string, opts AddOptions) (AddResult, error) {
	if err := checkAdd(content, opts.Tags); err != nil {
		return AddResult{}, err
	}
	if !m.cfg.Enabled {
		return AddResult{}, &OpError{Op: "add", Err: ErrDisabled, Detail: "Config.Enabled is false; nothing was written"}
	}
	ix, done, err := m.indexed(ctx, "add")
	if err != nil {
		return AddResult{}, err
	}
	sim := ix.similar(NormalizeContent(content))
	if opts.IfNoSimilar && len(sim) > 0 {
		se := &SimilarError{Similar: sim}
		for _, s := range sim {
			title := ""
			if k := slices.IndexFunc(ix.ms, func(mem Memory) bool { return mem.ID == s.ID }); k >= 0 {
				title = ix.ms[k].Title
			}
			se.Titles = append(se.Titles, title)
		}
		done()
		return AddResult{Similar: sim}, &OpError{Op: "add", Err: se}
	}
	done() // Add may extend the index
	mem, err := m.Add(ctx, content, opts.Tags...)
	if err != nil {
		return AddResult{}, err
	}
	if sim == nil {
		sim = []Similar{}
	}
	return AddResult{Memory: mem, Similar: sim}, nil
}

// Similar returns the memories that say nearly the same thing as content,
// most similar first ([] when none, nil when memories are disabled).
func (m *Manager) Similar(ctx context.Context, content string) ([]Similar, error) {
	if err := checkLen("similar", "content", content, MaxContentBytes); err != nil {
		return nil, err
	}
	if !m.cfg.Enabled {
		return nil, nil
	}
	ix, done, err := m.indexed(ctx, "similar")
	if err != nil {
		return nil, err
	}
	defer done()
	sim := ix.similar(NormalizeContent(content))
	if sim == nil {
		sim = []Similar{}
	}
	return sim, nil
}

// similar returns the memories whose similarity to text is at least
// SimilarThreshold, most similar first.
func (ix *index) similar(text string) []Similar {
	var out []Similar
	for _, c := range ix.similarities(text) {
		if c.score >= SimilarThreshold {
			out = append(out, Similar{ID: ix.ms[c.i].ID, Score: math.Round(c.score*1000) / 1000})
		}
	}
	return out
}

// similarities returns the best candidates for text with their
// similarity, most similar first.
func (ix *index) similarities(text string) []scored {
	terms := contentTerms(text)
	if len(terms) == 0 {
		return nil
	}
	st := ix.terms.Stats(terms)
	n := st.N + 1 // the collection with text in it
	idf := make(map[string]float64, len(terms))
	normA := 0.0
	for k, t := range terms {
		w := textsearch.IDF(st.DF[k]+1, n)
		idf[t] = w
		normA += w * w
	}
	var cands []scored
	ix.terms.Each(terms, &st, func(i int, s float64) { cands = append(cands, scored{i: i, score: s}) })
	cands = textsearch.TopN(cands, similarCandidates, ix.better)
	var other []string
	for k := range cands {
		c := &cands[k]
		other = contentTermsInto(other[:0], ix.ms[c.i].Content)
		ost := ix.terms.Stats(other)
		dot, normB := 0.0, 0.0
		for j, t := range other {
			w, shared := idf[t]
			if !shared {
				w = textsearch.IDF(ost.DF[j], n)
			} else {
				dot += w * w
			}
			normB += w * w
		}
		c.score = 0
		if normA > 0 && normB > 0 {
			c.score = dot / math.Sqrt(normA*normB)
		}
		if numbersDiffer(terms, other) {
			c.score *= numberPenalty
			c.numbersDiffer = true
		}
	}
	slices.SortStableFunc(cands, func(a, b scored) int {
		switch {
		case a.score > b.score:
			return -1
		case a.score < b.score:
			return 1
		}
		return 0
	})
	return cands
}

// numberPenalty scales the similarity of two texts that both state numbers
// and do not state the same ones: "20 connections" and "40 connections"
// are two facts, however many words they share.
const numberPenalty = 0.5

// numbersDiffer reports whether a and b both hold terms with digits and
// one of them holds such a term the other lacks.
func numbersDiffer(a, b []string) bool {
	na, nb := numberTerms(a), numberTerms(b)
	if len(na) == 0 || len(nb) == 0 {
		return false
	}
	for t := range na {
		if !nb[t] {
			return true
		}
	}
	for t := range nb {
		if !na[t] {
			return true
		}
	}
	return false
}

func numberTerms(terms []string) map[string]bool {
	var out map[string]bool
	for _, t := range terms {
		if strings.ContainsAny(t, "0123456789") {
			if out == nil {
				out = map[string]bool{}
			}
			out[t] = true
		}
	}
	return out
}

// contentTerms returns the distinct terms of text but its function words.
func contentTerms(text string) []string { return contentTermsInto(nil, text) }

func contentTermsInto(dst []string, text string) []string {
	seen := map[string]bool{}
	textsearch.Analyze(text, func(t textsearch.Token) {
		if !t.Stop && !seen[string(t.Term)] {
			seen[string(t.Term)] = true
			dst = append(dst, string(t.Term))
		}
	})
	return dst
}
