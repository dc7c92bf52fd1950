package ui_test

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/dottest"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memorybank"
)

func TestPagesShowTheBank(t *testing.T) {
	dottest.Use(t) // the skill graph drawn by the real mnemobank-dot
	f := newFixture(t, ui.Options{})
	f.seed()
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nThe service talks to SQLite.\n", Reason: "moved to SQLite", Actor: "claude-code"})
	mems, err := f.mem.List(t.Context())
	require.NoError(t, err)
	require.NoError(t, f.mem.Delete(t.Context(), mems[0].ID))
	_, err = f.mem.Add(t.Context(), "Prefer table tests", "preference")
	require.NoError(t, err)

	for _, c := range []struct {
		url  string
		want []string
	}{
		{"/ui/", []string{`id="banks"`, "global", "branch feature/login", `id="feed"`, `/ui/static/ui.js`}},
		{"/ui/docs?scope=global", []string{`id="documents"`, "architecture.md", "decisions.json", "skills/release.json", "design"}},
		{"/ui/docs?scope=branch&branch=feature%2Flogin", []string{"progress.md"}},
		{"/ui/doc?scope=global&path=architecture.md", []string{`id="doc-content"`, "SQLite", `id="doc-version">2<`, "design"}},
		{"/ui/doc?scope=global&path=architecture.md&version=1", []string{"PostgreSQL", `id="old-version"`}},
		{"/ui/doc?scope=global&path=decisions.json", []string{`id="doc-content"`, "use pgx", "maintained"}},
		{"/ui/history?scope=global&path=architecture.md", []string{`id="history"`, "claude-code", "moved to SQLite", `id="diff-form"`, "revert to this"}},
		{"/ui/diff?scope=global&path=architecture.md&from=1&to=2", []string{`id="diff"`, `class="add"`, `class="del"`, "SQLite", "PostgreSQL"}},
		{"/ui/diff?scope=global&path=architecture.md", []string{`id="diff"`, "from version 1 to version 2"}},
		{"/ui/search", []string{`id="search-form"`}},
		{"/ui/search?q=login&scope=all", []string{`id="results"`, "progress.md", "Login form"}},
		{"/ui/search?q=sqlite&scope=global&tags=design", []string{`id="results"`, "architecture.md"}},
		{"/ui/memories", []string{`id="memories"`, "Prefer table tests", "delete…"}},
		{"/ui/memories?q=table", []string{`id="memories"`, "Prefer table tests"}},
		{"/ui/memories/trash", []string{`id="trash"`, "Run go test with -race", "restore…"}},
		{"/ui/skills", []string{`id="skills"`, "release"}},
		{"/ui/skill?id=release", []string{`id="graph"`, `src="/ui/skill/graph.svg?id=release`, `id="skill-md"`, "Tag the release", `<pre class="front-matter">name: release`}},
		{"/ui/revert?scope=global&path=architecture.md&version=1", []string{`class="revert"`, `name="csrf"`, "person:ui"}},
		{"/ui/static/ui.css", []string{"table.diff"}},
		{"/ui/static/ui.js", []string{"EventSource"}},
	} {
		res := f.get(c.url)
		require.Equal(t, http.StatusOK, res.Code, "%s: %s", c.url, res.Body)
		for _, w := range c.want {
			assert.Contains(t, res.Body, w, c.url)
		}
	}
	res := f.get("/ui/skill/graph.svg?id=release")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	assert.Equal(t, "image/svg+xml", res.Header.Get("Content-Type"))
	assert.Contains(t, res.Body, "<svg")
	assert.Contains(t, res.Body, "Tag the release")
}

func TestMissingThingsAreNotFound(t *testing.T) {
	f := newFixture(t, ui.Options{})
	f.seed()
	for _, u := range []string{
		"/ui/doc?scope=global&path=nothing.md",
		"/ui/skill?id=nothing",
		"/ui/memories/delete?id=mem-0-00000000",
		"/ui/memories/restore?id=mem-0-00000000",
		"/ui/no-such-page",
	} {
		res := f.get(u)
		assert.Equal(t, http.StatusNotFound, res.Code, u)
		assert.Contains(t, res.Body, `id="error"`, u)
	}
}

func TestBadRequestsSayWhatIsWrong(t *testing.T) {
	f := newFixture(t, ui.Options{})
	f.seed()
	for _, c := range []struct{ url, want string }{
		{"/ui/docs?scope=elsewhere", "scope &#34;elsewhere&#34; is not global or branch"},
		{"/ui/docs?scope=branch&branch=..", "branch"},
		{"/ui/doc?scope=global&path=../etc/passwd", "path"},
		{"/ui/doc?scope=global&path=architecture.md&version=zero", "not a version number"},
		{"/ui/docs?scope=global&offset=-1", "offset"},
		{"/ui/docs?scope=global&limit=101", "limit &#34;101&#34; is not a number from 1 to 100"},
		{"/ui/docs?scope=global&limit=0", "limit"},
		{"/ui/docs?scope=global&offset=1000001", "offset"},
		{"/ui/search?q=" + url.QueryEscape(string(make([]byte, 0))) + "&scope=branch", "scope branch needs a branch"},
		{"/ui/memories?q=" + repeat("a", 1025), "the query is 1025 bytes; the limit is 1024"},
		{"/ui/skill?id=..%2Fx", "invalid skill id"},
	} {
		res := f.get(c.url)
		assert.Equal(t, http.StatusBadRequest, res.Code, c.url)
		assert.Contains(t, res.Body, c.want, c.url)
	}
	res := f.get("/ui/search?q=" + repeat("a", 9000))
	assert.Equal(t, http.StatusRequestURITooLong, res.Code)
}

func repeat(s string, n int) string {
	b := make([]byte, 0, n*len(s))
	for range n {
		b = append(b, s...)
	}
	return string(b)
}

func TestListsPage(t *testing.T) {
	f := newFixture(t, ui.Options{})
	for i := range 120 {
		f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/" + string(rune('a'+i/26)) + string(rune('a'+i%26)) + ".md", Text: "note"})
	}
	res := f.get("/ui/docs?scope=global")
	require.Equal(t, http.StatusOK, res.Code)
	assert.Contains(t, res.Body, "1–50 of 120")
	assert.Contains(t, res.Body, `id="next" href="/ui/docs?offset=50&amp;scope=global"`)
	assert.NotContains(t, res.Body, `id="prev"`)

	res = f.get("/ui/docs?scope=global&offset=100")
	assert.Contains(t, res.Body, "101–120 of 120")
	assert.Contains(t, res.Body, `id="prev" href="/ui/docs?offset=50&amp;scope=global"`)
	assert.NotContains(t, res.Body, `id="next"`)
	assert.Contains(t, res.Body, "notes/ep.md", "the last document is on the last page")

	res = f.get("/ui/docs?scope=global&offset=5000")
	require.Equal(t, http.StatusOK, res.Code, "an offset past the end is an empty page, not an error")
	assert.Contains(t, res.Body, `id="prev"`)

	res = f.get("/ui/docs?scope=global&limit=100")
	assert.Contains(t, res.Body, "1–100 of 120")
}

func TestNewRefusesBadOptions(t *testing.T) {
	_, err := ui.New(ui.Options{})
	assert.ErrorIs(t, err, ui.ErrOptions)
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	_, err = ui.New(ui.Options{Bank: bank, Hosts: []string{"*"}})
	assert.ErrorIs(t, err, ui.ErrOptions, "any host without a token would allow DNS rebinding")
	_, err = ui.New(ui.Options{Bank: bank, Hosts: []string{"http://bank.example.org/"}})
	assert.ErrorIs(t, err, ui.ErrOptions)
}

// A change too large for render.LineDiff to match line by line is shown as
// the old part removed and the new part added whole; the page says so, so
// that a reader does not take it for a rewrite of every line.
func TestDiffSaysWhenItIsTooLargeToMatch(t *testing.T) {
	f := newFixture(t, ui.Options{})
	lines := func(prefix string, n int) string {
		b := make([]byte, 0, n*12)
		for i := range n {
			b = append(b, prefix...)
			b = strconv.AppendInt(b, int64(i), 10)
			b = append(b, '\n')
		}
		return string(b)
	}
	old, changed := lines("line ", render.MaxDiffLines+1), lines("changed ", render.MaxDiffLines+1)
	require.True(t, render.DiffTooLarge(old, changed), "the fixture must be past the matcher's limit")
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "big.md", Text: old})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "big.md", Text: changed})

	res := f.get("/ui/diff?scope=global&path=big.md&from=1&to=2")
	require.Equal(t, http.StatusOK, res.Code)
	for _, want := range []string{`id="diff-note"`, "too large to match line by line", strconv.Itoa(render.MaxDiffLines) + " lines", "all removed", "all added"} {
		assert.True(t, strings.Contains(res.Body, want), "the diff page lacks %q", want) // not Contains: the page is 4,000 rows
	}

	// A small change has no such note.
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "big.md", Text: changed + "one more\n"})
	res = f.get("/ui/diff?scope=global&path=big.md&from=2&to=3")
	require.Equal(t, http.StatusOK, res.Code)
	assert.True(t, strings.Contains(res.Body, `class="add"`), "the added line is shown")
	assert.False(t, strings.Contains(res.Body, `id="diff-note"`), "a small change needs no note")
}
