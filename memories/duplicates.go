package memories

import (
	"cmp"
	"context"
	"math"
	"slices"
	"strings"
	"sync"

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
		ix.dupsOf = ix.findDups()
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
// their fact is about.
func (ix *index) findDups() *dupInfo {
	n := len(ix.ms)
	vocab := map[string]int32{}
	var nterms int32
	termsOf := make([][]int32, n)
	numsOf := make([][]int32, n) // the ids of a memory's terms with digits, ascending
	var buf []string
	for i := range ix.ms {
		buf = contentTermsInto(buf[:0], NormalizeContent(ix.ms[i].Content))
		ids := make([]int32, len(buf))
		for k, t := range buf {
			id, ok := vocab[t]
			if !ok {
				id = nterms
				vocab[t] = id
				nterms++
			}
			ids[k] = id
			if strings.ContainsAny(t, "0123456789") {
				numsOf[i] = append(numsOf[i], id)
			}
		}
		slices.Sort(numsOf[i])
		termsOf[i] = ids
	}
	df := make([]int32, nterms)
	for _, ids := range termsOf {
		for _, t := range ids {
			df[t]++
		}
	}
	w2 := make([]float64, nterms) // squared weights
	for t, d := range df {
		w := textsearch.IDF(int(d), n)
		w2[t] = w * w
	}
	norm := make([]float64, n)
	for i, ids := range termsOf {
		for _, t := range ids {
			norm[i] += w2[t]
		}
	}
	rare := int32(max(minRare, n/rareShare))
	post := make([][]int32, nterms)
	mark := make([]int32, n)     // mark[j] == i+1: j is a candidate of i
	inI := make([]int32, nterms) // inI[t] == i+1: memory i holds t
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	info := &dupInfo{}
	var cands []int32
	for i, ids := range termsOf {
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
			for _, t := range termsOf[j] {
				if inI[t] == stamp {
					dot += w2[t]
				}
			}
			if norm[i] == 0 || norm[j] == 0 {
				continue
			}
			raw := dot / math.Sqrt(norm[i]*norm[j])
			score, differ := raw, numbersDiffer32(numsOf[i], numsOf[j])
			if differ {
				score *= numberPenalty
			}
			if score < SimilarThreshold && !(differ && raw >= NumbersDifferThreshold) {
				continue
			}
			a, b := int(j), i // j < i: file order
			info.pairs = append(info.pairs, Pair{A: ix.ms[a].ID, B: ix.ms[b].ID,
				Score: round3(score), RawScore: round3(raw), NumbersDiffer: differ})
			if score >= SimilarThreshold {
				parent[find(int32(a))] = find(int32(b))
			}
		}
	}
	slices.SortFunc(info.pairs, func(x, y Pair) int {
		return cmp.Or(cmp.Compare(y.Score, x.Score), cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
	})
	members := map[int32][]int{}
	order := newestFirst(ix.ms)
	for _, i := range order {
		r := find(int32(i))
		members[r] = append(members[r], i)
	}
	info.cluster = make([]int32, n)
	for i := range info.cluster {
		info.cluster[i] = -1
	}
	for _, i := range order {
		g := members[find(int32(i))]
		if len(g) < 2 || info.cluster[i] >= 0 {
			continue
		}
		k := int32(len(info.groups))
		info.groups = append(info.groups, g)
		for _, j := range g {
			info.cluster[j] = k
		}
	}
	return info
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
	ix := newIndex("", ms)
	return ix.dups().export(ix)
}

func (d *dupInfo) export(ix *index) Duplicates {
	out := Duplicates{Memories: slices.Clone(ix.ms), Pairs: slices.Clone(d.pairs), Clusters: make([]Cluster, 0, len(d.groups))}
	if out.Pairs == nil {
		out.Pairs = []Pair{}
	}
	if out.Memories == nil {
		out.Memories = []Memory{}
	}
	for _, g := range d.groups {
		c := Cluster{IDs: make([]string, len(g))}
		for k, i := range g {
			c.IDs[k] = ix.ms[i].ID
		}
		out.Clusters = append(out.Clusters, c)
	}
	return out
}

// NearDuplicates is the package function over the Manager's memories,
// one version of the file, computed once per version (searches share the
// index). Nothing is found when memories are disabled.
func (m *Manager) NearDuplicates(ctx context.Context) (Duplicates, error) {
	if !m.cfg.Enabled {
		return Duplicates{Memories: []Memory{}, Pairs: []Pair{}, Clusters: []Cluster{}}, nil
	}
	ix, done, err := m.indexed(ctx, "similar")
	if err != nil {
		return Duplicates{}, err
	}
	defer done()
	return ix.dups().export(ix), nil
}

// dupsState is the lazily computed duplicate information of an index.
type dupsState struct {
	dupsMu sync.Mutex
	dupsOf *dupInfo
}
