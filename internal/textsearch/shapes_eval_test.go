package textsearch_test

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/textsearch"
	"github.com/mnemobank/mnemobank/internal/textsearch/textsearchtest"
)

func shapeSets(t testing.TB) []textsearchtest.Set {
	remarks, err := textsearchtest.Remarks("../../memories/testdata/dialogue")
	require.NoError(t, err)
	return []textsearchtest.Set{remarks, textsearchtest.Sessions(), textsearchtest.Messages()}
}

func stemString(w string) string { return string(textsearch.Stem([]byte(w))) }

func TestShapesBank(t *testing.T) {
	for _, set := range shapeSets(t) {
		require.GreaterOrEqual(t, len(set.Questions), 150, set.Name)
		eng := textsearchtest.Measure(set.Questions, bankSearch(t, set.Docs, textsearch.DocumentParams, textsearch.Analyzer{}))
		bm := textsearchtest.Measure(set.Questions, textsearchtest.Okapi(set.Docs, nil))
		bms := textsearchtest.Measure(set.Questions, textsearchtest.Okapi(set.Docs, stemString))
		t.Logf("%-9s %4d docs %3d q: engine %v  BM25 %v  BM25+stem %v", set.Name, len(set.Docs), len(set.Questions), eng, bm, bms)
	}
}
