package memories_test

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// Delete removes exactly the entry: the lines the parser read as its
// heading and fields (and the blank lines after them). Hand-written lines
// after it that only look like fields of the other format stay, and do
// not become fields of the memory before them.
func TestDeleteRemovesExactlyTheEntry(t *testing.T) {
	const a = "## A\n- ID: mem-1-aaaaaaaa\n- Tags: x\n- Date: 2026-01-01\n- Content: alpha\n\n"
	for _, tc := range []struct {
		name, file, id, want string
	}{
		{"quote and comment after a seed entry",
			"# Memories\n\n" + a + "## X\n- ID: mem-2-bbbbbbbb\n- Content: x\n\n> a quote I like\n<!-- tags: x -->\n",
			"mem-2-bbbbbbbb",
			"# Memories\n\n" + a + "> a quote I like\n<!-- tags: x -->\n"},
		{"prose field after a ralph entry",
			"# Memories\n\n## Patterns\n\n### mem-1-aaaa\n> a\n<!-- tags: t | created: 2025-01-01 -->\n\n" +
				"### mem-2-bbbb\n> b\n\n- Date: 2025 was a good year, the prose says.\n",
			"mem-2-bbbb",
			"# Memories\n\n## Patterns\n\n### mem-1-aaaa\n> a\n<!-- tags: t | created: 2025-01-01 -->\n\n" +
				"- Date: 2025 was a good year, the prose says.\n"},
		{"prose field that the memory before would adopt keeps the heading",
			"# Memories\n\n" + a + "### mem-2-bbbb\n> b\n\n- Date: 1999, a line of prose\n",
			"mem-2-bbbb",
			"# Memories\n\n" + a + "### mem-2-bbbb\n- Date: 1999, a line of prose\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := memories.Parse([]byte(tc.file))
			before := doc.Memories()
			require.NoError(t, doc.Delete(tc.id))
			out := string(memories.Format(doc))
			assert.Equal(t, tc.want, out)
			var want []memories.Memory
			for _, m := range before {
				if m.ID != tc.id {
					want = append(want, m)
				}
			}
			assert.Equal(t, want, memories.Parse([]byte(out)).Memories(), "every other memory reads as before")
		})
	}
}

// A Delete never makes the file bigger: entries without an "- ID:" line
// keep their derived ids without having them written in.
func TestDeleteNeverGrowsTheFile(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	b.WriteString("# Memories\n\n")
	for i := range 200 {
		fmt.Fprintf(&b, "## note %d\n- Tags: t\n- Date: 2026-01-%02d\n- Content: note %d\n", i, i%28+1, i)
	}
	store := new(memories.MemStore)
	_, err := store.Save(ctx, []byte(b.String()), "")
	require.NoError(t, err)
	m := newManager(t, store, nil)
	before, err := m.List(ctx)
	require.NoError(t, err)
	size := len(contents(t, store))
	for _, victim := range []int{150, 0, 42} {
		id := before[victim].ID
		require.NoError(t, m.Delete(ctx, id))
		now := len(contents(t, store))
		assert.Less(t, now, size, "deleting %s shrinks the file", id)
		size = now
	}
	assert.NotContains(t, contents(t, store), "- ID:", "no id lines were added")
	after, err := m.List(ctx)
	require.NoError(t, err)
	require.Len(t, after, 197)
	kept := map[string]bool{}
	for _, mem := range after {
		kept[mem.ID] = true
	}
	for i, mem := range before {
		if i != 150 && i != 0 && i != 42 {
			assert.True(t, kept[mem.ID], "memory %d keeps its id %s", i, mem.ID)
		}
	}
}

// Entries without an id that repeat another word for word are one memory
// written more than once: listed once, under one id, and deleted together,
// so deleting never moves an id to another entry and never adds id lines.
func TestIdenticalEntriesAreOneMemory(t *testing.T) {
	ctx := context.Background()
	dup := "## Same\n- Tags: x\n- Date: 2026-01-26\n- Content: same\n"
	file := "# Memories\n\n" + dup + dup + "## Other\n- Tags: y\n- Date: 2026-01-27\n- Content: other\n" + dup
	store := new(memories.MemStore)
	_, err := store.Save(ctx, []byte(file), "")
	require.NoError(t, err)
	m := newManager(t, store, nil)
	list, err := m.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "same", list[0].Content)

	require.NoError(t, m.Delete(ctx, list[0].ID))
	assert.Equal(t, "# Memories\n\n## Other\n- Tags: y\n- Date: 2026-01-27\n- Content: other\n", contents(t, store))
	after, err := m.List(ctx)
	require.NoError(t, err)
	assert.Equal(t, list[1:], after)
}

// Content ending (or a first line ending) in Unicode white space reads
// back exactly as Add returned it.
func TestUnicodeSpaceContentRoundTrips(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	for _, content := range []string{
		"ends in nbsp\u00a0",
		"ends in line separator\u2028",
		"first line nbsp\u00a0\nsecond",
		"first\u2028\nsecond\u3000",
		"\u00a0leading nbsp",
		"middle\u00a0\n\u2029\nlast",
	} {
		added, err := m.Add(ctx, content)
		require.NoError(t, err, "%q", content)
		got, err := m.Get(ctx, added.ID)
		require.NoError(t, err)
		assert.Equal(t, added, got, "%q", content)
	}
}
