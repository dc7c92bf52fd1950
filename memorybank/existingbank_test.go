package memorybank_test

import (
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// copyDir copies testdata/legacy-bank, a folder laid out like a bank of the
// origin server, into a fresh directory.
func copyLegacyBank(t *testing.T) string {
	t.Helper()
	dst := t.TempDir()
	src := filepath.Join("testdata", "legacy-bank")
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		if d.IsDir() {
			return os.MkdirAll(filepath.Join(dst, rel), 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(filepath.Join(dst, rel), data, 0o644)
	}))
	return dst
}

func readFile(t *testing.T, dir, rel string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	require.NoError(t, err)
	return string(b)
}

func TestLegacyBankReadsUnchanged(t *testing.T) {
	dir := copyLegacyBank(t)
	store, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	defer store.Close()
	b := newBank(store)
	br, gl := memorybank.ScopeBranch, memorybank.ScopeGlobal
	before := snapshot(t, store)

	d := mustRead(t, b, br, "feature/login", "activeContext.json")
	assert.Equal(t, "active-context-feature-login", d.ID, "non-UUID ids are kept")
	assert.Equal(t, int64(3), d.Version)
	assert.Equal(t, "active_context", d.DocumentType)
	assert.Contains(t, string(d.Content), `"owner":"agent-7"`)
	assert.Contains(t, string(d.Content), `"reviewedBy":["alice"]`)

	d = mustRead(t, b, br, "feature/login", "progress.json")
	assert.Equal(t, "progress", d.DocumentType, "a top-level documentType is read")
	assert.Equal(t, "42", d.ID)
	e := decode(t, d)
	assert.Equal(t, "progress", e.Metadata["documentType"], "and shown in canonical form")
	assert.NotContains(t, string(d.Content), `"documentType":"progress","metadata"`)

	d = mustRead(t, b, br, "feature/login", "branchContext.md")
	assert.Equal(t, readFile(t, dir, "branch-memory-bank/feature-login/branchContext.md"), d.Text(), "Markdown reads as it is")
	assert.Equal(t, []string{"core", "branch-context"}, d.Tags)
	assert.Equal(t, "ブランチコンテキスト", d.Title)

	d = mustRead(t, b, gl, "", "core/glossary.md")
	assert.Equal(t, "glossary", d.ID)
	assert.Equal(t, "用語集", d.Title)
	assert.Equal(t, int64(2), d.Version)
	assert.Equal(t, []string{"core", "glossary"}, d.Tags)
	assert.Equal(t, "\n# 用語集\n\n- メモリバンク: エージェントの記憶\n", d.Text(), "front matter is metadata, not text")

	res, err := b.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "feature/login"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"activeContext.json", "branchContext.md", "progress.json"}, mapKeys(res.BranchMemory), "not re-initialised")
	assert.ElementsMatch(t, []string{"architecture.md", "core/glossary.md"}, mapKeys(res.GlobalMemory))
	assert.Equal(t, []string{"json-patch-memory-bank-approach.json"}, res.OtherGlobalFiles)

	hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"design"}, Branch: "feature/login"})
	require.NoError(t, err)
	assert.Equal(t, []hitKey{{gl, "architecture.md"}, {gl, "json-patch-memory-bank-approach.json"}}, hitKeys(hits))
	assert.Equal(t, "JSON Patchメモリバンク関数の実装アプローチ", hits[1].Title)

	assert.Equal(t, before, snapshot(t, store), "reading changes no file")
}

func TestLegacyBankPatches(t *testing.T) {
	dir := copyLegacyBank(t)
	store, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	defer store.Close()
	b := newBank(store)
	br, gl := memorybank.ScopeBranch, memorybank.ScopeGlobal

	res := mustWrite(t, b, memorybank.WriteRequest{Scope: br, Branch: "feature/login", Path: "activeContext.json",
		Patches: jsonpatch.Patch{op("add", "/content/nextSteps/-", `"テスト"`), op("replace", "/content/currentWork", `"バリデーション"`)}})
	assert.Equal(t, int64(4), res.Version)
	var stored map[string]any
	require.NoError(t, json.Unmarshal([]byte(readFile(t, dir, "branch-memory-bank/feature-login/activeContext.json")), &stored))
	meta := stored["metadata"].(map[string]any)
	assert.Equal(t, "active-context-feature-login", meta["id"])
	assert.Equal(t, "2025-03-20T10:00:00.000Z", meta["createdAt"])
	assert.Equal(t, "agent-7", meta["owner"], "extra metadata survives")
	assert.Equal(t, []any{"alice"}, stored["reviewedBy"], "extra top-level fields survive")
	content := stored["content"].(map[string]any)
	assert.Equal(t, "optimistic", content["mood"])
	assert.Equal(t, []any{"バリデーション", "テスト"}, content["nextSteps"])

	// The top-level documentType is normalised into metadata on write.
	mustWrite(t, b, memorybank.WriteRequest{Scope: br, Branch: "feature/login", Path: "progress.json",
		Patches: jsonpatch.Patch{op("add", "/content/knownIssues/-", `"遅い"`)}})
	text := readFile(t, dir, "branch-memory-bank/feature-login/progress.json")
	require.NoError(t, json.Unmarshal([]byte(text), &stored))
	assert.NotContains(t, stored, "documentType")
	assert.Equal(t, "progress", stored["metadata"].(map[string]any)["documentType"])
	assert.Equal(t, "42", stored["metadata"].(map[string]any)["id"])

	// A Markdown document without front matter gets a tag by patch: its
	// tags line follows and nothing else changes (no front matter added).
	orig := readFile(t, dir, "global-memory-bank/architecture.md")
	mustWrite(t, b, memorybank.WriteRequest{Scope: gl, Path: "architecture.md", Patches: jsonpatch.Patch{op("add", "/metadata/tags/-", `"ports"`)}})
	text = readFile(t, dir, "global-memory-bank/architecture.md")
	assert.Equal(t, strings.Replace(orig, "tags: #architecture #design #v2\n", "tags: #architecture #design #v2 #ports\n", 1), text)
	d := mustRead(t, b, gl, "", "architecture.md")
	assert.Equal(t, []string{"architecture", "design", "v2", "ports"}, d.Tags)
	assert.Equal(t, memorybank.TextVersion(text), d.Version)
	assert.Equal(t, "Architecture", d.Title)

	// Front matter documents keep their text byte for byte across a write.
	before := mustRead(t, b, gl, "", "core/glossary.md").Text()
	mustWrite(t, b, memorybank.WriteRequest{Scope: gl, Path: "core/glossary.md", Patches: jsonpatch.Patch{op("replace", "/metadata/title", `"Glossary"`)}})
	d = mustRead(t, b, gl, "", "core/glossary.md")
	assert.Equal(t, before, d.Text())
	assert.Equal(t, "Glossary", d.Title)
	assert.Equal(t, int64(3), d.Version)
	assert.Equal(t, "glossary", d.ID)
}
