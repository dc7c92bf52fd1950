package memories

import (
	"cmp"
	"context"
	"math"
	"slices"
	"sync"
)

// Duplicates after the fact.
//
// The detector AddWith runs on a new text (Similar) is run here on every
// memory against the others, so memories that pile up saying the same
// thing are found once they are written. Each memory is compared as if it
// were new (its own terms counted once more among the memories), so the
// scores are those AddWith would have reported and SimilarThreshold keeps
// its measured precision. Pairs at or above it are linked; a cluster is a
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

func (ix *index) findDups() *dupInfo {
	n := len(ix.ms)
	parent := make([]int32, n)
	for i := range parent {
		parent[i] = int32(i)
	}
	var find func(i int32) int32
	find = func(i int32) int32 {
		for parent[i] != i {
			parent[i] = parent[parent[i]]
			i = parent[i]
		}
		return i
	}
	info := &dupInfo{}
	seen := map[[2]int]bool{}
	for i := range ix.ms {
		for _, c := range ix.similarities(NormalizeContent(ix.ms[i].Content)) {
			if c.i == i {
				continue
			}
			a, b := min(i, c.i), max(i, c.i)
			raw := c.score
			if c.numbersDiffer {
				raw = c.score / numberPenalty
			}
			keep := c.score >= SimilarThreshold || c.numbersDiffer && raw >= NumbersDifferThreshold
			if !keep || seen[[2]int{a, b}] {
				continue
			}
			seen[[2]int{a, b}] = true
			info.pairs = append(info.pairs, Pair{A: ix.ms[a].ID, B: ix.ms[b].ID,
				Score: round3(c.score), RawScore: round3(raw), NumbersDiffer: c.numbersDiffer})
			if c.score >= SimilarThreshold {
				parent[find(int32(a))] = find(int32(b))
			}
		}
	}
	slices.SortFunc(info.pairs, func(x, y Pair) int {
		return cmp.Or(cmp.Compare(y.Score, x.Score), cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
	})
	members := map[int32][]int{}
	for _, i := range newestFirst(ix.ms) {
		r := find(int32(i))
		members[r] = append(members[r], i)
	}
	info.cluster = make([]int32, n)
	for i := range info.cluster {
		info.cluster[i] = -1
	}
	for _, i := range newestFirst(ix.ms) {
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

func round3(f float64) float64 { return math.Round(f*1000) / 1000 }

// NearDuplicates returns the pairs of memories of ms that say nearly the
// same thing (Score at least SimilarThreshold) or would but for a number
// (NumbersDiffer, RawScore at least NumbersDifferThreshold), most similar first,
// and the clusters the duplicates form. It is pure: documents or any other
// texts can be compared by passing them as memories with an ID and a
// Content.
func NearDuplicates(ms []Memory) ([]Pair, []Cluster) {
	ix := newIndex("", ms)
	return ix.dups().export(ix)
}

func (d *dupInfo) export(ix *index) ([]Pair, []Cluster) {
	pairs := slices.Clone(d.pairs)
	if pairs == nil {
		pairs = []Pair{}
	}
	cs := make([]Cluster, 0, len(d.groups))
	for _, g := range d.groups {
		c := Cluster{IDs: make([]string, len(g))}
		for k, i := range g {
			c.IDs[k] = ix.ms[i].ID
		}
		cs = append(cs, c)
	}
	return pairs, cs
}

// NearDuplicates is the package function over the Manager's memories,
// computed once per version of the file (searches share the index).
// Nothing is found when memories are disabled.
func (m *Manager) NearDuplicates(ctx context.Context) ([]Pair, []Cluster, error) {
	if !m.cfg.Enabled {
		return []Pair{}, []Cluster{}, nil
	}
	ix, done, err := m.indexed(ctx, "similar")
	if err != nil {
		return nil, nil, err
	}
	defer done()
	p, c := ix.dups().export(ix)
	return p, c, nil
}

// dupsState is the lazily computed duplicate information of an index.
type dupsState struct {
	dupsMu sync.Mutex
	dupsOf *dupInfo
}
