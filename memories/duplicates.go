package memories

import (
	"bytes"
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// Duplicates after the fact.
//
// The measure AddWith applies to a new text (Similar) is applied here to
// every pair of memories that share a rare term (see findDups), so
// memories that pile up saying the same thing are found once they are
// written. Pairs at or above SimilarThreshold are linked; a cluster is a
// connected group of linked memories.

// NumbersDifferThreshold is the similarity, numbers aside, at and above
// which two memories stating different numbers are reported as a pair
// (NumbersDiffer): lower than SimilarThreshold because the differing
// numbers are rare terms that weigh heavily in the cosine, so "the pool
// size is 20" and "the pool size is 50" score about 0.5 however alike
// the rest is. Chosen on the consolidation seeded set.
const NumbersDifferThreshold = 0.7

// Pair is two memories, A before B in file order, and their similarity.
// NumbersDiffer says the two state different numbers; Score then already
// carries numberPenalty, and RawScore is the similarity without it: two
// memories that say the same thing but for a number are a contradiction
// rather than a duplicate.
type Pair struct {
	A             string  `json:"a"`
	B             string  `json:"b"`
	Score         float64 `json:"score"`
	RawScore      float64 `json:"rawScore"`
	NumbersDiffer bool    `json:"numbersDiffer,omitempty"`
}

// Cluster is a group of memories linked by near-duplicate pairs, newest
// first (by date, then later in the file first).
type Cluster struct {
	IDs []string `json:"ids"`
}

// dupInfo is what the duplicate detector found in one index, computed
// once per file version.
type dupInfo struct {
	pairs   []Pair
	cluster []int32 // cluster[i]: the cluster of memory i, -1 when alone
	groups  [][]int // the members of each cluster, newest first
}

// dups returns the index's duplicate pairs and clusters, computing them on
// first use. Safe under the Manager's read lock: dupsMu guards it, and
// extend (under the write lock) resets it.
func (ix *index) dups() *dupInfo {
	ix.dupsMu.Lock()
	defer ix.dupsMu.Unlock()
	if ix.dupsOf == nil {
		ix.dupsOf = findDups(ix.ms)
	}
	return ix.dupsOf
}

// rareShare bounds the terms through which findDups looks for pairs:
// those held by at most max(minRare, n/rareShare) of n memories.
const (
	rareShare = 50
	minRare   = 64
)

// findDups compares every memory with the others by the measure Similar
// uses (the cosine of IDF-weighted content terms, numberPenalty when the
// numbers differ), in one pass: each memory's terms are analysed once,
// and a pair is scored only when the two share a rare term (see
// rareShare), so the cost grows with the pairs that share a name, a path
// or an identifier, not with n squared. Unlike Similar's, the weights
// count every memory once (the set as it is, not a new text against it),
// so the score of a pair is the same both ways. Two memories made only of
// common words are not compared: duplicates share the names and numbers
// their fact is about. It needs no search index: consolidation asks for
// duplicates of a file nobody searched, and pays only for this.
func findDups(ms []Memory) *dupInfo {
	n := len(ms)
	ct := analyseContent(ms)
	nterms := len(ct.digits)
	termsOf := func(i int) []int32 { return ct.terms[ct.start[i]:ct.start[i+1]] }
	numsOf := make([][]int32, n) // the ids of a memory's terms with digits, ascending
	df := make([]int32, nterms)
	for i := range n {
		for _, t := range termsOf(i) {
			df[t]++
			if ct.digits[t] {
				numsOf[i] = append(numsOf[i], t)
			}
		}
		slices.Sort(numsOf[i])
	}
	w2 := make([]float64, nterms) // squared weights
	for t, d := range df {
		w := textsearch.IDF(int(d), n)
		w2[t] = w * w
	}
	norm := make([]float64, n)
	for i := range n {
		for _, t := range termsOf(i) {
			norm[i] += w2[t]
		}
	}
	rare := int32(max(minRare, n/rareShare))
	post := make([][]int32, nterms)
	mark := make([]int32, n)     // mark[j] == i+1: j is a candidate of i
	inI := make([]int32, nterms) // inI[t] == i+1: memory i holds t
	sets := newDupSets(n)
	info := &dupInfo{}
	var cands []int32
	for i := range n {
		ids := termsOf(i)
		stamp := int32(i + 1)
		cands = cands[:0]
		for _, t := range ids {
			inI[t] = stamp
			if df[t] > rare {
				continue
			}
			for _, j := range post[t] {
				if mark[j] != stamp {
					mark[j] = stamp
					cands = append(cands, j)
				}
			}
			post[t] = append(post[t], int32(i))
		}
		for _, j := range cands {
			dot := 0.0
			for _, t := range termsOf(int(j)) {
				if inI[t] == stamp {
					dot += w2[t]
				}
			}
			if norm[i] == 0 || norm[j] == 0 {
				continue
			}
			raw := dot / math.Sqrt(norm[i]*norm[j])
			// Below SimilarThreshold a pair is kept only when its numbers
			// differ at NumbersDifferThreshold or more, which is higher: so
			// the numbers are compared only for pairs that may be kept.
			if raw < SimilarThreshold && raw < NumbersDifferThreshold {
				continue
			}
			score, differ := raw, numbersDiffer32(numsOf[i], numsOf[j])
			if differ {
				score *= numberPenalty
			}
			if score < SimilarThreshold && !(differ && raw >= NumbersDifferThreshold) {
				continue
			}
			a, b := int(j), i // j < i: file order
			info.pairs = append(info.pairs, Pair{A: ms[a].ID, B: ms[b].ID,
				Score: round3(score), RawScore: round3(raw), NumbersDiffer: differ})
			if score >= SimilarThreshold {
				sets.union(int32(a), int32(b))
			}
		}
	}
	info.group(ms, sets)
	return info
}

// dupSets joins the memories of pairs similar enough to be duplicates, so a
// cluster is a set of memories joined through such pairs.
type dupSets []int32

func newDupSets(n int) dupSets {
	s := make(dupSets, n)
	for i := range s {
		s[i] = int32(i)
	}
	return s
}

func (s dupSets) find(i int32) int32 {
	for s[i] != i {
		s[i] = s[s[i]]
		i = s[i]
	}
	return i
}

func (s dupSets) union(a, b int32) { s[s.find(a)] = s.find(b) }

// group sorts info's pairs, best first, and forms its clusters from sets,
// each cluster's members newest first.
func (info *dupInfo) group(ms []Memory, sets dupSets) {
	slices.SortFunc(info.pairs, func(x, y Pair) int {
		return cmp.Or(cmp.Compare(y.Score, x.Score), cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
	})
	members := map[int32][]int{}
	order := newestFirst(ms)
	for _, i := range order {
		r := sets.find(int32(i))
		members[r] = append(members[r], i)
	}
	info.cluster = make([]int32, len(ms))
	for i := range info.cluster {
		info.cluster[i] = -1
	}
	for _, i := range order {
		g := members[sets.find(int32(i))]
		if len(g) < 2 || info.cluster[i] >= 0 {
			continue
		}
		k := int32(len(info.groups))
		info.groups = append(info.groups, g)
		for _, j := range g {
			info.cluster[j] = k
		}
	}
}

// contentTermIDs are the distinct content terms of each of a set of
// memories (contentTerms, in order of first occurrence), as ids: memory
// i's are terms[start[i]:start[i+1]], and digits[t] says whether term t
// holds a digit.
type contentTermIDs struct {
	terms  []int32
	start  []int32
	digits []bool
}

// analyseContent analyses the content of every memory once, interning
// each term as it comes: no string is made but for a term seen for the
// first time, and no set per memory.
func analyseContent(ms []Memory) contentTermIDs {
	vocab := map[string]int32{}
	var seen []int32 // seen[t] == i+1: memory i holds term t already
	ct := contentTermIDs{start: make([]int32, 0, len(ms)+1)}
	for i := range ms {
		stamp := int32(i + 1)
		ct.start = append(ct.start, int32(len(ct.terms)))
		textsearch.Analyze(normalizedContent(ms[i].Content), func(t textsearch.Token) {
			if t.Stop {
				return
			}
			id, ok := vocab[string(t.Term)]
			if !ok {
				id = int32(len(ct.digits))
				vocab[string(t.Term)] = id
				ct.digits = append(ct.digits, bytes.ContainsAny(t.Term, "0123456789"))
				seen = append(seen, 0)
			}
			if seen[id] != stamp {
				seen[id] = stamp
				ct.terms = append(ct.terms, id)
			}
		})
	}
	ct.start = append(ct.start, int32(len(ct.terms)))
	return ct
}

// normalizedContent is NormalizeContent(s), without the copy when s is
// normalized already, as a parsed memory's content is: no carriage
// return, and no white space at either end or at the end of a line.
func normalizedContent(s string) string {
	if s == "" {
		return s
	}
	first, _ := utf8.DecodeRuneInString(s)
	last, _ := utf8.DecodeLastRuneInString(s)
	if unicode.IsSpace(first) || unicode.IsSpace(last) || strings.IndexByte(s, '\r') >= 0 {
		return NormalizeContent(s)
	}
	for k := strings.IndexByte(s, '\n'); k >= 0; {
		if r, _ := utf8.DecodeLastRuneInString(s[:k]); r != '\n' && unicode.IsSpace(r) {
			return NormalizeContent(s)
		}
		next := strings.IndexByte(s[k+1:], '\n')
		if next < 0 {
			break
		}
		k += 1 + next
	}
	return s
}

// numbersDiffer32 is numbersDiffer over sorted term ids: both hold
// numbers, and not the same ones.
func numbersDiffer32(a, b []int32) bool {
	return len(a) > 0 && len(b) > 0 && !slices.Equal(a, b)
}

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// Duplicates is what the duplicate detector found among a set of
// memories: the memories it read (file order), the pairs, most similar
// first, and the clusters.
type Duplicates struct {
	Memories []Memory  `json:"memories"`
	Pairs    []Pair    `json:"pairs"`
	Clusters []Cluster `json:"clusters"`
}

// NearDuplicates returns the pairs of memories of ms that say nearly the
// same thing (Score at least SimilarThreshold) or would but for a number
// (NumbersDiffer, RawScore at least NumbersDifferThreshold), and the
// clusters the duplicates form. It is pure: documents or any other texts
// can be compared by passing them as memories with an ID and a Content.
func NearDuplicates(ms []Memory) Duplicates {
	return findDups(ms).export(ms)
}

func (d *dupInfo) export(ms []Memory) Duplicates {
	out := Duplicates{Memories: slices.Clone(ms), Pairs: slices.Clone(d.pairs), Clusters: make([]Cluster, 0, len(d.groups))}
	if out.Pairs == nil {
		out.Pairs = []Pair{}
	}
	if out.Memories == nil {
		out.Memories = []Memory{}
	}
	for _, g := range d.groups {
		c := Cluster{IDs: make([]string, len(g))}
		for k, i := range g {
			c.IDs[k] = ms[i].ID
		}
		out.Clusters = append(out.Clusters, c)
	}
	return out
}

// NearDuplicates is the package function over the Manager's memories,
// one version of the file, computed once per version. The search index
// is not built for it: when a search built it for this version, its
// duplicates are shared; otherwise they are found from the parsed file,
// and kept for the index a later search builds. Nothing is found when
// memories are disabled.
func (m *Manager) NearDuplicates(ctx context.Context) (Duplicates, error) {
	if !m.cfg.Enabled {
		return Duplicates{Memories: []Memory{}, Pairs: []Pair{}, Clusters: []Cluster{}}, nil
	}
	ix, data, v, err := m.cachedOrLoad(ctx, "similar")
	if err != nil {
		return Duplicates{}, err
	}
	if ix != nil {
		m.mu.RLock()
		defer m.mu.RUnlock()
		return ix.dups().export(ix.ms), nil
	}
	if c := m.cachedDups(v); c != nil {
		return c.info.export(c.ms), nil
	}
	ms := Parse(data).all()
	c := &parsedDups{version: v, ms: ms, info: findDups(ms)}
	if v != "" {
		m.mu.Lock()
		m.dups = c
		m.mu.Unlock()
	}
	return c.info.export(ms), nil
}

// parsedDups are the duplicates of a version of the file found without
// the search index (see Manager.NearDuplicates).
type parsedDups struct {
	version string
	ms      []Memory
	info    *dupInfo
}

// cachedDups returns the duplicates found for version v without the
// index, if any.
func (m *Manager) cachedDups(v string) *parsedDups {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.dups != nil && v != "" && m.dups.version == v {
		return m.dups
	}
	return nil
}

// dupsState is the lazily computed duplicate information of an index.
type dupsState struct {
	dupsMu sync.Mutex
	dupsOf *dupInfo
}
