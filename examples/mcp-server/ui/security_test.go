package ui_test

import (
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memorybank"
)

const wantCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// hostile is what a model, or a repository's author, might put in a
// memory: each must reach the page as text or be removed, never as markup
// that runs.
var hostile = []string{
	`<script>document.title="pwned"</script>`,
	`[click](javascript:alert(1))`,
	`<a href="javascript:alert(1)">x</a>`,
	`<img src=x onerror="alert(1)">`,
	`<svg onload="alert(1)"><circle r="1"/></svg>`,
	`</textarea><script>alert(1)</script>`,
	`<iframe src="https://evil.example"></iframe>`,
	`"><img src=x onerror=alert(1)>`,
}

// live finds markup that would run or load something: a script element
// other than the viewer's own, an event handler attribute, a javascript:
// URL in an attribute, an iframe.
var (
	live      = regexp.MustCompile(`(?i)<script(?:[^>]*)>|<[a-z][^>]*\son[a-z]+\s*=|<iframe`)
	liveValue = regexp.MustCompile(`(?i)<[^>]*\s(?:href|src|action|formaction|xlink:href|data)\s*=\s*"\s*(?:javascript|vbscript|data):`)
)

// quoted is an attribute value: the viewer's markup quotes every value
// and escapes every quote of text, so what is inside is data.
var quoted = regexp.MustCompile(`"[^"]*"`)

func assertInert(t *testing.T, page, body string) {
	t.Helper()
	own := `<script src="" defer>`
	for _, m := range live.FindAllString(quoted.ReplaceAllString(body, `""`), -1) {
		if m != own {
			t.Errorf("%s: live markup %q in the page", page, m)
		}
	}
	for _, m := range liveValue.FindAllString(body, -1) {
		t.Errorf("%s: a script URL in %q", page, m)
	}
}

func TestHostileContentRunsNothing(t *testing.T) {
	f := newFixture(t, ui.Options{})
	text := "# Notes " + hostile[0] + "\n\n" + strings.Join(hostile, "\n\n") + "\n"
	branch := `evil'onmouseover='alert(1)'&amp;x`
	require.NoError(t, memorybank.ValidateBranch(branch), "git allows these characters in a branch name")
	tag := `<b onmouseover="alert(1)">tag</b>`
	path := `notes/x'onerror='alert(1)'&amp;.md`
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: path, Text: text, Tags: []string{tag}})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: path, Text: text + "more\n", Actor: `<script>alert("actor")</script>`, Reason: hostile[3]})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "evil.json", Content: []byte(`{"content":{"<script>alert(1)</script>":"</textarea><img src=x onerror=alert(1)>","link":"javascript:alert(1)"}}`)})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: branch, Path: "progress.md", Text: text})
	_, err := f.mem.Add(t.Context(), strings.Join(hostile, "\n"), tag)
	require.NoError(t, err)
	_, err = f.mem.Add(t.Context(), hostile[0]+" to delete")
	require.NoError(t, err)
	ms, err := f.mem.List(t.Context())
	require.NoError(t, err)
	require.NoError(t, f.mem.Delete(t.Context(), ms[1].ID))

	doc := url.Values{"scope": {"global"}, "path": {path}}.Encode()
	br := url.Values{"scope": {"branch"}, "branch": {branch}}
	pages := []string{
		"/ui/", "/ui/docs?scope=global", "/ui/docs?" + br.Encode(),
		"/ui/doc?" + doc, "/ui/doc?" + doc + "&version=1", "/ui/history?" + doc, "/ui/diff?" + doc + "&from=1&to=2",
		"/ui/revert?" + doc + "&version=1",
		"/ui/doc?scope=global&path=evil.json",
		"/ui/doc?" + url.Values{"scope": {"branch"}, "branch": {branch}, "path": {"progress.md"}}.Encode(),
		"/ui/search?" + url.Values{"q": {"script alert notes"}, "tags": {tag}}.Encode(),
		"/ui/search?" + url.Values{"q": {"notes"}, "scope": {"branch"}, "branch": {branch}}.Encode(),
		"/ui/memories", "/ui/memories?q=alert", "/ui/memories/trash",
		"/ui/memories/delete?id=" + url.QueryEscape(ms[0].ID),
		"/ui/memories/restore?id=" + url.QueryEscape(ms[1].ID),
		"/ui/search?" + url.Values{"q": {hostile[5]}}.Encode(),
		"/ui/docs?" + url.Values{"scope": {"global"}, "prefix": {hostile[7]}}.Encode(),
		"/ui/nothing" + url.PathEscape(hostile[0]),
		"/ui/docs?scope=" + url.QueryEscape(hostile[0]),
	}
	for _, p := range pages {
		res := f.get(p)
		assert.Less(t, res.Code, 500, p)
		assertInert(t, p, res.Body)
	}
	res := f.get("/ui/doc?" + doc)
	assert.Contains(t, res.Body, "Notes", "the hostile document is shown, as text")
	res = f.get("/ui/history?" + doc)
	assert.Contains(t, res.Body, `&lt;script&gt;alert(&#34;actor&#34;)&lt;/script&gt;`, "the actor is escaped text")
}

func TestEveryResponseCarriesThePolicy(t *testing.T) {
	standInRenderer(t)
	f := newFixture(t, ui.Options{})
	f.seed()
	for _, p := range []string{"/ui/", "/ui/docs?scope=global", "/ui/doc?scope=global&path=architecture.md", "/ui/search?q=x",
		"/ui/memories", "/ui/static/ui.js", "/ui/nothing", "/ui/docs?scope=x"} {
		res := f.get(p)
		assert.Equal(t, wantCSP, res.Header.Get("Content-Security-Policy"), p)
		assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), p)
		assert.Equal(t, "same-origin", res.Header.Get("Referrer-Policy"), p)
	}
	res := f.get("/ui/skill/graph.svg?id=release")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	assert.Equal(t, "default-src 'none'; style-src 'unsafe-inline'", res.Header.Get("Content-Security-Policy"), "the picture has its own policy")
	res = f.do(httptest.NewRequest(http.MethodGet, "http://evil.example/ui/", nil))
	assert.Equal(t, wantCSP, res.Header.Get("Content-Security-Policy"), "refusals carry it too")
}

func TestForeignHostIsRefused(t *testing.T) {
	f := newFixture(t, ui.Options{})
	for _, host := range []string{"evil.example", "evil.example:7777", "localhost.evil.example", "127.0.0.2.nip.io", ""} {
		req := httptest.NewRequest(http.MethodGet, "/ui/", nil)
		req.Host = host
		if host == "" {
			req.Host = "x"
		}
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusMisdirectedRequest, rec.Code, host)
	}
	for _, host := range []string{"localhost", "localhost:7777", "127.0.0.1:7777", "[::1]:7777", "LOCALHOST."} {
		req := httptest.NewRequest(http.MethodGet, "/ui/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		assert.Equal(t, http.StatusOK, rec.Code, host)
	}
	g := newFixture(t, ui.Options{Hosts: []string{"bank.example.org"}})
	req := httptest.NewRequest(http.MethodGet, "/ui/", nil)
	req.Host = "bank.example.org:7777"
	rec := httptest.NewRecorder()
	g.h.ServeHTTP(rec, req)
	assert.Equal(t, http.StatusOK, rec.Code, "a configured host is served")
}

// revertForm is a valid revert of architecture.md to version 1.
func revertForm(t *testing.T, f *fixture) (string, url.Values) {
	t.Helper()
	f.seed()
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nSQLite now.\n"})
	return f.confirmForm("/ui/revert?scope=global&path=architecture.md&version=1")
}

func currentText(t *testing.T, f *fixture) string {
	t.Helper()
	d, err := f.bank.Read(t.Context(), memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md"})
	require.NoError(t, err)
	return d.Text()
}

func TestCrossOriginChangesAreRefused(t *testing.T) {
	f := newFixture(t, ui.Options{})
	action, form := revertForm(t, f)
	for _, c := range []struct{ origin, site string }{
		{"http://evil.example", ""},
		{"null", ""},
		{"", "cross-site"},
		{"", "same-site"},
		{"http://localhost:7777", "cross-site"},
		{"http://localhost:8888", ""},
	} {
		req := httptest.NewRequest(http.MethodPost, action, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		if c.origin != "" {
			req.Header.Set("Origin", c.origin)
		}
		if c.site != "" {
			req.Header.Set("Sec-Fetch-Site", c.site)
		}
		res := f.do(req)
		assert.Equal(t, http.StatusForbidden, res.Code, "%+v", c)
	}
	assert.Contains(t, currentText(t, f), "SQLite", "nothing was reverted")
	res := f.post(action, form)
	assert.Equal(t, http.StatusSeeOther, res.Code, "the same form from the viewer's own page goes through: %s", res.Body)
}

func TestChangesNeedTheCSRFToken(t *testing.T) {
	f := newFixture(t, ui.Options{})
	action, form := revertForm(t, f)
	good := form.Get("csrf")
	for name, tok := range map[string]string{
		"missing":         "",
		"garbage":         "not-a-token",
		"forged":          "1700000000.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA",
		"other process":   newFixtureToken(t),
		"tampered time":   "1" + good,
		"for other forms": csrfOf(t, f, "/ui/memories/delete?id="+url.QueryEscape(firstMemory(t, f))),
	} {
		form.Set("csrf", tok)
		res := f.post(action, form)
		assert.Equal(t, http.StatusForbidden, res.Code, name)
		assert.Contains(t, res.Body, "CSRF", name)
	}
	assert.Contains(t, currentText(t, f), "SQLite", "nothing was reverted")
}

// newFixtureToken is a valid token of another Handler (another process).
func newFixtureToken(t *testing.T) string {
	g := newFixture(t, ui.Options{})
	g.seed()
	_, form := g.confirmForm("/ui/revert?scope=global&path=architecture.md&version=1")
	return form.Get("csrf")
}

func csrfOf(t *testing.T, f *fixture, page string) string {
	_, form := f.confirmForm(page)
	return form.Get("csrf")
}

func firstMemory(t *testing.T, f *fixture) string {
	ms, err := f.mem.List(t.Context())
	require.NoError(t, err)
	require.NotEmpty(t, ms)
	return ms[0].ID
}

func TestReadOnlyHidesAndRefusesChanges(t *testing.T) {
	rw := newFixture(t, ui.Options{})
	action, form := revertForm(t, rw)
	id := firstMemory(t, rw)
	_, delForm := rw.confirmForm("/ui/memories/delete?id=" + url.QueryEscape(id))

	f := newFixture(t, ui.Options{Bank: rw.bank, Memories: rw.mem, ReadOnly: true})
	require.NoError(t, rw.mem.Delete(t.Context(), id))
	_, err := rw.mem.Restore(t.Context(), id)
	require.NoError(t, err)

	for _, p := range []string{"/ui/", "/ui/history?scope=global&path=architecture.md", "/ui/memories", "/ui/memories/trash", "/ui/doc?scope=global&path=architecture.md"} {
		res := f.get(p)
		require.Equal(t, http.StatusOK, res.Code, p)
		assert.NotContains(t, res.Body, `method="post"`, p)
		assert.NotContains(t, res.Body, "revert-link", p)
		assert.NotContains(t, res.Body, "delete-link", p)
		assert.NotContains(t, res.Body, "restore-link", p)
		assert.Contains(t, res.Body, `id="read-only"`, p)
	}
	for _, p := range []string{"/ui/revert?scope=global&path=architecture.md&version=1", "/ui/memories/delete?id=" + url.QueryEscape(id), "/ui/memories/restore?id=" + url.QueryEscape(id)} {
		assert.Equal(t, http.StatusForbidden, f.get(p).Code, p)
	}
	// Even with a token a read-write viewer of this process would accept:
	// the refusal comes before the token is looked at.
	assert.Equal(t, http.StatusForbidden, f.post(action, form).Code)
	assert.Equal(t, http.StatusForbidden, f.post("/ui/memories/delete", delForm).Code)
	assert.Equal(t, http.StatusForbidden, f.post("/ui/memories/restore", delForm).Code)
	assert.Contains(t, currentText(t, f), "SQLite")
	_, err = f.mem.Get(t.Context(), id)
	assert.NoError(t, err, "the memory is still there")
}

const token = "0123456789abcdef0123456789abcdef-token"

func TestTokenOnceThenCookie(t *testing.T) {
	f := newFixture(t, ui.Options{Token: token})
	f.seed()
	res := f.get("/ui/")
	assert.Equal(t, http.StatusUnauthorized, res.Code)
	assert.NotContains(t, res.Body, `id="banks"`)
	res = f.get("/ui/static/ui.js")
	assert.Equal(t, http.StatusUnauthorized, res.Code, "assets too")
	assert.Equal(t, http.StatusUnauthorized, f.get("/ui/?token=wrong"+token).Code)
	assert.Equal(t, http.StatusUnauthorized, f.get("/ui/?token="+token[:len(token)-1]).Code)

	res = f.get("/ui/docs?scope=global&token=" + token)
	require.Equal(t, http.StatusSeeOther, res.Code)
	assert.Equal(t, "/ui/docs?scope=global", res.Header.Get("Location"), "the token leaves the address")
	cookies := (&http.Response{Header: res.Header}).Cookies()
	require.Len(t, cookies, 1)
	c := cookies[0]
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	assert.Equal(t, "/ui/", c.Path)
	assert.NotContains(t, c.Value, token, "the cookie is not the token")

	res = f.get("//evil.example/x?token=" + token)
	require.Equal(t, http.StatusSeeOther, res.Code)
	assert.Equal(t, "/ui/", res.Header.Get("Location"), "the redirect never leaves the viewer")

	req := httptest.NewRequest(http.MethodGet, "/ui/docs?scope=global", nil)
	req.AddCookie(c)
	res = f.do(req)
	assert.Equal(t, http.StatusOK, res.Code)
	assert.Contains(t, res.Body, "architecture.md")

	req = httptest.NewRequest(http.MethodGet, "/ui/", nil)
	req.AddCookie(&http.Cookie{Name: c.Name, Value: c.Value + "x"})
	assert.Equal(t, http.StatusUnauthorized, f.do(req).Code)

	req = httptest.NewRequest(http.MethodGet, "/ui/", nil)
	req.Header.Set("Authorization", "Bearer "+token)
	assert.Equal(t, http.StatusOK, f.do(req).Code)
	req = httptest.NewRequest(http.MethodGet, "/ui/", nil)
	req.Header.Set("Authorization", "Bearer "+token+"x")
	assert.Equal(t, http.StatusUnauthorized, f.do(req).Code)

	g := newFixture(t, ui.Options{Token: token + "-other"})
	req = httptest.NewRequest(http.MethodGet, "/ui/", nil)
	req.AddCookie(c)
	assert.Equal(t, http.StatusUnauthorized, g.do(req).Code, "a cookie of another token is refused")
}
