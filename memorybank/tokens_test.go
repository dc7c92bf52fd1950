package memorybank_test

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

type tokenSample struct {
	Name   string `json:"name"`
	Kind   string `json:"kind"` // en, ja, zh, code or json
	O200k  int    `json:"o200k"`
	CL100k int    `json:"cl100k"`
}

type tokenFixture struct {
	Tokenizer string        `json:"tokenizer"`
	Samples   []tokenSample `json:"samples"` // the estimator was fitted to these
	HeldOut   []tokenSample `json:"heldOut"` // documents of testdata/eval/bank, never fitted
}

// The estimator stays within 15% of the o200k_base tokenizer on every
// sample of 100 tokens or more, and on each kind of text as a whole: on
// the samples it was fitted to, and on documents it was not fitted to.
func TestEstimateTokensMatchesBPE(t *testing.T) {
	data, err := os.ReadFile("testdata/tokens/counts.json")
	require.NoError(t, err)
	var fx tokenFixture
	require.NoError(t, json.Unmarshal(data, &fx))
	require.NotEmpty(t, fx.Samples)
	require.NotEmpty(t, fx.HeldOut)
	t.Run("fitted", func(t *testing.T) {
		checkEstimates(t, "testdata/tokens/samples", fx.Samples, []string{"en", "ja", "zh", "code", "json"})
	})
	t.Run("held out", func(t *testing.T) {
		checkEstimates(t, "testdata/eval/bank", fx.HeldOut, []string{"en", "ja", "zh", "code", "json"})
	})
}

func checkEstimates(t *testing.T, dir string, samples []tokenSample, kinds []string) {
	type sum struct{ est, ref, refCL int }
	byKind := map[string]*sum{}
	for _, s := range samples {
		text, err := os.ReadFile(filepath.Join(dir, s.Name))
		require.NoError(t, err)
		est := memorybank.EstimateTokens(string(text))
		k := byKind[s.Kind]
		if k == nil {
			k = &sum{}
			byKind[s.Kind] = k
		}
		k.est, k.ref, k.refCL = k.est+est, k.ref+s.O200k, k.refCL+s.CL100k
		rel := float64(est-s.O200k) / float64(s.O200k)
		t.Logf("%-58s o200k %5d estimate %5d (%+.1f%%)", s.Name, s.O200k, est, 100*rel)
		if s.O200k >= 100 {
			assert.LessOrEqual(t, math.Abs(rel), 0.15, "%s: estimate %d, o200k %d", s.Name, est, s.O200k)
		}
	}
	for _, kind := range kinds {
		k := byKind[kind]
		require.NotNil(t, k, "no %s samples", kind)
		rel := float64(k.est-k.ref) / float64(k.ref)
		relCL := float64(k.est-k.refCL) / float64(k.refCL)
		t.Logf("%-5s o200k %5d estimate %5d (%+.1f%%; against cl100k %+.1f%%)", kind, k.ref, k.est, 100*rel, 100*relCL)
		assert.LessOrEqual(t, math.Abs(rel), 0.15, kind)
	}
}
