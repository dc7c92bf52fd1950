package memories_test

import (
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// seedAppended is what the seed's addMemory writes for two adds: no blank
// line between entries, "- Tags: " with a trailing space when empty.
const seedAppended = "# Memories\n\n" +
	"## Always use try-catch\n- Tags: pattern, error-handling\n- Date: 2026-01-26\n- Content: Always use try-catch\n" +
	"## Use PostgreSQL\n- Tags: \n- Date: 2026-01-27\n- Content: Use PostgreSQL\n"

// seedRebuilt is what the seed's buildMemoriesContent writes after a delete.
const seedRebuilt = "# Memories\n\n" +
	"## Always use try-catch\n- Tags: pattern, error-handling\n- Date: 2026-01-26\n- Content: Always use try-catch\n\n"

const ralphFile = `# Memories

## Patterns

### mem-1737372000-a1b2
> This codebase uses barrel exports for all module boundaries.
> Each directory has an index.ts that re-exports public API.
<!-- tags: imports, structure | created: 2025-01-20 -->

## Decisions

### mem-1737380000-e5f6
> Chose JSONL over SQLite for event storage: simpler, git-friendly, append-only.
<!-- tags: architecture, storage | created: 2025-01-20 -->

## Fixes

### mem-1737390000-0708
> ECONNREFUSED on port 5432 means PostgreSQL isn't running.
<!-- tags: docker, fix | created: 2025-01-21 -->

## Context
`

func TestParseSeedFiles(t *testing.T) {
	for _, tc := range []struct {
		name string
		in   string
		want []memories.Memory // without IDs
	}{
		{"appended", seedAppended, []memories.Memory{
			{Title: "Always use try-catch", Tags: []string{"pattern", "error-handling"}, Date: "2026-01-26", Content: "Always use try-catch"},
			{Title: "Use PostgreSQL", Date: "2026-01-27", Content: "Use PostgreSQL"},
		}},
		{"rebuilt", seedRebuilt, []memories.Memory{
			{Title: "Always use try-catch", Tags: []string{"pattern", "error-handling"}, Date: "2026-01-26", Content: "Always use try-catch"},
		}},
		{"crlf", strings.ReplaceAll(seedAppended, "\n", "\r\n"), []memories.Memory{
			{Title: "Always use try-catch", Tags: []string{"pattern", "error-handling"}, Date: "2026-01-26", Content: "Always use try-catch"},
			{Title: "Use PostgreSQL", Date: "2026-01-27", Content: "Use PostgreSQL"},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			doc := memories.Parse([]byte(tc.in))
			assert.Equal(t, tc.in, string(memories.Format(doc)), "Format(Parse(x)) must be x")
			got := doc.Memories()
			require.Len(t, got, len(tc.want))
			for i := range got {
				assert.Regexp(t, `^mem-\d+-[0-9a-f]{8}$`, got[i].ID)
				got[i].ID = ""
			}
			assert.Equal(t, tc.want, got)
			again := memories.Parse([]byte(tc.in)).Memories()
			for i := range again {
				assert.Equal(t, doc.Memories()[i].ID, again[i].ID, "derived ids are the same on every parse")
			}
		})
	}
}

func TestRalphRoundTrip(t *testing.T) {
	doc := memories.Parse([]byte(ralphFile))
	assert.Equal(t, ralphFile, string(memories.Format(doc)))
	got := doc.Memories()
	require.Len(t, got, 3, "section headings are not memories")
	assert.Equal(t, memories.Memory{
		ID:      "mem-1737372000-a1b2",
		Title:   "This codebase uses barrel exports for all module b...",
		Tags:    []string{"pattern", "imports", "structure"},
		Date:    "2025-01-20",
		Content: "This codebase uses barrel exports for all module boundaries.\nEach directory has an index.ts that re-exports public API.",
	}, got[0])
	assert.Equal(t, []string{"decision", "architecture", "storage"}, got[1].Tags)
	assert.Equal(t, []string{"fix", "docker"}, got[2].Tags, "the type tag is not repeated")

	// Deleting a ralph entry keeps its section headings and the other entries.
	require.NoError(t, doc.Delete("mem-1737380000-e5f6"))
	out := string(memories.Format(doc))
	assert.Equal(t, strings.Replace(ralphFile,
		"### mem-1737380000-e5f6\n> Chose JSONL over SQLite for event storage: simpler, git-friendly, append-only.\n<!-- tags: architecture, storage | created: 2025-01-20 -->\n\n", "", 1), out)

	// Adding to a ralph file writes ralph's format into the type's section,
	// where ralph-orchestrator itself puts it; both read it back.
	m := memories.Memory{ID: "mem-1769400000-0001", Tags: []string{"fix"}, Date: "2026-01-26", Content: "new"}
	require.NoError(t, doc.Append(m))
	assert.Contains(t, string(memories.Format(doc)), "## Fixes\n\n### mem-1769400000-0001\n> new\n<!-- tags:  | created: 2026-01-26 -->\n")
	again := memories.Parse(memories.Format(doc)).Memories()
	require.Len(t, again, 3)
	assert.Equal(t, "mem-1769400000-0001", again[1].ID)
	assert.Equal(t, "new", again[1].Content)
	assert.Len(t, ralphParse(string(memories.Format(doc))), 3, "ralph reads all of them")
	assert.ErrorIs(t, doc.Append(memories.Memory{ID: "mem-1769400000-00000002", Tags: []string{"fix"}, Date: "2026-01-26", Content: "a\n\nb"}),
		memories.ErrInvalid, "what ralph cannot hold is refused")
}

func TestWrittenFileReadableBySeedParser(t *testing.T) {
	ctx := context.Background()
	store := new(memories.MemStore)
	m := newManager(t, store, nil)
	long := strings.Repeat("日本語のタイトル", 10) // 80 runes
	_, err := m.Add(ctx, "First line\n\n  indented second\nthird", "pattern", "go")
	require.NoError(t, err)
	_, err = m.Add(ctx, long, "ja")
	require.NoError(t, err)

	data := contents(t, store)
	seed := seedParse(data)
	require.Len(t, seed, 2)
	assert.Equal(t, "First line", seed[0].Title)
	assert.Equal(t, []string{"pattern", "go"}, seed[0].Tags)
	assert.Equal(t, "2026-01-26", seed[0].Date)
	assert.Equal(t, "First line", seed[0].Content, "the seed reads the first content line")
	assert.Equal(t, []rune(long)[:50], []rune(strings.TrimSuffix(seed[1].Title, "...")))

	ours := memories.Parse([]byte(data)).Memories()
	require.Len(t, ours, 2)
	assert.Equal(t, "First line\n\n  indented second\nthird", ours[0].Content, "multi-line content round-trips")
	assert.Equal(t, long, ours[1].Content)
}

func TestMakeTitle(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"short", "short"},
		{"first line\nsecond line", "first line"},
		{strings.Repeat("a", 50), strings.Repeat("a", 50)},
		{strings.Repeat("a", 51), strings.Repeat("a", 50) + "..."},
		{strings.Repeat("あ", 51), strings.Repeat("あ", 50) + "..."},
		{strings.Repeat("漢字", 30), strings.Repeat("漢字", 25) + "..."},
		{strings.Repeat("😀", 60), strings.Repeat("😀", 50) + "..."},
		{"  padded  ", "padded"},
	} {
		got := memories.MakeTitle(tc.in)
		assert.Equal(t, tc.want, got, "MakeTitle(%q)", tc.in)
		assert.True(t, utf8.ValidString(got), "a title never cuts a character in half")
	}
}

func TestHandNotesSurviveDelete(t *testing.T) {
	ctx := context.Background()
	const file = "# Memories\n\nNotes I keep by hand: run `make lint` before pushing.\n\n" +
		"## A\n- ID: mem-1-aaaaaaaa\n- Tags: x\n- Date: 2026-01-01\n- Content: alpha\n\n" +
		"A note after A, written by hand.\n\n" +
		"## B\n- ID: mem-2-bbbbbbbb\n- Tags:\n- Date: 2026-01-02\n- Content: beta\n\n" +
		"## Reading list\nNot a memory: no fields.\n"
	store := new(memories.MemStore)
	_, err := store.Save(ctx, []byte(file), "")
	require.NoError(t, err)
	m := newManager(t, store, nil)

	list, err := m.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2, "a heading without fields is not a memory")

	require.NoError(t, m.Delete(ctx, "mem-1-aaaaaaaa"))
	want := "# Memories\n\nNotes I keep by hand: run `make lint` before pushing.\n\n" +
		"A note after A, written by hand.\n\n" +
		"## B\n- ID: mem-2-bbbbbbbb\n- Tags:\n- Date: 2026-01-02\n- Content: beta\n\n" +
		"## Reading list\nNot a memory: no fields.\n"
	assert.Equal(t, want, contents(t, store))

	_, err = m.Add(ctx, "gamma")
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(contents(t, store), want), "Add only appends")
}

func TestDeleteKeepsEveryOtherID(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		setup func(t *testing.T, m *memories.Manager, s *memories.MemStore)
	}{
		{"added", func(t *testing.T, m *memories.Manager, _ *memories.MemStore) {
			for _, c := range []string{"one", "two", "three", "four", "five"} {
				_, err := m.Add(ctx, c)
				require.NoError(t, err)
			}
		}},
		{"seed file without ids, with duplicates", func(t *testing.T, _ *memories.Manager, s *memories.MemStore) {
			dup := "## Same\n- Tags: x\n- Date: 2026-01-26\n- Content: same\n"
			_, err := s.Save(ctx, []byte("# Memories\n\n"+dup+dup+"## Other\n- Tags: \n- Date: 2026-01-27\n- Content: other\n"+dup+
				"## Third\n- Content: third\n"), "")
			require.NoError(t, err)
		}},
		{"ralph file", func(t *testing.T, _ *memories.Manager, s *memories.MemStore) {
			_, err := s.Save(ctx, []byte(ralphFile), "")
			require.NoError(t, err)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := new(memories.MemStore)
			m := newManager(t, store, nil)
			tc.setup(t, m, store)
			before, err := m.List(ctx)
			require.NoError(t, err)
			require.GreaterOrEqual(t, len(before), 3)
			for len(before) > 0 {
				victim := before[0]
				require.NoError(t, m.Delete(ctx, victim.ID))
				_, err := m.Get(ctx, victim.ID)
				assert.ErrorIs(t, err, memories.ErrNotFound, "deleted %s", victim.ID)
				before = before[1:]
				after, err := m.List(ctx)
				require.NoError(t, err)
				assert.Equal(t, before, after, "every other memory keeps its id and fields")
			}
		})
	}
}

func TestDeleteUnknownChangesNothing(t *testing.T) {
	ctx := context.Background()
	store := new(memories.MemStore)
	m := newManager(t, store, nil)
	_, err := m.Add(ctx, "kept")
	require.NoError(t, err)
	_, v1, err := store.Load(ctx)
	require.NoError(t, err)

	err = m.Delete(ctx, "mem-0-deadbeef")
	require.ErrorIs(t, err, memories.ErrNotFound)
	var oe *memories.OpError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, "delete", oe.Op)
	assert.Contains(t, err.Error(), "1 memory exists, newest: mem-", "the message says what exists instead")

	_, v2, err := store.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, v1, v2, "the file was not rewritten")

	_, err = newManager(t, new(memories.MemStore), nil).Get(ctx, "x")
	assert.ErrorIs(t, err, memories.ErrNotFound, "an empty store finds nothing")
}

func TestDocumentAppendRejectsBadMemories(t *testing.T) {
	for _, m := range []memories.Memory{
		{ID: "", Content: "x"},
		{ID: "has space", Content: "x"},
		{ID: "mem-1-a", Content: "  \n "},
		{ID: "mem-1-a", Content: "x", Tags: []string{"a,b"}},
		{ID: "mem-1-a", Content: "x", Tags: []string{""}},
		{ID: "mem-1-a", Content: "x", Title: "two\nlines"},
		{ID: "mem-1-a", Content: "x", Date: "2026\n01"},
	} {
		doc := memories.Parse([]byte(seedAppended))
		err := doc.Append(m)
		assert.ErrorIs(t, err, memories.ErrInvalid, "%+v", m)
		assert.Equal(t, seedAppended, string(memories.Format(doc)), "a rejected memory changes nothing")
	}
	doc := memories.Parse([]byte("## t\n- ID: mem-1-a\n- Content: c\n"))
	assert.ErrorIs(t, doc.Append(memories.Memory{ID: "mem-1-a", Content: "y"}), memories.ErrInvalid, "duplicate id")
}

func TestAppendSeparatesFromUnterminatedFile(t *testing.T) {
	doc := memories.Parse([]byte("# Memories\n\nno newline at end"))
	require.NoError(t, doc.Append(memories.Memory{ID: "mem-1-a", Content: "c"}))
	assert.Equal(t, "# Memories\n\nno newline at end\n## c\n- ID: mem-1-a\n- Tags:\n- Date:\n- Content: c\n\n", string(memories.Format(doc)))

	empty := memories.Parse(nil)
	require.NoError(t, empty.Append(memories.Memory{ID: "mem-1-a", Content: "c"}))
	assert.True(t, strings.HasPrefix(string(memories.Format(empty)), memories.Header))
}
