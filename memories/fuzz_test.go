package memories_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

func FuzzParse(f *testing.F) {
	for _, s := range []string{
		"", seedAppended, seedRebuilt, ralphFile,
		"## t\n- Content: a\n\n  b\n\n  c\n\nnote\n",
		"## \n- Content: x\n## y\n",
		"### mem-1-ab\n>\n> x\r\n<!-- tags:  | created: 2025-01-01 -->",
		"## a\n- ID: mem-1-a\n- Content: 1\n## b\n- ID: mem-1-a\n- Content: 2\n",
		"\xff\xfe## \xff\n- Tags: ,,\n",
		"## X\n### mem-1-a\n> c\n- Content: z\n",
		"## A\n- Content: a\n### mem-1-b\n> b\n  indented\n- Tags: q\n",
		"## Decisions\n- Content: x\n### mem-1-a\n> y\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		doc := memories.Parse(data)
		require.Equal(t, string(data), string(memories.Format(doc)), "Format(Parse(x)) must be x")
		ms := doc.Memories()
		seen := map[string]bool{}
		for _, m := range ms {
			require.NotEmpty(t, m.ID)
			require.False(t, seen[m.ID], "duplicate id %q", m.ID)
			seen[m.ID] = true
		}
		assert.Equal(t, ms, memories.Parse(data).Memories(), "Parse is deterministic")

		for i := range ms {
			d := memories.Parse(data)
			if err := d.Delete(ms[i].ID); err != nil {
				require.ErrorIs(t, err, memories.ErrInvalid)
				require.Equal(t, string(data), string(memories.Format(d)), "a refused delete changes nothing")
				continue
			}
			out := memories.Format(d)
			require.LessOrEqual(t, len(out), len(data), "a delete never grows the file")
			again := memories.Parse(out)
			want := append(append([]memories.Memory{}, ms[:i]...), ms[i+1:]...)
			assert.Equal(t, want, again.Memories(), "deleting %s keeps every other memory and id", ms[i].ID)
			assert.Equal(t, string(out), string(memories.Format(again)), "stable after a rewrite")
		}

		added := memories.Memory{ID: "mem-1769400000-fuzz0001", Tags: []string{"t"}, Date: "2026-01-26", Content: "added\n  line"}
		if doc.RalphDialect() {
			added = memories.Memory{ID: "mem-1769400000-f00d", Tags: []string{"fix", "t"}, Date: "2026-01-26", Content: "added\n  line"}
		}
		if err := doc.Append(added); err != nil {
			// Only a ralph file whose own text would swallow the entry.
			require.True(t, doc.RalphDialect(), "%v", err)
			require.ErrorIs(t, err, memories.ErrInvalid)
			return
		}
		got, ok := memories.Parse(memories.Format(doc)).Get(added.ID)
		require.True(t, ok)
		added.Title = "added"
		assert.Equal(t, added, got, "an appended memory reads back as written")
	})
}

// FuzzMatch: any query over any memories never panics, finds every
// memory holding all its words as substrings, and those first.
func FuzzMatch(f *testing.F) {
	for _, q := range []string{"adapter failing", "how should I handle errors from adapters", "ｴﾗｰ", "数据库是什么", "\xff", "the", "a  b\x00c"} {
		f.Add(q, "Always wrap adapter calls in try-catch", "エラー処理 数据库")
	}
	f.Fuzz(func(t *testing.T, q, c1, c2 string) {
		ms := []memories.Memory{
			{ID: "1", Title: memories.MakeTitle(c1), Content: c1, Date: "2026-01-01"},
			{ID: "2", Title: memories.MakeTitle(c2), Content: c2, Tags: []string{c1}},
		}
		got := memories.Match(ms, q)
		var want []string
		for _, m := range ms {
			text := memories.Fold(m.Title) + "\x00" + memories.Fold(strings.Join(m.Tags, "\n")) + "\x00" + memories.Fold(m.Content)
			all := true
			for _, w := range strings.Fields(memories.Fold(q)) {
				all = all && strings.Contains(text, w)
			}
			if all && !strings.Contains(q, "\x00") {
				want = append(want, m.ID)
			}
		}
		require.GreaterOrEqual(t, len(got), len(want))
		assert.ElementsMatch(t, want, ids(got[:len(want)]))
	})
}
