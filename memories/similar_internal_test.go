package memories

import (
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type labelledPair struct {
	same     bool
	add, old string
}

func loadPairs(t testing.TB) []labelledPair {
	t.Helper()
	data, err := os.ReadFile("testdata/similar/pairs.txt")
	require.NoError(t, err)
	var out []labelledPair
	for line := range strings.SplitSeq(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, " | ")
		require.Len(t, parts, 3, line)
		require.Contains(t, []string{"same", "different"}, parts[0], line)
		out = append(out, labelledPair{same: parts[0] == "same", add: parts[1], old: parts[2]})
	}
	return out
}

// pairScores returns, for each pair, the similarity the detector gives the
// existing memory of the pair when its new memory is added to a file that
// holds every existing memory of the set and the conversation's 320
// remarks (0 when it is not among the candidates).
func pairScores(t testing.TB, pairs []labelledPair) []float64 {
	ms, _ := loadDialogue(t)
	first := len(ms)
	seen := map[string]int{}
	for _, p := range pairs {
		if _, ok := seen[p.old]; !ok {
			seen[p.old] = len(ms)
			ms = append(ms, Memory{ID: "old-" + p.old, Title: MakeTitle(p.old), Content: p.old})
		}
	}
	require.Greater(t, len(ms), first)
	ix := newIndex("", ms)
	out := make([]float64, len(pairs))
	for k, p := range pairs {
		for _, c := range ix.similarities(p.add) {
			if c.i == seen[p.old] {
				out[k] = c.score
			}
		}
	}
	return out
}

func precisionRecall(pairs []labelledPair, scores []float64, threshold float64) (p, r float64) {
	tp, fp, fn := 0, 0, 0
	for k, pair := range pairs {
		hit := scores[k] >= threshold
		switch {
		case hit && pair.same:
			tp++
		case hit:
			fp++
		case pair.same:
			fn++
		}
	}
	if tp+fp > 0 {
		p = float64(tp) / float64(tp+fp)
	}
	if tp+fn > 0 {
		r = float64(tp) / float64(tp+fn)
	}
	return p, r
}

// The detector on labelled pairs (paraphrases, and different facts that
// share words): precision and recall over thresholds, and at
// SimilarThreshold, which was picked from this table as the threshold with
// the best recall among those of precision 0.95 or more (a false alarm
// blocks an add with IfNoSimilar, a miss only keeps a repetition).
func TestSimilarDetector(t *testing.T) {
	const wantPrecision, wantRecall = 0.970, 0.889 // measured at 0.60
	pairs := loadPairs(t)
	require.GreaterOrEqual(t, len(pairs), 60)
	scores := pairScores(t, pairs)
	chosen, chosenRecall := -1.0, -1.0
	for step := 4; step <= 18; step++ {
		th := float64(step) / 20
		p, r := precisionRecall(pairs, scores, th)
		t.Logf("threshold %.2f: precision %.3f recall %.3f", th, p, r)
		if p >= 0.95 && r > chosenRecall {
			chosen, chosenRecall = th, r
		}
	}
	assert.InDelta(t, chosen, SimilarThreshold, 1e-9, "the threshold of the best recall at precision 0.95 or more")
	for k, pair := range pairs {
		if pair.same != (scores[k] >= SimilarThreshold) {
			t.Logf("wrong at %.2f (%.3f, same=%v): %q ~ %q", SimilarThreshold, scores[k], pair.same, pair.add, pair.old)
		}
	}
	p, r := precisionRecall(pairs, scores, SimilarThreshold)
	t.Logf("SimilarThreshold %.2f: precision %.3f recall %.3f", SimilarThreshold, p, r)
	assert.GreaterOrEqual(t, p, wantPrecision-0.03)
	assert.GreaterOrEqual(t, r, wantRecall-0.03)
}
