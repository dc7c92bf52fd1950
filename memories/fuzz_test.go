package memories_test

import (
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
