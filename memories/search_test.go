package memories_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

func TestFold(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain ascii", "plain ascii"},
		{"Try-Catch", "try-catch"},
		{"ＴＲＹ－ｃａｔｃｈ", "try-catch"},
		{"ＰｏｓｔｇｒｅＳＱＬ１６", "postgresql16"},
		{"全角\u3000スペース", "全角 スペース"},
		{"ｴﾗｰﾊﾝﾄﾞﾘﾝｸﾞ", "エラーハンドリング"},
		{"ﾊﾟｲﾌﾟ ｶﾞｰﾄﾞ ｳﾞｨ", "パイプ ガード ヴィ"},
		{"ﾂﾞﾃﾞﾄﾞ", "ヅデド"},
		{"ｯﾞ", "ッ\u3099"},                              // no composed form: NFKC keeps the combining mark
		{"か\u3099き\u309Aは\u309Aテ\u3099", "がき\u309aぱデ"}, // combining marks compose as in NFKC
		{"う\u3099", "ゔ"},
		{"ÄÖÜ Straße", "äöü strasse"}, // full case folding
		{"cafe\u0301 café", "café café"},
		{"ﬁle ① Ⅻ", "file 1 xii"},
		{"数据库连接", "数据库连接"},
	} {
		assert.Equal(t, tc.want, memories.Fold(tc.in), "Fold(%q)", tc.in)
	}
}

func TestSearch(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	add := func(content string, tags ...string) memories.Memory {
		mem, err := m.Add(ctx, content, tags...)
		require.NoError(t, err)
		return mem
	}
	errJa := add("エラー処理は必ず try-catch で囲む", "pattern")
	dbZh := add("数据库连接池的大小设置为二十", "database")
	pg := add("Use PostgreSQL for concurrent writes", "database")
	content := add("Only the body says it\nsecond line: database, エラー")
	tagged := add("Network timeouts", "エラー")

	for _, tc := range []struct {
		query string
		want  []memories.Memory
	}{
		{"try-catch", []memories.Memory{errJa}},
		{"ＴＲＹ－ＣＡＴＣＨ", []memories.Memory{errJa}},
		// BM25F: errJa has the term in its title and its content; the
		// others once, in a tag or deep in a longer content.
		{"ｴﾗｰ", []memories.Memory{errJa, content, tagged}},
		{"エラー", []memories.Memory{errJa, content, tagged}},
		{"数据库", []memories.Memory{dbZh}},
		{"连接池", []memories.Memory{dbZh}},
		{"DATABASE", []memories.Memory{pg, dbZh, content}}, // tag hits newest first, then the content hit
		// pg holds both words: first; the other memories with a word follow.
		{"postgresql writes", []memories.Memory{pg}},
		{"concurrent database writes", []memories.Memory{pg, dbZh, content}},
		{"postgresql 数据库", []memories.Memory{dbZh, pg}}, // any word may match: the rarer term weighs more
		{"no such thing", nil},
	} {
		got, err := m.Search(ctx, tc.query)
		require.NoError(t, err)
		assert.Equal(t, ids(tc.want), ids(got), "Search(%q)", tc.query)
	}

	all, err := m.Search(ctx, "")
	require.NoError(t, err)
	assert.Equal(t, ids([]memories.Memory{tagged, content, pg, dbZh, errJa}), ids(all), "empty query: everything, newest first")
}

func TestMatchNewestFirstByDate(t *testing.T) {
	ms := []memories.Memory{
		{ID: "late-in-file-old-date", Title: "go", Date: "2025-01-01"},
		{ID: "new", Title: "go", Date: "2026-03-01"},
		{ID: "mid", Title: "go", Date: "2026-01-01"},
	}
	ms[0], ms[2] = ms[2], ms[0]
	assert.Equal(t, []string{"new", "mid", "late-in-file-old-date"}, ids(memories.Match(ms, "GO")))
}

func ids(ms []memories.Memory) []string {
	var out []string
	for _, m := range ms {
		out = append(out, m.ID)
	}
	return out
}

// Search folds canonically equivalent and compatibility forms (NFKC) and
// case (full case folding).
func TestSearchFoldsUnicodeForms(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	for _, c := range []string{"Le café du coin", "Open the ﬁle first", "Step ① of the build", "Die Straße"} {
		_, err := m.Add(ctx, c)
		require.NoError(t, err)
	}
	for q, want := range map[string]string{
		"cafe\u0301": "Le café du coin", // decomposed query, composed text
		"CAFÉ":       "Le café du coin",
		"file":       "Open the ﬁle first",
		"step 1":     "Step ① of the build",
		"STRASSE":    "Die Straße",
		"ｆｉｌｅ ｆｉｒｓｔ": "Open the ﬁle first",
	} {
		got, err := m.Search(ctx, q)
		require.NoError(t, err)
		require.Len(t, got, 1, "query %q", q)
		assert.Equal(t, want, got[0].Content, "query %q", q)
	}
}
