package memorybank_test

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

var no = memorybank.Bool(false)

func TestReadContextSections(t *testing.T) {
	cases := []struct {
		name                  string
		req                   memorybank.ReadContextRequest
		rules, branch, global bool
		wantErr               error
	}{
		{name: "defaults: all three", req: memorybank.ReadContextRequest{Branch: "main"}, rules: true, branch: true, global: true},
		{name: "explicit true", req: memorybank.ReadContextRequest{Branch: "main", IncludeRules: memorybank.Bool(true), IncludeBranchMemory: memorybank.Bool(true), IncludeGlobalMemory: memorybank.Bool(true)}, rules: true, branch: true, global: true},
		{name: "no rules", req: memorybank.ReadContextRequest{Branch: "main", IncludeRules: no}, branch: true, global: true},
		{name: "no branch, no branch name needed", req: memorybank.ReadContextRequest{IncludeBranchMemory: no}, rules: true, global: true},
		{name: "no global", req: memorybank.ReadContextRequest{Branch: "main", IncludeGlobalMemory: no}, rules: true, branch: true},
		{name: "nothing", req: memorybank.ReadContextRequest{IncludeRules: no, IncludeBranchMemory: no, IncludeGlobalMemory: no}},
		{name: "branch missing", req: memorybank.ReadContextRequest{}, wantErr: memorybank.ErrInvalidRequest},
		{name: "bad language", req: memorybank.ReadContextRequest{Branch: "main", Language: "fr"}, wantErr: memorybank.ErrInvalidRequest},
		{name: "bad branch", req: memorybank.ReadContextRequest{Branch: "a..b"}, wantErr: memorybank.ErrInvalidBranch},
		{name: "negative budget", req: memorybank.ReadContextRequest{Branch: "main", MaxTokens: -1}, wantErr: memorybank.ErrInvalidRequest},
	}
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: ("# Architecture\n\nHexagonal.\n"), Tags: []string{"core", "architecture"}})
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				res, err := b.ReadContext(ctx, tc.req)
				if tc.wantErr != nil {
					assert.ErrorIs(t, err, tc.wantErr)
					return
				}
				require.NoError(t, err)
				var m map[string]json.RawMessage
				require.NoError(t, json.Unmarshal(must(json.Marshal(res)), &m))
				_, hasRules := m["rules"]
				_, hasBranch := m["branchMemory"]
				_, hasGlobal := m["globalMemory"]
				assert.Equal(t, tc.rules, hasRules, "rules section")
				assert.Equal(t, tc.branch, hasBranch, "branchMemory section")
				assert.Equal(t, tc.global, hasGlobal, "globalMemory section")
				if tc.global {
					assert.Contains(t, res.GlobalMemory, "architecture.md")
				}
			})
		}
	})
}

// The output has seed 004's shape: {rules:{content}, branchMemory:{path:{path,
// content, tags, lastModified}}, globalMemory:{...}}, and a new branch bank
// is initialised with its core files.
func TestReadContextOutputShape(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "glossary.md", Text: ("# Glossary\n"), Tags: []string{"core", "glossary"}})
	res, err := b.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "feature/login", Language: memorybank.English})
	require.NoError(t, err)
	out := string(must(json.Marshal(res)))
	var shape struct {
		Rules        struct{ Content string }
		BranchMemory map[string]struct {
			Path         string
			Content      json.RawMessage
			Tags         []string
			LastModified string
		}
		GlobalMemory map[string]map[string]json.RawMessage
	}
	require.NoError(t, json.Unmarshal([]byte(out), &shape))
	assert.True(t, strings.HasPrefix(shape.Rules.Content, "# Memory bank rules"))
	require.Len(t, shape.BranchMemory, 4)
	for _, f := range memorybank.DefaultBranchCoreFiles() {
		cf, ok := shape.BranchMemory[f]
		require.True(t, ok, f)
		assert.Equal(t, f, cf.Path)
		assert.Equal(t, byte('{'), cf.Content[0], "content is parsed JSON")
		assert.Contains(t, cf.Tags, "core")
		lm, err := time.Parse(time.RFC3339, cf.LastModified)
		require.NoError(t, err, "lastModified is RFC 3339")
		assert.True(t, lm.After(t0) && lm.Before(t0.Add(time.Minute)), "lastModified comes from the clock: %s", lm)
	}
	assert.Contains(t, string(shape.BranchMemory["branchContext.json"].Content), `"branchName":"feature/login"`)
	assert.Equal(t, []string{"content", "lastModified", "path", "tags"}, keys(shape.GlobalMemory["glossary.md"]))
	assert.JSONEq(t, `"# Glossary\n"`, string(shape.GlobalMemory["glossary.md"]["content"]))
	assert.NotContains(t, out, "truncated")

	// The templates were written: a second call reads them, it does not
	// recreate them.
	d := mustRead(t, b, memorybank.ScopeBranch, "feature/login", "progress.json")
	assert.Equal(t, int64(1), d.Version)
	assert.Equal(t, "Progress", d.Title)
	_, err = b.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "feature/login"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), mustRead(t, b, memorybank.ScopeBranch, "feature/login", "progress.json").Version)
}

func keys(m map[string]json.RawMessage) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slicesSort(out)
	return out
}

func TestReadContextLanguages(t *testing.T) {
	for _, tc := range []struct {
		lang       memorybank.Language
		opt        memorybank.Language
		rulesStart string
		title      string
	}{
		{"", "", "# メモリバンクのルール", "進捗状況"}, // the default is Japanese, as seed 004 says
		{"en", "", "# Memory bank rules", "Progress"},
		{"ja", "en", "# メモリバンクのルール", "進捗状況"},
		{"zh", "", "# 记忆库规则", "进度"},
		{"", "zh", "# 记忆库规则", "进度"},
	} {
		b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{Language: tc.opt})
		res, err := b.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main", Language: tc.lang})
		require.NoError(t, err)
		assert.True(t, strings.HasPrefix(res.Rules.Content, tc.rulesStart), "%q/%q", tc.lang, tc.opt)
		assert.Equal(t, tc.title, mustRead(t, b, memorybank.ScopeBranch, "main", "progress.json").Title)
	}
}

func TestRulesOverride(t *testing.T) {
	store := &memorybank.MemStore{}
	b := memorybank.New(store, &memorybank.Options{DefaultRules: map[memorybank.Language]string{memorybank.English: "custom en rules"}})
	r, err := b.Rules(ctx, memorybank.English)
	require.NoError(t, err)
	assert.Equal(t, "custom en rules", r)
	r, err = b.Rules(ctx, memorybank.Japanese)
	require.NoError(t, err)
	assert.Equal(t, memorybank.BuiltinRules(memorybank.Japanese), r, "other languages keep the built-in rules")

	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: memorybank.RulesPath(memorybank.English), Text: ("team rules\n")})
	res, err := b.ReadContext(ctx, memorybank.ReadContextRequest{Language: memorybank.English, IncludeBranchMemory: no})
	require.NoError(t, err)
	assert.Equal(t, "team rules\n", res.Rules.Content, "the stored rules document wins")
	_, err = b.Rules(ctx, "de")
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	for _, l := range memorybank.Languages() {
		assert.NotEmpty(t, memorybank.BuiltinRules(l))
	}
}

func TestReadContextCoreFilesAndBudget(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	g := memorybank.ScopeGlobal
	for _, p := range []string{"core/a.md", "core/b.json", "tech-stack.md", "notes/x.md", "notes/y.json", "notes/q&a&&&&&&&&.md"} {
		req := memorybank.WriteRequest{Scope: g, Path: p, Text: "# " + p + "\n" + strings.Repeat("text ", 20)}
		if strings.HasSuffix(p, ".json") {
			req.Text, req.Content = "", raw(`{"k":"`+strings.Repeat("v", 100)+`"}`)
		}
		mustWrite(t, b, req)
	}
	// A Markdown bank: branchContext.md stands in for branchContext.json.
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "md", Path: "branchContext.md", Text: ("# Branch\n")})
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "md", Path: "scratch.md", Text: ("s")})

	res, err := b.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "md", IncludeRules: no})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"core/a.md", "core/b.json", "tech-stack.md"}, mapKeys(res.GlobalMemory))
	assert.Equal(t, []string{"notes/q&a&&&&&&&&.md", "notes/x.md", "notes/y.json"}, res.OtherGlobalFiles)
	assert.Equal(t, []string{"branchContext.md"}, mapKeys(res.BranchMemory), "a non-empty branch bank is not initialised")
	assert.Equal(t, []string{"scratch.md"}, res.OtherBranchFiles)
	assert.False(t, res.Truncated)

	// A token budget (Options.ContextTokens, without a query) takes core
	// files in order, branch first, and lists by path those that did not fit.
	full := tokensUsed(res)
	for _, budget := range []int{full / 2, full * 3 / 5, full * 3 / 4} {
		bb := memorybank.New(b.Store(), &memorybank.Options{ContextTokens: budget})
		res, err = bb.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "md", IncludeRules: no})
		require.NoError(t, err)
		assert.True(t, res.Truncated)
		assert.Contains(t, res.BranchMemory, "branchContext.md", "branch core files come first")
		assert.Less(t, len(res.GlobalMemory), 3)
		assert.LessOrEqual(t, tokensUsed(res), budget)
		for _, p := range []string{"core/a.md", "core/b.json", "tech-stack.md"} {
			_, inMemory := res.GlobalMemory[p]
			assert.True(t, inMemory || slices.Contains(res.OtherGlobalFiles, p), "budget %d: core file %s is neither included nor listed", budget, p)
		}
		assert.True(t, slices.IsSorted(res.OtherGlobalFiles))
	}
	// The budget from Options applies when the request has none.
	b2 := memorybank.New(b.Store(), &memorybank.Options{ContextTokens: 1})
	res, err = b2.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "md", IncludeRules: no})
	require.NoError(t, err)
	assert.True(t, res.Truncated)
}

func mapKeys(m map[string]memorybank.ContextFile) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slicesSort(out)
	return out
}

func TestOptionsDefaults(t *testing.T) {
	o := memorybank.New(&memorybank.MemStore{}, nil).Options()
	assert.Equal(t, memorybank.Japanese, o.Language)
	assert.Equal(t, memorybank.DefaultMaxDocumentBytes, o.MaxDocumentBytes)
	assert.Equal(t, memorybank.DefaultMaxPatchOps, o.MaxPatchOps)
	assert.Equal(t, memorybank.DefaultMaxTags, o.MaxTags)
	assert.Equal(t, memorybank.DefaultMaxRetries, o.MaxRetries)
	assert.Equal(t, memorybank.DefaultBranchCoreFiles(), o.BranchCoreFiles)
	o.BranchCoreFiles[0] = "changed"
	assert.Equal(t, "branchContext.json", memorybank.DefaultBranchCoreFiles()[0], "options are copies")
}

// The first ReadContext of a fresh Bank (a new process) on a large bank
// reads the core files it returns, the rules and the branch marker, and
// lists each bank once: never the other documents.
func TestFirstReadContextReadsOnlyWhatItReturns(t *testing.T) {
	mem := &memorybank.MemStore{}
	populate(t, mem, 1000)
	seed := newBank(mem)
	core := []string{"architecture.md", "glossary.md"}
	for _, p := range core {
		mustWrite(t, seed, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: p, Text: "# " + p + "\n", Tags: []string{"core"}})
	}
	_, err := seed.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main"}) // initialises the branch bank
	require.NoError(t, err)

	store := &countingStore{Store: mem}
	res, err := memorybank.New(store, nil).ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main"})
	require.NoError(t, err)
	assert.Len(t, res.BranchMemory, 4)
	assert.Equal(t, core, mapKeys(res.GlobalMemory))
	// The listing is bounded by a tenth of the default token budget; the
	// rest is counted.
	assert.Less(t, len(res.OtherGlobalFiles), 1000)
	assert.Equal(t, 1000, len(res.OtherGlobalFiles)+res.More)
	assert.Equal(t, fmt.Sprintf("and %d more; use search_documents or list_documents", res.More), res.Note)
	// The rules document (absent: the built-in rules are used), the branch
	// marker, and the six files returned.
	assert.Equal(t, int64(1+1+4+2), store.gets.Load())
	assert.Equal(t, int64(2), store.lists.Load(), "one List per bank")
	assert.Equal(t, int64(0), store.puts.Load())
}

// A warm ReadContext reads no core file that has not changed since the
// last call (the bank's index knows their store versions): only the rules
// document, which may be edited at any time; a changed core file is read
// again.
func TestWarmReadContextReadsOnlyChangedFiles(t *testing.T) {
	mem := &memorybank.MemStore{}
	populate(t, mem, 100)
	store := &countingStore{Store: mem}
	b := newBank(store)
	for _, p := range []string{"architecture.md", "glossary.md"} {
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: p, Text: "# " + p + "\n", Tags: []string{"core"}})
	}
	req := memorybank.ReadContextRequest{Branch: "main"}
	_, err := b.ReadContext(ctx, req)
	require.NoError(t, err)

	store.reset()
	res, err := b.ReadContext(ctx, req)
	require.NoError(t, err)
	assert.Len(t, res.BranchMemory, 4)
	assert.Len(t, res.GlobalMemory, 2)
	assert.Equal(t, int64(1), store.gets.Load(), "the rules document only")

	mustWrite(t, newBank(mem), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "glossary.md", Text: "# Glossary\n\nNew.\n", Tags: []string{"core"}})
	store.reset()
	res, err = b.ReadContext(ctx, req)
	require.NoError(t, err)
	assert.Equal(t, int64(1+1), store.gets.Load(), "the rules and the changed file")
	assert.JSONEq(t, `"# Glossary\n\nNew.\n"`, string(res.GlobalMemory["glossary.md"].Content))
}

// ReadContext keeps what it made of each document between calls; a change
// made through another Bank or straight in the store still shows on the
// next call, and a caller editing a result changes no later one.
func TestReadContextShowsEveryChangeOfAFile(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		g := memorybank.ScopeGlobal
		b := newBank(store)
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "architecture.md", Text: "# Architecture\n\nHexagonal.\n", Tags: []string{"core"}})
		req := memorybank.ReadContextRequest{IncludeBranchMemory: no}
		text := func() (string, []string) {
			res, err := b.ReadContext(ctx, req)
			require.NoError(t, err)
			cf, ok := res.GlobalMemory["architecture.md"]
			require.True(t, ok, "architecture.md is a global core file")
			var s string
			require.NoError(t, json.Unmarshal(cf.Content, &s))
			return s, cf.Tags
		}

		res, err := b.ReadContext(ctx, req)
		require.NoError(t, err)
		cf := res.GlobalMemory["architecture.md"]
		for i := range cf.Content {
			cf.Content[i] = ' '
		}
		cf.Tags[0] = "edited"
		s, tags := text()
		assert.Equal(t, "# Architecture\n\nHexagonal.\n", s, "a caller's edit of a result shows in no later one")
		assert.Equal(t, []string{"core"}, tags)

		mustWrite(t, newBank(store), memorybank.WriteRequest{Scope: g, Path: "architecture.md", Text: "# Architecture\n\nLayered.\n", Tags: []string{"core"}})
		s, _ = text()
		assert.Equal(t, "# Architecture\n\nLayered.\n", s, "a write through another Bank")

		_, err = store.Put(ctx, memorybank.GlobalPrefix+"architecture.md", []byte("# Architecture\n\nEdited by hand.\n"), memorybank.Condition{})
		require.NoError(t, err)
		s, tags = text()
		assert.Equal(t, "# Architecture\n\nEdited by hand.\n", s, "an edit in the store")
		assert.Equal(t, []string{}, tags)
	})
}
