package memories

import (
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/textsearch/textsearchtest"
)

func shapeSets(t testing.TB) []textsearchtest.Set {
	remarks, err := textsearchtest.Remarks("testdata/dialogue")
	require.NoError(t, err)
	return []textsearchtest.Set{remarks, textsearchtest.Sessions(), textsearchtest.Messages()}
}

func asMemories(docs []textsearchtest.Doc) []Memory {
	ms := make([]Memory, len(docs))
	for i, d := range docs {
		ms[i] = Memory{ID: d.Key, Title: d.Title, Tags: d.Tags, Content: d.Text}
	}
	return ms
}

func TestShapesMemories(t *testing.T) {
	for _, set := range shapeSets(t) {
		ms := asMemories(set.Docs)
		eng := textsearchtest.Measure(set.Questions, engineSearch(ms, searchParams))
		bm := textsearchtest.Measure(set.Questions, textsearchtest.Okapi(set.Docs, nil))
		bms := textsearchtest.Measure(set.Questions, textsearchtest.Okapi(set.Docs, stemWord))
		t.Logf("%-9s %4d docs %3d q: engine %v  BM25 %v  BM25+stem %v", set.Name, len(set.Docs), len(set.Questions), eng, bm, bms)
	}
}
