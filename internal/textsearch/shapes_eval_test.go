package textsearch_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/textsearch"
	"github.com/mnemobank/mnemobank/internal/textsearch/textsearchtest"
)

func shapeSets(t testing.TB) []textsearchtest.Set {
	t.Helper()
	remarks, err := textsearchtest.Remarks("../../memories/testdata/dialogue")
	require.NoError(t, err)
	return []textsearchtest.Set{remarks, textsearchtest.Sessions(), textsearchtest.Messages()}
}

func stemString(w string) string { return string(textsearch.Stem([]byte(w))) }

// The bank's search (DocumentParams, fields title and path, tags, text,
// the author's role from the tags) on collections of three shapes: short
// remarks, whole chat sessions, and messages of mixed length. On each it
// must be at least plain Okapi BM25 on every figure. The memories' search
// is measured on the same sets in memories (TestShapes there).
func TestShapes(t *testing.T) {
	t.Log(textsearchtest.Header)
	for _, set := range shapeSets(t) {
		require.GreaterOrEqual(t, len(set.Questions), 150, set.Name)
		r := textsearchtest.Compare(set, bankSearch(t, set.Docs, textsearch.DocumentParams, textsearch.Analyzer{}), stemString)
		t.Log(r)
		assert.True(t, r.Engine.AtLeast(r.BM25), "%s: the bank's search (%v) is below plain BM25 (%v)", set.Name, r.Engine, r.BM25)
	}
}
