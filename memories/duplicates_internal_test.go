package memories

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// dupCorpus is a set with duplicates, number conflicts and texts that
// need normalising: the labelled pairs, each also written again with a
// carriage return, trailing white space and another number, among the
// conversation's remarks and a varied generated set.
func dupCorpus(t testing.TB) []Memory {
	ms, _ := loadDialogue(t)
	ms = append(ms, variedCorpus(1500, 11)...)
	for k, p := range loadPairs(t) {
		variants := []string{p.add, p.old, strings.Replace(p.old, " ", " \r\n", 1) + " \u00a0",
			strings.Replace(p.old, " ", "Cfg\u00a0\n", 1), "  " + p.old + " 42", p.old + " 43"}
		for v, text := range variants {
			ms = append(ms, Memory{ID: fmt.Sprintf("pair-%d-%d", k, v), Title: MakeTitle(text), Content: text, Date: "2026-01-02"})
		}
	}
	return ms
}

// The one-pass duplicate detector finds what comparing the analysed
// terms as strings finds, pair for pair, score for score, cluster for
// cluster.
func TestFindDupsMatchesPlainComparison(t *testing.T) {
	ms := dupCorpus(t)
	got, want := findDups(ms), plainDups(ms)
	require.Greater(t, len(want.pairs), 100, "the corpus has duplicates to find")
	require.NotEmpty(t, want.groups)
	require.True(t, slices.ContainsFunc(want.pairs, func(p Pair) bool {
		return p.NumbersDiffer && p.RawScore < NumbersDifferThreshold+0.05
	}), "pairs differing by a number, near the threshold")
	ct := analyseContent(ms)
	vocab := map[int32]string{}
	for i, m := range ms {
		want := contentTerms(NormalizeContent(m.Content))
		got := ct.terms[ct.start[i]:ct.start[i+1]]
		require.Len(t, got, len(want), "%q", m.Content)
		for k, id := range got {
			if s, ok := vocab[id]; ok {
				require.Equal(t, want[k], s, "%q", m.Content)
			}
			vocab[id] = want[k]
			require.Equal(t, strings.ContainsAny(want[k], "0123456789"), ct.digits[id])
		}
	}
	assert.Equal(t, want.pairs, got.pairs)
	assert.Equal(t, want.groups, got.groups)
	assert.Equal(t, want.cluster, got.cluster)
}

// plainDups is findDups as first written: each memory's content
// normalised, analysed into a set of strings, then interned.
func plainDups(ms []Memory) *dupInfo {
	n := len(ms)
	vocab := map[string]int32{}
	var nterms int32
	termsOf := make([][]int32, n)
	numsOf := make([][]int32, n)
	for i := range ms {
		terms := contentTerms(NormalizeContent(ms[i].Content))
		ids := make([]int32, len(terms))
		for k, t := range terms {
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
	w2 := make([]float64, nterms)
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
	sets := newDupSets(n)
	info := &dupInfo{}
	for i, ids := range termsOf {
		in := map[int32]bool{}
		cands := map[int32]bool{}
		var order []int32
		for _, t := range ids {
			in[t] = true
			if df[t] > rare {
				continue
			}
			for _, j := range post[t] {
				if !cands[j] {
					cands[j] = true
					order = append(order, j)
				}
			}
			post[t] = append(post[t], int32(i))
		}
		for _, j := range order {
			dot := 0.0
			for _, t := range termsOf[j] {
				if in[t] {
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
			info.pairs = append(info.pairs, Pair{A: ms[j].ID, B: ms[i].ID,
				Score: round3(score), RawScore: round3(raw), NumbersDiffer: differ})
			if score >= SimilarThreshold {
				sets.union(j, int32(i))
			}
		}
	}
	info.group(ms, sets)
	return info
}

var normalizeCases = []string{"", "a", " a", "a ", "a\nb", "a \nb", "a\n\nb", "a\n \nb", "a\r\nb", "a\rb",
	"a\u00a0", "a\u00a0\nb", "\u2028a", "a\u2028", "é\n", "a\n", "\na", "x\n\n\n  y", "ab\t\ncd", "日本\u3000\n語"}

// normalizedContent skips the copy only when NormalizeContent would
// change nothing.
func TestNormalizedContent(t *testing.T) {
	for _, s := range normalizeCases {
		assert.Equal(t, NormalizeContent(s), normalizedContent(s), "%q", s)
	}
}

func FuzzNormalizedContent(f *testing.F) {
	for _, s := range normalizeCases {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if want, got := NormalizeContent(s), normalizedContent(s); want != got {
			t.Fatalf("normalizedContent(%q) = %q, want %q", s, got, want)
		}
	})
}

// A Manager finds duplicates without building the search index and keeps
// them; the index a later search builds of the same version takes them
// over, and a Manager that searched first finds the same.
func TestManagerDuplicatesWithoutIndex(t *testing.T) {
	ctx := t.Context()
	data := []byte(Header)
	for _, mem := range dupCorpus(t)[:600] {
		entry, err := EncodeEntry(mem)
		require.NoError(t, err)
		data = append(data, entry...)
	}
	store := new(MemStore)
	_, err := store.Save(ctx, data, "")
	require.NoError(t, err)

	m, err := New(store, nil)
	require.NoError(t, err)
	first, err := m.NearDuplicates(ctx)
	require.NoError(t, err)
	require.NotEmpty(t, first.Clusters)
	assert.Nil(t, m.ix, "no search index was built")
	require.NotNil(t, m.dups)
	info := m.dups.info

	_, err = m.Search(ctx, "agent")
	require.NoError(t, err)
	require.NotNil(t, m.ix)
	assert.Same(t, info, m.ix.dupsOf, "the index took over the duplicates")
	again, err := m.NearDuplicates(ctx)
	require.NoError(t, err)
	assert.Equal(t, first, again)

	searched, err := New(store, nil)
	require.NoError(t, err)
	_, err = searched.Search(ctx, "agent")
	require.NoError(t, err)
	viaIndex, err := searched.NearDuplicates(ctx)
	require.NoError(t, err)
	assert.Equal(t, first, viaIndex)
}
