package ui_test

import (
	"html"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// tokenFixture is a viewer taking the tokens of a store: one per scope.
type tokenFixture struct {
	*fixture
	st                          *tokens.MemStore
	readTok, writeTok, adminTok string
	readC, writeC, admC         *http.Cookie
}

func newTokenFixture(t *testing.T) *tokenFixture {
	st := &tokens.MemStore{}
	tf := &tokenFixture{st: st}
	tf.fixture = newFixture(t, ui.Options{Auth: tokens.NewAuthenticator(st, nil)})
	tf.seed()
	mk := func(name string, s tokens.Scope) string {
		text, _, err := tokens.New(t.Context(), st, name, s, 0, time.Now())
		require.NoError(t, err)
		return text
	}
	tf.readTok, tf.writeTok, tf.adminTok = mk("rita", tokens.ScopeRead), mk("walt", tokens.ScopeWrite), mk("ada", tokens.ScopeAdmin)
	tf.readC, tf.writeC, tf.admC = tf.signIn(tf.readTok), tf.signIn(tf.writeTok), tf.signIn(tf.adminTok)
	return tf
}

// signIn posts token to the sign-in form and returns the session cookie.
func (f *fixture) signIn(token string) *http.Cookie {
	f.t.Helper()
	res := f.post("/ui/signin", url.Values{"token": {token}})
	require.Equal(f.t, http.StatusSeeOther, res.Code, res.Body)
	assert.Equal(f.t, "/ui/", res.Header.Get("Location"))
	cs := (&http.Response{Header: res.Header}).Cookies()
	require.Len(f.t, cs, 1)
	return cs[0]
}

// as sends req with the session cookie c.
func (f *fixture) as(c *http.Cookie, req *http.Request) response {
	f.t.Helper()
	req.AddCookie(c)
	return f.do(req)
}

func (f *fixture) getAs(c *http.Cookie, target string) response {
	f.t.Helper()
	return f.as(c, httptest.NewRequest(http.MethodGet, target, nil))
}

func (f *fixture) postAs(c *http.Cookie, target string, form url.Values) response {
	f.t.Helper()
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://localhost:7777")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return f.as(c, req)
}

// formAs reads the change form of a confirmation page in c's session.
func (f *fixture) formAs(c *http.Cookie, target string) (string, url.Values) {
	f.t.Helper()
	res := f.getAs(c, target)
	require.Equal(f.t, http.StatusOK, res.Code, res.Body)
	_, body, ok := strings.Cut(res.Body, `<section id="confirm">`)
	require.True(f.t, ok, "no confirmation in %s", res.Body)
	action := regexp.MustCompile(`<form class="[a-z]+" method="post" action="([^"]+)"`).FindStringSubmatch(body)
	require.NotNil(f.t, action)
	form := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	return html.UnescapeString(action[1]), form
}

// Every route of the viewer, by the scope it needs: pages read; changes
// and their confirmation pages write. A refusal names the scope needed
// and the token's.
func TestRoutesNeedTheirScope(t *testing.T) {
	f := newTokenFixture(t)
	id := firstMemory(t, f.fixture)
	require.NoError(t, f.mem.Delete(t.Context(), id))
	pages := []string{"/ui/", "/ui/docs?scope=global", "/ui/doc?scope=global&path=architecture.md", "/ui/raw?scope=global&path=architecture.md",
		"/ui/history?scope=global&path=architecture.md", "/ui/diff?scope=global&path=decisions.json&from=1&to=1", "/ui/search?q=service",
		"/ui/memories", "/ui/memories/trash", "/ui/memories/consolidate", "/ui/skills", "/ui/skill?id=release", "/ui/static/ui.css"}
	for _, p := range pages {
		for name, c := range map[string]*http.Cookie{"read": f.readC, "write": f.writeC, "admin": f.admC} {
			res := f.getAs(c, p)
			assert.Equal(t, http.StatusOK, res.Code, "%s as %s: %.300s", p, name, res.Body)
		}
	}
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nSQLite now.\n", Actor: "walt"})
	changes := map[string]string{
		"/ui/revert?scope=global&path=architecture.md&version=1": "reverting a document",
		"/ui/memories/restore?id=" + url.QueryEscape(id):         "restoring a memory",
	}
	for p, what := range changes {
		res := f.getAs(f.readC, p)
		assert.Equal(t, http.StatusForbidden, res.Code, p)
		assert.Contains(t, res.Body, html.EscapeString(what+` needs a token of scope write; the token "rita" has scope read`), p)
		action, form := f.formAs(f.admC, p)
		res = f.postAs(f.readC, action, form)
		assert.Equal(t, http.StatusForbidden, res.Code, p)
		assert.Contains(t, res.Body, "needs a token of scope write", p)
		_, _ = f.formAs(f.writeC, p) // a write token is shown the form
	}
	res := f.postAs(f.readC, "/ui/memories/consolidate", url.Values{"plan": {"{}"}})
	assert.Equal(t, http.StatusForbidden, res.Code)
	assert.Contains(t, res.Body, "applying a consolidation needs a token of scope write")
	assert.Contains(t, currentText(t, f.fixture), "SQLite", "nothing was reverted")
	_, err := f.mem.Get(t.Context(), id)
	assert.Error(t, err, "the memory is still in the trash")

	// The read token's pages offer no change; the write token's do.
	_, err = f.mem.Add(t.Context(), "Deploys happen on Tuesdays", "fact")
	require.NoError(t, err)
	for _, p := range []string{"/ui/history?scope=global&path=architecture.md", "/ui/memories", "/ui/memories/trash"} {
		body := f.getAs(f.readC, p).Body
		assert.Contains(t, body, `id="read-only"`, p)
		assert.NotRegexp(t, `revert-link|delete-link|restore-link`, body, p)
		assert.Regexp(t, `revert-link|delete-link|restore-link`, f.getAs(f.writeC, p).Body, p)
	}
}

// A change from a session records the token's name; a write token may
// not revert versions another name wrote, and is told so before it
// confirms.
func TestChangesRecordTheTokensName(t *testing.T) {
	f := newTokenFixture(t)
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nSQLite now.\n", Actor: "walt"})
	action, form := f.formAs(f.writeC, "/ui/revert?scope=global&path=architecture.md&version=1")
	res := f.postAs(f.writeC, action, form)
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	h := f.historyOf("architecture.md")
	assert.Equal(t, "walt", h[0].Actor)

	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nMySQL.\n", Actor: "someone"})
	res = f.getAs(f.writeC, "/ui/revert?scope=global&path=architecture.md&version=1")
	assert.Equal(t, http.StatusForbidden, res.Code)
	assert.Contains(t, res.Body, "needs a token of scope admin")
	action, form = f.formAs(f.admC, "/ui/revert?scope=global&path=architecture.md&version=1")
	res = f.postAs(f.admC, action, form)
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	assert.Equal(t, "ada", f.historyOf("architecture.md")[0].Actor)
}

func (f *fixture) historyOf(path string) []memorybank.HistoryEntry {
	f.t.Helper()
	h, err := history.List(f.t.Context(), f.bank, memorybank.HistoryRequest{Scope: memorybank.ScopeGlobal, Path: path})
	require.NoError(f.t, err)
	return h
}

// A form's CSRF token is bound to the session it was served to: another
// person's session cannot post it, nor a session after signing in again.
func TestCSRFIsBoundToTheSession(t *testing.T) {
	f := newTokenFixture(t)
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nSQLite now.\n"})
	action, form := f.formAs(f.admC, "/ui/revert?scope=global&path=architecture.md&version=1")
	other := f.signIn(f.adminTok) // the same token, a new session
	require.NotEqual(t, f.admC.Value, other.Value)
	for name, c := range map[string]*http.Cookie{"another token's session": f.writeC, "a new session": other} {
		res := f.postAs(c, action, form)
		assert.Equal(t, http.StatusForbidden, res.Code, name)
		assert.Contains(t, res.Body, "CSRF", name)
	}
	assert.Contains(t, currentText(t, f.fixture), "SQLite")
	assert.Equal(t, http.StatusSeeOther, f.postAs(f.admC, action, form).Code, "its own session posts it")
}

// Signing in: only from the viewer's own page (another site cannot sign
// a person in under its token); a wrong token is refused without being
// repeated; signing out clears the cookie.
func TestSignInAndOut(t *testing.T) {
	f := newTokenFixture(t)
	res := f.get("/ui/signin")
	require.Equal(t, http.StatusOK, res.Code)
	assert.Contains(t, res.Body, `<form id="signin" method="post" action="/ui/signin">`)
	res = f.get("/ui/docs?scope=global")
	assert.Equal(t, http.StatusUnauthorized, res.Code)
	assert.Contains(t, res.Body, `id="signin"`, "the refusal offers the form")

	req := httptest.NewRequest(http.MethodPost, "/ui/signin", strings.NewReader(url.Values{"token": {f.readTok}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://evil.example")
	res = f.do(req)
	assert.Equal(t, http.StatusForbidden, res.Code)
	assert.Empty(t, res.Header.Get("Set-Cookie"))

	res = f.post("/ui/signin", url.Values{"token": {"mnb_wrong-" + f.readTok}})
	assert.Equal(t, http.StatusUnauthorized, res.Code)
	assert.NotContains(t, res.Body, "wrong-")
	assert.Empty(t, res.Header.Get("Set-Cookie"))

	body := f.getAs(f.readC, "/ui/").Body
	assert.Contains(t, body, "rita · read")
	csrf := regexp.MustCompile(`action="/ui/signout"><input type="hidden" name="csrf" value="([^"]+)"`).FindStringSubmatch(body)
	require.NotNil(t, csrf, body)
	assert.Equal(t, http.StatusForbidden, f.postAs(f.readC, "/ui/signout", url.Values{}).Code, "signing out needs its form")
	res = f.postAs(f.readC, "/ui/signout", url.Values{"csrf": {html.UnescapeString(csrf[1])}})
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	assert.Contains(t, res.Header.Get("Set-Cookie"), "Max-Age=0")
}

// A revoked token's session ends once the Authenticator's cache has
// passed; its cookie is cleared.
func TestRevokedTokensSessionEnds(t *testing.T) {
	now := time.Now()
	st := &tokens.MemStore{}
	f := newFixture(t, ui.Options{Auth: tokens.NewAuthenticator(st, &tokens.AuthOptions{Now: func() time.Time { return now }})})
	text, _, err := tokens.New(t.Context(), st, "rita", tokens.ScopeRead, 0, now)
	require.NoError(t, err)
	c := f.signIn(text)
	require.Equal(t, http.StatusOK, f.getAs(c, "/ui/").Code)
	require.NoError(t, st.Revoke(t.Context(), "rita", now))
	now = now.Add(tokens.DefaultCacheTTL)
	res := f.getAs(c, "/ui/")
	assert.Equal(t, http.StatusUnauthorized, res.Code)
	assert.Contains(t, res.Body, "revoked")
	assert.Contains(t, res.Header.Get("Set-Cookie"), "Max-Age=0")
}
