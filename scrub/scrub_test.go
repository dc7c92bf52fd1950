package scrub_test

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/screen"
	"github.com/mnemobank/mnemobank/scrub"
)

var fakeKey = regexp.MustCompile(`FAKEKEY-[A-Za-z0-9]{16}`)

var fakeScanner = screen.PatternScanner("fake-key", fakeKey)

const key = "FAKEKEY-abcdEFGH12345678"

// A credential stored before any screen was on is removed from the
// document, from every version of its history and from the memories trash,
// and every version stays readable with everything else it held.
func TestScrubRemovesFromEveryVersionAndTrash(t *testing.T) {
	ctx := context.Background()
	store := &memorybank.MemStore{}
	bank := memorybank.New(store, &memorybank.Options{History: history.New(nil), Language: memorybank.English})
	g := memorybank.ScopeGlobal
	_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "cfg.json", Content: json.RawMessage(`{"token":"` + key + `","n":1}`)})
	require.NoError(t, err)
	_, err = bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "cfg.json", Patches: jsonpatch.Patch{{Op: "replace", Path: "/content/n", Value: json.RawMessage(`2`)}}})
	require.NoError(t, err)
	_, err = bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "cfg.json", Content: json.RawMessage(`{"token":"from the vault","n":3}`)})
	require.NoError(t, err)
	_, err = bank.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "clean.md", Text: "# Clean\n\nnothing here\n"})
	require.NoError(t, err)

	file, trash := new(memories.MemStore), new(memories.MemStore)
	mm, err := memories.New(file, &memories.Options{Trash: trash})
	require.NoError(t, err)
	m, err := mm.Add(ctx, "the key is "+key)
	require.NoError(t, err)
	_, err = mm.Add(ctx, "keep this one")
	require.NoError(t, err)
	require.NoError(t, mm.Delete(ctx, m.ID))

	src := scrub.Source{Store: store, Memories: []scrub.NamedMemories{{Name: "memories.md", Store: file}, {Name: "memories.trash.md", Store: trash}}}
	hits, err := scrub.Find(ctx, src, fakeScanner)
	require.NoError(t, err)
	var keys []string
	for _, h := range hits {
		keys = append(keys, h.Key)
		assert.Equal(t, "fake-key", h.Findings[0].Kind)
	}
	assert.Contains(t, keys, "memories.trash.md")
	assert.NotContains(t, keys, "memories.md")
	histHits := 0
	for _, k := range keys {
		if strings.HasPrefix(k, ".history/") {
			histHits++
		}
	}
	assert.GreaterOrEqual(t, histHits, 2, "the history entries that hold the key: %v", keys)

	n, err := scrub.Remove(ctx, src, hits)
	require.NoError(t, err)
	assert.Equal(t, len(hits), n)
	again, err := scrub.Find(ctx, src, fakeScanner)
	require.NoError(t, err)
	assert.Empty(t, again, "nothing left anywhere")

	// Every version is still there, with the rest of what it held.
	entries, err := history.List(ctx, bank, memorybank.HistoryRequest{Scope: g, Path: "cfg.json"})
	require.NoError(t, err)
	assert.Len(t, entries, 3)
	for v, want := range map[int64]string{1: `"n":1`, 2: `"n":2`, 3: `"n":3`} {
		d, err := history.ReadVersion(ctx, bank, memorybank.ReadRequest{Scope: g, Path: "cfg.json"}, v)
		require.NoError(t, err, "version %d", v)
		assert.Contains(t, string(d.Content), want)
		if v < 3 {
			assert.Contains(t, string(d.Content), `"token":"[REDACTED:fake-key]"`, "version %d", v)
		}
	}
	data, _, err := trash.Load(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(data), "the key is [REDACTED:fake-key]")
}

func TestRemoveLeavesChangedKeys(t *testing.T) {
	ctx := context.Background()
	store := &memorybank.MemStore{}
	bank := memorybank.New(store, &memorybank.Options{History: history.New(nil), Language: memorybank.English})
	_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "n.md", Text: "k " + key})
	require.NoError(t, err)
	src := scrub.Source{Store: store}
	hits, err := scrub.Find(ctx, src, fakeScanner)
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	_, err = bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "n.md", Text: "k " + key + " changed"})
	require.NoError(t, err)
	_, err = scrub.Remove(ctx, src, hits)
	require.ErrorIs(t, err, scrub.ErrChanged)
	d, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "n.md"})
	require.NoError(t, err)
	assert.Contains(t, d.Text(), "changed", "the newer write is kept")
}
