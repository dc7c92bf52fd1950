package ui_test

// An adversarial review of the viewer: each test is an attack, kept as a
// regression guard. Every assertion names the header, status or escaping
// that stops the attack, so a change that weakens it fails here.

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/internal/browsertest"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/skillgraph"
	"github.com/mnemobank/mnemobank/skillgraph/skilldoc"
)

const xss = `"'><script>alert(1)</script><img src=x onerror=alert(1)>`

// Every parameter a page echoes back (in a form, a title, an error) is
// escaped: the raw payload never appears, its escaped form does.
func TestReviewReflectedInputIsEscaped(t *testing.T) {
	f := newFixture(t, ui.Options{})
	f.seed()
	q := url.QueryEscape(xss)
	for _, p := range []string{
		"/ui/search?q=" + q,
		"/ui/search?q=x&tags=" + q,
		"/ui/search?q=x&branch=" + q,
		"/ui/search?q=x&scope=" + q,
		"/ui/memories?q=" + q,
		"/ui/docs?scope=global&prefix=" + q,
		"/ui/docs?scope=branch&branch=" + q,
		"/ui/doc?scope=global&path=" + q,
		"/ui/doc?scope=global&path=architecture.md&version=" + q,
		"/ui/history?scope=global&path=architecture.md&offset=" + q,
		"/ui/history?scope=global&path=architecture.md&limit=" + q,
		"/ui/diff?scope=global&path=architecture.md&from=" + q,
		"/ui/revert?scope=global&path=architecture.md&version=" + q,
		"/ui/memories/delete?id=" + q,
		"/ui/memories/restore?id=" + q,
		"/ui/skill?id=" + q,
		"/ui/" + url.PathEscape(xss),
	} {
		res := f.get(p)
		assert.Less(t, res.Code, 500, p)
		assert.NotContains(t, res.Body, "<script>alert(1)", p)
		assert.NotContains(t, res.Body, "<img src=x", p)
		assertInert(t, p, res.Body)
	}
	res := f.get("/ui/search?q=" + q)
	assert.Contains(t, res.Body, `value="&#34;&#39;&gt;&lt;script&gt;alert(1)&lt;/script&gt;`, "the query is echoed as an attribute value, escaped")
	res = f.get("/ui/memories/delete?id=" + q)
	assert.NotContains(t, res.Body, xss)

	// The error responses that are plain text (the picture, the feed)
	// cannot be sniffed into HTML.
	res = f.get("/ui/skill/graph.svg?id=" + q)
	assert.Equal(t, http.StatusBadRequest, res.Code)
	assert.Equal(t, "text/plain; charset=utf-8", res.Header.Get("Content-Type"))
	assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"))
}

// Fields a model controls that the first security test does not write:
// a document's title and other metadata, memory tags, skill graph labels
// (drawn and in the SKILL.md), a reason and actor on a branch document.
func TestReviewStoredFieldsAreEscaped(t *testing.T) {
	standInRenderer(t)
	f := newFixture(t, ui.Options{})
	env := `{"schema":"memory_document_v2","metadata":{"title":` + jsonString(xss) + `,"documentType":` + jsonString(xss) +
		`,"tags":[` + jsonString(xss) + `]},"content":{"k":` + jsonString("javascript:alert(1)") + `}}`
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "meta.json", Content: []byte(env)})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "front.md", Text: "---\ntitle: " + jsonString(xss) + "\n---\n# x\n"})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/x", Path: "a.md", Text: "one\n", Actor: xss, Reason: xss})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/x", Path: "a.md", Text: xss + "\n", Actor: xss, Reason: xss})
	_, err := f.mem.Add(t.Context(), "memory "+xss, "t"+strings.ReplaceAll(xss, " ", ""))
	if err != nil { // a tag may be refused; the content alone then
		_, err = f.mem.Add(t.Context(), "memory "+xss)
	}
	require.NoError(t, err)
	g := &skillgraph.Graph{SkillID: "evil", Version: 1, Nodes: []skillgraph.Node{
		{ID: "a", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: xss + " [l](javascript:alert(1)) <svg onload=alert(1)>"}},
		{ID: "b", Type: skillgraph.TypeTool, Data: skillgraph.NodeData{Label: "b", ToolName: xss}},
	}, Edges: []skillgraph.Edge{{ID: "e", Source: "a", Target: "b"}}}
	_, err = skilldoc.Store(t.Context(), f.bank, g, 0, "")
	require.NoError(t, err)
	br := url.Values{"scope": {"branch"}, "branch": {"feature/x"}, "path": {"a.md"}}.Encode()
	for _, p := range []string{
		"/ui/docs?scope=global", "/ui/doc?scope=global&path=meta.json", "/ui/doc?scope=global&path=front.md",
		"/ui/history?" + br, "/ui/diff?" + br + "&from=1&to=2", "/ui/doc?" + br,
		"/ui/search?q=alert", "/ui/search?q=script", "/ui/memories", "/ui/memories?q=memory",
		"/ui/skills", "/ui/skill?id=evil",
	} {
		res := f.get(p)
		require.Equal(t, http.StatusOK, res.Code, "%s: %s", p, res.Body)
		assert.NotContains(t, res.Body, "<script>alert(1)", p)
		assert.NotContains(t, res.Body, "<img src=x", p)
		assertInert(t, p, res.Body)
	}
	res := f.get("/ui/doc?scope=global&path=meta.json")
	assert.Contains(t, res.Body, "<title>&#34;&#39;&gt;&lt;script&gt;", "the title is escaped in <title>")
}

// scriptURLAttr is an attribute whose value is a script or data URL.
var scriptURLAttr = regexp.MustCompile(`(?i)\s(?:href|src|action|xlink:href)\s*=\s*"?\s*(?:javascript|vbscript|data):`)

// styleAttr is a style attribute on an element (escaped text that spells
// one is inert).
var styleAttr = regexp.MustCompile(`(?i)<[^>]*\sstyle\s*=`)

func jsonString(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `"`, `\"`)
	return `"` + r.Replace(s) + `"`
}

// Markdown: every script-carrying URL scheme, in every spelling, is
// dropped; raw HTML is shown as escaped text, so no element it names, and
// no attribute, reaches the page.
func TestReviewMarkdownDropsScriptURLs(t *testing.T) {
	for _, src := range []string{
		"[a](javascript:alert(1))", "[a](JaVaScRiPt:alert(1))", "[a](java\tscript:alert(1))",
		"[a](  javascript:alert(1))", "[a](&#106;avascript:alert(1))", "[a](javascript&#58;alert(1))",
		"[a](vbscript:msgbox(1))", "[a](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
		"![i](data:image/svg+xml,<svg onload=alert(1)>)", "![i](javascript:alert(1))",
		"<javascript:alert(1)>", "[a][r]\n\n[r]: javascript:alert(1)",
		"[a](http://x \"t\" onmouseover=alert(1))", `<a href="javascript:alert(1)">x</a>`,
		"<style>body{background:url(http://evil/x)}</style>", `<div style="background:url(http://evil/x)">x</div>`,
		"<form action=http://evil><button>x</button></form>", "<base href=http://evil/>", "<meta http-equiv=refresh content='0;url=http://evil'>",
		"- [x] <input type=text name=csrf>",
	} {
		out := string(render.Markdown([]byte(src)))
		assertInert(t, src, out)
		assert.NotRegexp(t, scriptURLAttr, out, src)
		low := strings.ToLower(out)
		assert.NotRegexp(t, styleAttr, out, src)
		for _, bad := range []string{"<style", "<form", "<base", "<meta", "<input type=\"text\"", "<img src=\"data"} {
			assert.NotContains(t, low, bad, "%q rendered as %q", src, out)
		}
	}
}

// The SVG sanitiser: whatever a renderer writes, no script, no
// foreignObject, no handler, no script or data URL survives.
func TestReviewSVGSanitiserDropsActiveContent(t *testing.T) {
	for _, src := range []string{
		`<svg><script>alert(1)</script></svg>`,
		`<svg><foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert(1)"/></body></foreignObject></svg>`,
		`<svg onload="alert(1)"><g ONLOAD="alert(1)"/></svg>`,
		`<svg xmlns:xlink="http://www.w3.org/1999/xlink"><a xlink:href="javascript:alert(1)"><text>x</text></a></svg>`,
		`<svg xmlns:l="http://www.w3.org/1999/xlink"><a l:href=" jav&#x09;ascript:alert(1)"><text>x</text></a></svg>`,
		`<svg><a href="vbscript:x"><text>x</text></a><image href="data:image/svg+xml;base64,PHN2Zz4="/></svg>`,
		`<svg><set attributeName="href" to="javascript:alert(1)"/><animate attributeName="href" values="javascript:alert(1)"/></svg>`,
		`<svg><use href="data:image/svg+xml,&lt;svg onload=alert(1)&gt;"/></svg>`,
		`<svg><g style="background:url(javascript:alert(1))"/><style>@import url(http://evil/)</style></svg>`,
		`<svg><h:script xmlns:h="http://www.w3.org/1999/xhtml">alert(1)</h:script><iframe src="http://evil"/></svg>`,
		`<svg><!-- <script>alert(1)</script> --><![CDATA[<script>alert(1)</script>]]></svg>`,
	} {
		out, err := render.SanitizeSVG([]byte(src))
		require.NoError(t, err, src)
		low := strings.ToLower(string(out))
		for _, bad := range []string{"<script", "foreignobject", "onload", "onerror", "javascript", "vbscript", "data:", "<set", "<animate", "<use", "<style", "<iframe", "url("} {
			assert.NotContains(t, low, bad, "%s sanitised to %s", src, out)
		}
	}
}

// DNS rebinding: the spellings of the loopback names are accepted, every
// other name (and no Host at all) is refused with 421.
func TestReviewHostVariants(t *testing.T) {
	f := newFixture(t, ui.Options{})
	serve := func(host string) int {
		req := httptest.NewRequest(http.MethodGet, "/ui/", nil)
		req.Host = host
		rec := httptest.NewRecorder()
		f.h.ServeHTTP(rec, req)
		return rec.Code
	}
	for _, host := range []string{"localhost.", "LocalHost:1", "[::1]", "[::1]:7777", "127.0.0.1.", "127.0.0.1:65535"} {
		assert.Equal(t, http.StatusOK, serve(host), host)
	}
	for _, host := range []string{"", "evil.example.", "localhost.evil.example", "127.0.0.1.evil.example", "foo.localhost",
		"[::2]", "127.0.0.2", "0.0.0.0", "[::ffff:7f00:1]", "evil.example:7777"} {
		assert.Equal(t, http.StatusMisdirectedRequest, serve(host), "%q", host)
	}
}

// CSRF beyond the first tests: a token in the query instead of the form,
// a GET (with a method override) to a change's address, other methods.
func TestReviewCSRFVariants(t *testing.T) {
	f := newFixture(t, ui.Options{})
	action, form := revertForm(t, f)

	// The token in the URL (as a link could carry it) is not read.
	res := f.post(action+"?csrf="+url.QueryEscape(form.Get("csrf")), url.Values{"scope": {"global"}, "path": {"architecture.md"}, "version": {"1"}})
	assert.Equal(t, http.StatusForbidden, res.Code, res.Body)

	// GET of the change's address, with the whole form in the query and a
	// method override: only the confirmation page is shown.
	req := httptest.NewRequest(http.MethodGet, action+"?"+form.Encode()+"&_method=POST", nil)
	req.Header.Set("X-HTTP-Method-Override", "POST")
	res = f.do(req)
	assert.Equal(t, http.StatusOK, res.Code)
	assert.Contains(t, res.Body, `id="confirm"`)
	for _, m := range []string{http.MethodPut, http.MethodDelete, http.MethodPatch} {
		req := httptest.NewRequest(m, action, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		assert.Equal(t, http.StatusMethodNotAllowed, f.do(req).Code, m)
	}
	// A multipart body or a JSON body with the token is not a form the
	// change reads.
	req = httptest.NewRequest(http.MethodPost, action, strings.NewReader(`{"csrf":"`+form.Get("csrf")+`"}`))
	req.Header.Set("Content-Type", "application/json")
	assert.Equal(t, http.StatusForbidden, f.do(req).Code)
	// A body above the limit is refused before the token is read.
	big := url.Values{"csrf": {form.Get("csrf")}, "pad": {strings.Repeat("a", 9<<10)}}
	for k, v := range form {
		big[k] = v
	}
	big.Set("csrf", form.Get("csrf"))
	assert.Equal(t, http.StatusBadRequest, f.post(action, big).Code)
	assert.Contains(t, currentText(t, f), "SQLite", "nothing was reverted")

	// The revert token is not a delete token nor a restore token.
	id := firstMemory(t, f)
	assert.Equal(t, http.StatusForbidden, f.post("/ui/memories/delete", url.Values{"id": {id}, "csrf": {form.Get("csrf")}}).Code)
	assert.Equal(t, http.StatusForbidden, f.post("/ui/memories/restore", url.Values{"id": {id}, "csrf": {form.Get("csrf")}}).Code)
	_, err := f.mem.Get(t.Context(), id)
	assert.NoError(t, err, "the memory is still there")
}

// Origins a browser may send on a form POST from another page: refused.
func TestReviewOriginVariants(t *testing.T) {
	f := newFixture(t, ui.Options{})
	action, form := revertForm(t, f)
	for _, origin := range []string{"null", "http://localhost", "http://localhost:7777.evil.example", "http://evil.example#localhost:7777",
		"file://", "chrome-extension://abc", "http://127.0.0.1:7777", "ftp://localhost:7777"} {
		req := httptest.NewRequest(http.MethodPost, action, strings.NewReader(form.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", origin)
		assert.Equal(t, http.StatusForbidden, f.do(req).Code, origin)
	}
	assert.Contains(t, currentText(t, f), "SQLite", "nothing was reverted")
}

// A read-only viewer refuses every change, whatever the request carries.
func TestReviewReadOnlyRefusesEveryChange(t *testing.T) {
	f := newFixture(t, ui.Options{ReadOnly: true})
	f.seed()
	id := firstMemory(t, f)
	require.NoError(t, f.mem.Delete(t.Context(), id))
	for _, p := range []string{"/ui/revert", "/ui/memories/delete", "/ui/memories/restore"} {
		res := f.post(p, url.Values{"scope": {"global"}, "path": {"architecture.md"}, "version": {"1"}, "id": {id}})
		assert.Equal(t, http.StatusForbidden, res.Code, p)
		assert.Contains(t, res.Body, "read-only", p)
	}
	for _, p := range []string{"/ui/revert?scope=global&path=architecture.md&version=1", "/ui/memories/restore?id=" + url.QueryEscape(id)} {
		assert.Equal(t, http.StatusForbidden, f.get(p).Code, p)
	}
	_, err := f.mem.Get(t.Context(), id)
	assert.Error(t, err, "the memory stays in the trash")
}

// Path traversal: a document path, branch or skill id that names a file
// outside the bank is refused, and a file beside the bank is never shown.
func TestReviewTraversalIsRefused(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "bank")
	require.NoError(t, os.MkdirAll(root, 0o755))
	const secret = "SECRET-beside-the-bank"
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secret.md"), []byte(secret), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "secret.json"), []byte(`{"content":"`+secret+`"}`), 0o644))
	store, err := fsstore.Open(root, nil)
	require.NoError(t, err)
	f := newFixture(t, ui.Options{Bank: memorybank.New(store, &memorybank.Options{Language: memorybank.English})})
	f.seed()
	for _, p := range []string{"../secret.md", "..%2fsecret.md", "%2e%2e/secret.md", `..\secret.md`, "global/../../secret.md",
		"/etc/passwd", "x/../../secret.md", "secret.md\x00.md", "./../secret.json", "....//secret.md", "C:/Windows/win.ini", `\\host\share\x.md`} {
		for _, page := range []string{"doc", "history", "diff", "revert"} {
			res := f.get("/ui/" + page + "?scope=global&version=1&path=" + url.QueryEscape(p))
			if !strings.Contains(p, "%") { // "%2e%2e" is a name of its own, not ".."
				assert.GreaterOrEqual(t, res.Code, 400, "%s %q", page, p)
			}
			assert.Less(t, res.Code, 500, "%s %q: %s", page, p, res.Body)
			assert.NotContains(t, res.Body, secret, "%s %q", page, p)
		}
	}
	for _, b := range []string{"..", "../x", "a/../../b", "a\x00b", `a\b`, "-x", ".git"} {
		res := f.get("/ui/docs?scope=branch&branch=" + url.QueryEscape(b))
		assert.Equal(t, http.StatusBadRequest, res.Code, "branch %q", b)
	}
	for _, id := range []string{"../secret", "..%2fx", "a/b", `a\b`, "a\x00", ".x"} {
		assert.Equal(t, http.StatusBadRequest, f.get("/ui/skill?id="+url.QueryEscape(id)).Code, "skill %q", id)
		assert.Equal(t, http.StatusBadRequest, f.get("/ui/skill/graph.svg?id="+url.QueryEscape(id)).Code, "skill %q", id)
	}
	for _, id := range []string{"../../secret.md", "mem-../x", strings.Repeat("a", 10000)} {
		res := f.get("/ui/memories/delete?id=" + url.QueryEscape(id))
		assert.GreaterOrEqual(t, res.Code, 400, "memory %q", id)
		assert.Less(t, res.Code, 500, "memory %q", id)
	}
	res := f.get("/ui/static/../static/ui.js")
	assert.NotContains(t, res.Body, "{{define", "the templates are not served")
	res = f.get("/ui/static/%2e%2e/templates/layout.html")
	assert.NotContains(t, res.Body, "{{define")
}

// Limits: each is refused with its status before the work.
func TestReviewLimitsAreEnforced(t *testing.T) {
	f := newFixture(t, ui.Options{})
	f.seed()
	for p, want := range map[string]int{
		"/ui/search?q=" + strings.Repeat("a", 9<<10):                               http.StatusRequestURITooLong,
		"/ui/search?q=" + strings.Repeat("a", 4<<10+1):                             http.StatusBadRequest,
		"/ui/memories?q=" + strings.Repeat("a", 1<<10+1):                           http.StatusBadRequest,
		"/ui/search?q=a&tags=" + strings.Repeat("t,", 21):                          http.StatusBadRequest,
		"/ui/docs?scope=global&limit=101":                                          http.StatusBadRequest,
		"/ui/docs?scope=global&limit=0":                                            http.StatusBadRequest,
		"/ui/docs?scope=global&limit=-1":                                           http.StatusBadRequest,
		"/ui/docs?scope=global&offset=1000001":                                     http.StatusBadRequest,
		"/ui/docs?scope=global&offset=-1":                                          http.StatusBadRequest,
		"/ui/docs?scope=global&offset=99999999999999999999999":                     http.StatusBadRequest,
		"/ui/memories?limit=1000":                                                  http.StatusBadRequest,
		"/ui/docs?scope=global&prefix=" + strings.Repeat("p", 5000):                http.StatusBadRequest,
		"/ui/doc?scope=global&path=architecture.md&version=0":                      http.StatusBadRequest,
		"/ui/doc?scope=global&path=architecture.md&version=1e9999":                 http.StatusBadRequest,
		"/ui/diff?scope=global&path=architecture.md&from=-1&to=1":                  http.StatusBadRequest,
		"/ui/memories/delete?id=" + strings.Repeat("a", 4000):                      http.StatusBadRequest,
		"/ui/docs?scope=global&offset=1000000":                                     http.StatusOK,
		"/ui/search?q=a&tags=" + strings.TrimSuffix(strings.Repeat("t,", 20), ","): http.StatusOK,
	} {
		assert.Equal(t, want, f.get(p).Code, "%.80s", p)
	}
}

// Every response, refusals and redirects included, forbids framing,
// sniffing and caching; the page policy has no inline script or style.
func TestReviewHeadersOnEveryKindOfResponse(t *testing.T) {
	standInRenderer(t)
	f := newFixture(t, ui.Options{Token: token})
	f.seed()
	bearer := func(method, target string, body string) response {
		req := httptest.NewRequest(method, target, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		}
		return f.do(req)
	}
	cases := map[string]response{
		"page":      bearer("GET", "/ui/doc?scope=global&path=architecture.md", ""),
		"confirm":   bearer("GET", "/ui/revert?scope=global&path=architecture.md&version=1", ""),
		"static":    bearer("GET", "/ui/static/ui.js", ""),
		"svg":       bearer("GET", "/ui/skill/graph.svg?id=release", ""),
		"404":       bearer("GET", "/ui/nothing", ""),
		"405":       bearer("PUT", "/ui/", ""),
		"403 post":  bearer("POST", "/ui/revert", "scope=global"),
		"401":       f.get("/ui/"),
		"redirect":  f.get("/ui/?token=" + token),
		"421":       f.do(httptest.NewRequest("GET", "http://evil.example:1/ui/", nil)),
		"414":       bearer("GET", "/ui/?q="+strings.Repeat("a", 9<<10), ""),
		"text 4xx":  bearer("GET", "/ui/skill/graph.svg?id=nothing", ""),
		"static ls": bearer("GET", "/ui/static/", ""),
	}
	for name, res := range cases {
		assert.Equal(t, "DENY", res.Header.Get("X-Frame-Options"), name)
		assert.Equal(t, "no-store", res.Header.Get("Cache-Control"), name)
		assert.Equal(t, "nosniff", res.Header.Get("X-Content-Type-Options"), name)
		assert.Equal(t, "same-origin", res.Header.Get("Referrer-Policy"), name)
		csp := res.Header.Get("Content-Security-Policy")
		require.NotEmpty(t, csp, name)
		assert.NotContains(t, csp, "'unsafe-eval'", name)
		if name != "svg" {
			assert.Equal(t, wantCSP, csp, name)
			assert.NotContains(t, csp, "unsafe-inline", name)
		} else {
			assert.Contains(t, csp, "default-src 'none'", name)
		}
	}
	assert.Equal(t, "image/svg+xml", cases["svg"].Header.Get("Content-Type"))
	assert.Contains(t, cases["static"].Header.Get("Content-Type"), "javascript")
	assert.Contains(t, cases["page"].Header.Get("Content-Type"), "text/html; charset=utf-8")
}

// The token: never written into a page, a link or a redirect; its cookie
// is HttpOnly, SameSite=Strict, limited to /ui/, Secure over TLS; it is
// not taken from a POST's query nor from the form.
func TestReviewTokenDoesNotLeak(t *testing.T) {
	f := newFixture(t, ui.Options{Token: token})
	f.seed()
	res := f.get("/ui/search?q=a&token=" + token)
	require.Equal(t, http.StatusSeeOther, res.Code)
	assert.NotContains(t, res.Header.Get("Location"), "token")
	assert.NotContains(t, res.Body, token)
	cookie := (&http.Response{Header: res.Header}).Cookies()[0]
	assert.NotContains(t, cookie.Value, token)
	assert.False(t, cookie.Secure, "plain HTTP: a Secure cookie would not come back")

	req := httptest.NewRequest(http.MethodGet, "https://localhost:7777/ui/?token="+token, nil)
	res = f.do(req)
	require.Equal(t, http.StatusSeeOther, res.Code)
	c := (&http.Response{Header: res.Header}).Cookies()[0]
	assert.True(t, c.Secure, "over TLS the cookie is Secure")
	assert.True(t, c.HttpOnly)
	assert.Equal(t, http.SameSiteStrictMode, c.SameSite)
	assert.Equal(t, "/ui/", c.Path)
	assert.Empty(t, c.Domain, "host-only")

	// A wrong token is not echoed (a page that shows it would leak what a
	// person mistyped, perhaps another secret).
	res = f.get("/ui/?token=" + url.QueryEscape("wrong-"+token))
	assert.Equal(t, http.StatusUnauthorized, res.Code)
	assert.NotContains(t, res.Body, "wrong-")

	// On a POST, ?token= and a form field are not credentials.
	req = httptest.NewRequest(http.MethodPost, "/ui/revert?token="+token, strings.NewReader("token="+token))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	assert.Equal(t, http.StatusUnauthorized, f.do(req).Code)

	// Pages reached with the cookie never link with the token.
	for _, p := range []string{"/ui/", "/ui/docs?scope=global", "/ui/history?scope=global&path=architecture.md", "/ui/memories", "/ui/search?q=architecture"} {
		req := httptest.NewRequest(http.MethodGet, p, nil)
		req.AddCookie(c)
		res := f.do(req)
		require.Equal(t, http.StatusOK, res.Code, p)
		assert.NotContains(t, res.Body, token, p)
		assert.NotContains(t, res.Body, "token=", p)
	}
	// Bearer in another scheme's spelling is refused.
	for _, h := range []string{"bearer " + token, "Bearer  " + token, "Basic " + token, token} {
		req := httptest.NewRequest(http.MethodGet, "/ui/", nil)
		req.Header.Set("Authorization", h)
		assert.Equal(t, http.StatusUnauthorized, f.do(req).Code, h)
	}
}

// The token's redirect stays on the viewer whatever path or query the
// link carries (no open redirect), and no page takes a next= or return
// address.
func TestReviewNoOpenRedirect(t *testing.T) {
	f := newFixture(t, ui.Options{Token: token})
	for _, target := range []string{
		"/ui//evil.example/?token=" + token,
		"/ui/%2F%2Fevil.example?token=" + token,
		"/ui/\\evil.example?token=" + token,
		"/ui/?next=http://evil.example&return=//evil.example&token=" + token,
		"http://localhost:7777//evil.example/ui/?token=" + token,
	} {
		res := f.get(target)
		require.Equal(t, http.StatusSeeOther, res.Code, target)
		loc := res.Header.Get("Location")
		u, err := url.Parse(loc)
		require.NoError(t, err)
		assert.Empty(t, u.Host, "%s -> %s", target, loc)
		assert.Empty(t, u.Scheme, "%s -> %s", target, loc)
		assert.True(t, strings.HasPrefix(loc, "/ui/") && !strings.HasPrefix(loc, "//") && !strings.Contains(loc, `\`), "%s -> %s", target, loc)
	}
}

// Another site's page may link to the viewer (a navigation), but may not
// use it as a resource: an <img> of a skill graph would tell it which
// skills exist (the picture loads, or fails), an EventSource or fetch
// would hold one of the few live feed streams, a search would spend the
// server's time. A browser says where a request comes from in
// Sec-Fetch-Site; such requests are refused before any work.
func TestReviewCrossSiteResourceRequestsAreRefused(t *testing.T) {
	standInRenderer(t)
	f := newFixture(t, ui.Options{})
	f.seed()
	get := func(target, site, mode, dest string) response {
		req := httptest.NewRequest(http.MethodGet, target, nil)
		if strings.HasPrefix(target, "/ui/events") {
			// A stream let through would never end: its client has
			// already left, so it ends at once and answers 200.
			ctx, cancel := context.WithCancel(req.Context())
			cancel()
			req = req.WithContext(ctx)
		}
		req.Header.Set("Sec-Fetch-Site", site)
		req.Header.Set("Sec-Fetch-Mode", mode)
		req.Header.Set("Sec-Fetch-Dest", dest)
		return f.do(req)
	}
	for _, site := range []string{"cross-site", "same-site"} {
		for _, c := range []struct{ target, mode, dest string }{
			{"/ui/skill/graph.svg?id=release", "no-cors", "image"},
			{"/ui/skill/graph.svg?id=nothing", "no-cors", "image"},
			{"/ui/events", "cors", "empty"},
			{"/ui/events", "no-cors", "empty"},
			{"/ui/search?q=architecture", "no-cors", "script"},
			{"/ui/static/ui.js", "no-cors", "script"},
			{"/ui/doc?scope=global&path=architecture.md", "navigate", "iframe"},
		} {
			res := get(c.target, site, c.mode, c.dest)
			assert.Equal(t, http.StatusForbidden, res.Code, "%s %+v", site, c)
			assert.NotContains(t, res.Body, "drawn", "%s %+v", site, c)
		}
		// A link followed from elsewhere opens the page.
		res := get("/ui/doc?scope=global&path=architecture.md", site, "navigate", "document")
		assert.Equal(t, http.StatusOK, res.Code, site)
	}
	// The viewer's own requests, and requests by address, are served.
	for _, site := range []string{"same-origin", "none", ""} {
		res := get("/ui/skill/graph.svg?id=release", site, "no-cors", "image")
		assert.Equal(t, http.StatusOK, res.Code, site)
	}
}

// The live feed's script sets text, never HTML, and only links into the
// viewer; a page's own script is the only one (no inline handlers).
func TestReviewFeedScriptInsertsTextOnly(t *testing.T) {
	f := newFixture(t, ui.Options{})
	js := f.get("/ui/static/ui.js").Body
	require.Contains(t, js, "textContent")
	for _, sink := range []string{"innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(", "new Function", "setTimeout(\"", ".src =", "location ="} {
		assert.NotContains(t, js, sink)
	}
	assert.Regexp(t, regexp.MustCompile(`e\.url\.indexOf\("/ui/"\) === 0`), js, "only links into the viewer")
	page := f.get("/ui/").Body
	assert.Equal(t, 1, strings.Count(page, "<script"), "one script, the viewer's own file")
	assert.NotRegexp(t, regexp.MustCompile(`(?i)\son[a-z]+=`), page)
	assert.NotContains(t, page, "style=", "no inline style either")
}

// A 500 does not show the machine's file paths: the reason goes to the
// log, the page says the server failed.
func TestReviewServerErrorsDoNotShowFilePaths(t *testing.T) {
	dir := t.TempDir()
	store, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	f := newFixture(t, ui.Options{Bank: memorybank.New(store, &memorybank.Options{Language: memorybank.English})})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "broken.json", Content: []byte(`{"content":{"a":1}}`)})
	// Break the document's file: not JSON any more.
	var file string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && filepath.Base(p) == "broken.json" {
			file = p
		}
		return err
	}))
	require.NotEmpty(t, file)
	require.NoError(t, os.WriteFile(file, []byte("{not json"), 0o644))
	res := f.get("/ui/doc?scope=global&path=broken.json")
	if res.Code < 500 {
		t.Skipf("the store answered %d, not a failure: %s", res.Code, res.Body)
	}
	assert.NotContains(t, res.Body, dir, "the bank's directory is not shown")
}

// The same probe in a real browser: a page of another site (127.0.0.1 is
// not the site localhost) loads a skill graph's picture from the viewer
// as an <img>; the browser marks it cross-site and the viewer refuses it,
// so the page cannot tell a stored skill from a missing one. The control,
// the same <img> on a page of the viewer's own origin, loads.
func TestReviewCrossSiteImageProbeInBrowser(t *testing.T) {
	ctx := browsertest.New(t)
	standInRenderer(t)
	f := newFixture(t, ui.Options{})
	f.seed()
	mux := http.NewServeMux()
	mux.Handle(ui.Prefix, f.h)
	probe := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = io.WriteString(w, `<!doctype html><title>probe</title><img id="i" src="`+r.URL.Query().Get("src")+`" onload="document.title='loaded'" onerror="document.title='failed'">`)
	}
	mux.HandleFunc("/probe", probe)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	_, port, err := net.SplitHostPort(srv.Listener.Addr().String())
	require.NoError(t, err)
	viewer := "http://localhost:" + port
	picture := viewer + ui.Prefix + "skill/graph.svg?id=release"

	result := func(page string) string {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.Navigate(page))
		require.NoError(t, err)
		_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.title === "loaded" || document.title === "failed"`,
			chromedp.WithPollingTimeout(stepBound)))
		require.NoError(t, err)
		title, err := chromedp.Run(ctx, chromedp.Title())
		require.NoError(t, err)
		return title
	}
	assert.Equal(t, "loaded", result(viewer+"/probe?src="+url.QueryEscape(picture)), "control: the viewer's own page loads the picture")
	assert.Equal(t, "failed", result("http://127.0.0.1:"+port+"/probe?src="+url.QueryEscape(picture)), "another site's page cannot load it")
}
