package memories

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/textsearch/textsearchtest"
)

func shapeSets(t testing.TB) []textsearchtest.Set {
	t.Helper()
	remarks, err := textsearchtest.Remarks("testdata/dialogue")
	require.NoError(t, err)
	return []textsearchtest.Set{remarks, textsearchtest.Sessions(), textsearchtest.Messages()}
}

// asMemories reads documents as memories: a document's key, title, tags
// (a chat message's role among them) and text as a memory's.
func asMemories(docs []textsearchtest.Doc) []Memory {
	ms := make([]Memory, len(docs))
	for i, d := range docs {
		ms[i] = Memory{ID: d.Key, Title: d.Title, Tags: d.Tags, Content: d.Text}
	}
	return ms
}

// Search on collections of three shapes (textsearchtest: short remarks,
// whole chat sessions, messages of mixed length), ranked as Find ranks:
// on each it must be at least plain Okapi BM25 on every figure.
func TestShapes(t *testing.T) {
	t.Log(textsearchtest.Header)
	for _, set := range shapeSets(t) {
		require.GreaterOrEqual(t, len(set.Questions), 150, set.Name)
		r := textsearchtest.Compare(set, engineSearch(asMemories(set.Docs), searchParams), stemWord)
		t.Log(r)
		assert.True(t, r.Engine.AtLeast(r.BM25), "%s: Search (%v) is below plain BM25 (%v)", set.Name, r.Engine, r.BM25)
	}
}

// A memory tagged with its author's role weighs by it, whether the index
// was built with it or took it in after an Add.
func TestRoleTagWeighsMemories(t *testing.T) {
	ms := []Memory{
		{ID: "a", Title: "glaze", Tags: []string{"assistant"}, Content: "the glaze is celadon green", Date: "2025-01-02"},
		{ID: "n", Title: "glaze", Content: "the glaze is celadon green", Date: "2025-01-01"},
		{ID: "u", Title: "glaze", Tags: []string{"User"}, Content: "the glaze is celadon green", Date: "2025-01-01"},
	}
	order := func(ix *index) []string {
		r, _ := ix.rank("celadon", 0)
		var ids []string
		for _, s := range r {
			ids = append(ids, ix.ms[s.i].ID)
		}
		return ids
	}
	built := newIndex("v1", ms)
	assert.Equal(t, []string{"u", "n", "a"}, order(built))
	extended := newIndex("v0", ms[:2])
	extended.extend("v1", ms[2])
	assert.Equal(t, []string{"u", "n", "a"}, order(extended))
}
