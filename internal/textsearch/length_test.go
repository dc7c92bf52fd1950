package textsearch

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAdaptiveB(t *testing.T) {
	for _, tc := range []struct{ b, sigma, want float64 }{
		{0.3, 0, 0.3},
		{0.3, spreadLow, 0.3},
		{0.3, (spreadLow + spreadHigh) / 2, 0.65},
		{0.3, spreadHigh, 1},
		{0.3, 3, 1},
		{0.75, 0.4, 0.75},
		{1, 2, 1},
	} {
		assert.InDelta(t, tc.want, adaptiveB(tc.b, tc.sigma), 1e-12, "B %v, sigma %v", tc.b, tc.sigma)
	}
}

// words returns n words, the term "kiln" k times among them.
func words(n, k int, filler string) string {
	var b strings.Builder
	for i := range n {
		if i < k {
			b.WriteString("kiln ")
			continue
		}
		fmt.Fprintf(&b, "%s%d ", filler, i%50)
	}
	return b.String()
}

// In a collection mixing short notes with answers fifty times longer, a
// note naming the subject once outranks an answer naming it three times
// by its length; with B fixed at the field's 0.3 the answer would win.
// Where lengths are alike, the field's B is kept.
func TestMixedLengthsNormaliseFully(t *testing.T) {
	p := Params{Fields: []Field{{"content", 1, 0.3}}}
	ix, err := NewIndex[string](p, Analyzer{})
	require.NoError(t, err)
	for i := range 20 {
		require.NoError(t, ix.Add(fmt.Sprintf("note%02d", i), words(4, min(i, 1), "note")))
		require.NoError(t, ix.Add(fmt.Sprintf("answer%02d", i), words(200, 3*min(i, 1), "answer")))
	}
	st := ix.Stats([]string{"kiln"})
	require.Greater(t, st.Spread[0].Sigma(), spreadHigh)
	top := ix.Top([]string{"kiln"}, 1, func(a, b string) bool { return a < b })
	assert.Equal(t, "note01", top[0].Key)

	// The same documents scored as if B stayed 0.3: the answer wins.
	avg := float64(st.SumLen[0]) / float64(st.N)
	note := 1 / (0.7 + 0.3*4/avg)
	answer := 3 / (0.7 + 0.3*200/avg)
	require.Greater(t, answer, note, "the test's premise: a fixed B of 0.3 ranks the long answer first")

	alike, err := NewIndex[string](p, Analyzer{})
	require.NoError(t, err)
	for i := range 40 {
		require.NoError(t, alike.Add(fmt.Sprint(i), words(10+i%7, 1, "w")))
	}
	s := alike.Stats(nil).Spread[0].Sigma()
	assert.Less(t, s, spreadLow)
	assert.Equal(t, 0.3, adaptiveB(0.3, s))
}

// The spread follows documents added, replaced and removed (also across
// a compaction), and merges across indexes as one index holding all the
// documents would have it.
func TestSpreadFollowsTheDocuments(t *testing.T) {
	p := Params{Fields: []Field{{"title", 1, 0.5}, {"content", 1, 0.3}}}
	want, err := NewIndex[int](p, Analyzer{})
	require.NoError(t, err)
	a, err := NewIndex[int](p, Analyzer{})
	require.NoError(t, err)
	b, err := NewIndex[int](p, Analyzer{})
	require.NoError(t, err)
	for i := range 100 {
		title, content := fmt.Sprint("t", i), words(1+i%13*i%7, 1, "c")
		require.NoError(t, want.Add(i, title, content))
		if i%2 == 0 {
			require.NoError(t, a.Add(i, title, "a first version, replaced"))
			require.NoError(t, a.Add(i, title, content))
		} else {
			require.NoError(t, b.Add(i, title, content))
		}
	}
	for i := 1000; i < 4000; i++ { // enough removals to compact
		require.NoError(t, a.Add(i, "gone", words(i%40, 0, "x")))
	}
	for i := 1000; i < 4000; i++ {
		a.Remove(i)
	}
	require.Less(t, len(a.keys), 3000, "compacted")
	st := a.Stats(nil)
	st.Merge(b.Stats(nil))
	w := want.Stats(nil)
	for f := range 2 {
		assert.Equal(t, w.Spread[f].Filled, st.Spread[f].Filled, "field %d", f)
		assert.InDelta(t, w.Spread[f].Sigma(), st.Spread[f].Sigma(), 1e-6, "field %d", f)
	}
	assert.Greater(t, w.Spread[1].Sigma(), 0.0)
	assert.Zero(t, Spread{}.Sigma())
}
