package textsearch

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

var testParams = Params{Fields: []Field{{"title", 2, 0.5}, {"body", 1, 0.75}}}

func newTestIndex(t testing.TB) *Index[string] {
	ix, err := NewIndex[string](testParams, Analyzer{})
	require.NoError(t, err)
	return ix
}

func keys(hs []Hit[string]) []string {
	var out []string
	for _, h := range hs {
		out = append(out, h.Key)
	}
	return out
}

func TestIndexRanks(t *testing.T) {
	ix := newTestIndex(t)
	require.NoError(t, ix.Add("title", "Adapter errors", "wrap every call"))
	require.NoError(t, ix.Add("body", "Notes", "the adapter errors are logged and the loop goes on with the next adapter in the list"))
	require.NoError(t, ix.Add("other", "Release", "tag the release and push"))
	less := func(a, b string) bool { return a < b }
	assert.Equal(t, []string{"title", "body"}, keys(ix.Top(QueryTerms("how are adapter errors handled"), 0, less)))
	assert.Equal(t, []string{"title"}, keys(ix.Top(QueryTerms("adapter"), 1, less)))
	assert.Empty(t, ix.Top(QueryTerms("nothing like it"), 0, less))

	// Replace and remove.
	require.NoError(t, ix.Add("title", "Release checklist", "bump the version"))
	assert.Equal(t, []string{"body"}, keys(ix.Top(QueryTerms("adapter"), 0, less)))
	assert.Equal(t, []string{"other", "title"}, keys(ix.Top(QueryTerms("release"), 0, less)), "in the title and the body beats the title alone")
	ix.Remove("other")
	ix.Remove("missing")
	assert.Equal(t, []string{"title"}, keys(ix.Top(QueryTerms("release"), 0, less)))
	assert.Equal(t, 2, ix.Len())
}

func TestIndexRejectsBadParams(t *testing.T) {
	for _, p := range []Params{{}, {Fields: []Field{{"a", 1, 2}}}, {Fields: []Field{{"a", -1, 0}}}, {Fields: make([]Field, MaxFields+1)}, {Fields: []Field{{"a", 1, 0}}, K1: -1}} {
		_, err := NewIndex[int](p, Analyzer{})
		assert.ErrorIs(t, err, ErrParams, "%+v", p)
	}
	ix := newTestIndex(t)
	assert.ErrorIs(t, ix.Add("k", "a", "b", "c"), ErrParams)
}

// Scores after many removals (compaction) equal those of an index built
// from the survivors alone, and two indexes scored with merged statistics
// score as one index holding both.
func TestIndexCompactionAndMergedStats(t *testing.T) {
	churned, fresh := newTestIndex(t), newTestIndex(t)
	for i := range 3000 {
		require.NoError(t, churned.Add(fmt.Sprint(i), fmt.Sprintf("note %d", i), fmt.Sprintf("word%d shared text %d", i%7, i)))
	}
	for i := range 3000 {
		if i%5 != 0 {
			churned.Remove(fmt.Sprint(i))
		} else {
			require.NoError(t, fresh.Add(fmt.Sprint(i), fmt.Sprintf("note %d", i), fmt.Sprintf("word%d shared text %d", i%7, i)))
		}
	}
	q := QueryTerms("word3 shared")
	score := func(ix *Index[string], st *Stats) map[string]float64 {
		out := map[string]float64{}
		ix.Each(q, st, func(k string, s float64) { out[k] = s })
		return out
	}
	want := score(fresh, nil)
	got := score(churned, nil)
	require.Len(t, got, len(want))
	for k, s := range want {
		assert.InDelta(t, s, got[k], 1e-9, k)
	}

	a, b := newTestIndex(t), newTestIndex(t)
	for i := range 600 {
		ix := a
		if i%2 == 1 {
			ix = b
		}
		require.NoError(t, ix.Add(fmt.Sprint(i*5), fmt.Sprintf("note %d", i*5), fmt.Sprintf("word%d shared text %d", (i*5)%7, i*5)))
	}
	st := a.Stats(q)
	st.Merge(b.Stats(q))
	merged := score(a, &st)
	for k, s := range score(b, &st) {
		merged[k] = s
	}
	require.Len(t, merged, len(want))
	for k, s := range want {
		assert.InDelta(t, s, merged[k], 1e-9, k)
	}
}

func TestTopN(t *testing.T) {
	better := func(a, b int) bool { return a > b }
	for _, tc := range []struct {
		in    []int
		limit int
		want  []int
	}{
		{[]int{3, 1, 4, 1, 5, 9, 2, 6}, 3, []int{9, 6, 5}},
		{[]int{3, 1, 4}, 0, []int{4, 3, 1}},
		{[]int{3, 1, 4}, 10, []int{4, 3, 1}},
		{nil, 5, nil},
	} {
		assert.Equal(t, tc.want, TopN(append([]int(nil), tc.in...), tc.limit, better), "%v limit %d", tc.in, tc.limit)
	}
}
