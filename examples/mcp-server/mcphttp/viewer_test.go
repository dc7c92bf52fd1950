package mcphttp

import (
	"html"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
)

// The viewer beside /mcp, used as a browser does: a session cookie from
// the sign-in form, pages and forms through it.

// noRedirects is a client that shows each redirect instead of following it.
var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// signIn signs in to server i's viewer with token through its form and
// returns the session cookie.
func (tm *team) signIn(t *testing.T, i int, token string) *http.Cookie {
	t.Helper()
	code, hdr, body := tm.view(t, i, nil, http.MethodPost, "signin", url.Values{"token": {token}})
	require.Equal(t, http.StatusSeeOther, code, body)
	cookies := (&http.Response{Header: hdr}).Cookies()
	require.Len(t, cookies, 1)
	assert.NotContains(t, cookies[0].Value, strings.TrimPrefix(token, tokens.Prefix), "the cookie holds no token")
	return cookies[0]
}

// view sends a request to page (under /ui/) of server i with the session
// cookie c (nil: none) and, for a POST, form as a same-origin page would.
func (tm *team) view(t *testing.T, i int, c *http.Cookie, method, page string, form url.Values) (int, http.Header, string) {
	t.Helper()
	var body io.Reader
	if form != nil {
		body = strings.NewReader(form.Encode())
	}
	req, err := http.NewRequest(method, tm.urls[i]+ui.Prefix+page, body)
	require.NoError(t, err)
	if form != nil {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", tm.urls[i])
	}
	if c != nil {
		req.AddCookie(c)
	}
	res, err := noRedirects.Do(req)
	require.NoError(t, err)
	defer res.Body.Close()
	data, err := io.ReadAll(res.Body)
	require.NoError(t, err)
	return res.StatusCode, res.Header, string(data)
}

// confirmForm reads the change form of a confirmation page: where it
// posts and its fields.
func (tm *team) confirmForm(t *testing.T, i int, c *http.Cookie, page string) (string, url.Values) {
	t.Helper()
	code, _, body := tm.view(t, i, c, http.MethodGet, page, nil)
	require.Equal(t, http.StatusOK, code, body)
	_, body, found := strings.Cut(body, `<section id="confirm">`)
	require.True(t, found, "no confirmation on %s", page)
	action := regexp.MustCompile(`<form class="[a-z]+" method="post" action="` + regexp.QuoteMeta(ui.Prefix) + `([^"]+)"`).FindStringSubmatch(body)
	require.NotNil(t, action, "no change form in %s", body)
	form := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	return html.UnescapeString(action[1]), form
}

// actors is the actors of a global document's versions, newest first.
func actors(t *testing.T, cs *mcp.ClientSession, path string) []string {
	t.Helper()
	h := ok(t, cs, "document_history", `{"scope":"global","path":"`+path+`"}`)
	var actors []string
	for _, e := range h["entries"].([]any) {
		a, _ := e.(map[string]any)["actor"].(string)
		actors = append(actors, a)
	}
	return actors
}

// addMemory adds a memory and returns its id.
func addMemory(t *testing.T, cs *mcp.ClientSession, content string) string {
	t.Helper()
	out := ok(t, cs, "add_memory", `{"content":"`+content+`"}`)
	m, _ := out["memory"].(map[string]any)
	id, _ := m["id"].(string)
	require.NotEmpty(t, id, "%v", out)
	return id
}

func writeGlobal(t *testing.T, cs *mcp.ClientSession, path, text string) {
	t.Helper()
	ok(t, cs, "write_global_memory_bank", `{"path":"`+path+`","content":"`+text+`"}`)
}

// A read token views every page, but every change of the viewer is
// refused naming the scope it needs, its confirmation page too, even with
// a form an admin was given; nothing is changed.
func TestViewerReadToken(t *testing.T) {
	tm := newTeam(t)
	reader := tm.token(t, "reader", tokens.ScopeRead, 0)
	admin := tm.connect(t, 0, tm.admin, "setup")
	writeGlobal(t, admin, "notes.md", "# Notes\\n\\none\\n")
	writeGlobal(t, admin, "notes.md", "# Notes\\n\\ntwo\\n")
	kept := addMemory(t, admin, "Run go test with -race before every commit")
	gone := addMemory(t, admin, "The staging database is reset every night")
	ok(t, admin, "delete_memory", `{"id":"`+gone+`"}`)

	// The forms an admin's session is given.
	ac := tm.signIn(t, 0, tm.admin)
	forms := map[string]url.Values{}
	for _, page := range []string{"revert?scope=global&path=notes.md&version=1", "memories/delete?id=" + kept, "memories/restore?id=" + gone} {
		action, form := tm.confirmForm(t, 0, ac, page)
		forms[action] = form
	}
	forms["memories/consolidate"] = url.Values{"plan": {`{}`}, "csrf": {forms["revert"].Get("csrf")}}
	require.Len(t, forms, 4)

	rc := tm.signIn(t, 1, reader)
	for _, page := range []string{"", "docs?scope=global", "doc?scope=global&path=notes.md", "history?scope=global&path=notes.md",
		"diff?scope=global&path=notes.md&from=1&to=2", "search?q=notes", "memories", "memories/trash", "memories/consolidate", "skills", "static/ui.js"} {
		code, _, body := tm.view(t, 1, rc, http.MethodGet, page, nil)
		require.Equal(t, http.StatusOK, code, "%s: %s", page, body)
		for _, link := range []string{"revert-link", "delete-link", "restore-link", `class="consolidate"`} {
			assert.NotContains(t, body, link, page)
		}
	}
	_, _, body := tm.view(t, 1, rc, http.MethodGet, "", nil)
	assert.Contains(t, body, `id="read-only"`)
	assert.Contains(t, body, "reader · read")

	refused := func(method, page string, form url.Values) {
		t.Helper()
		code, _, body := tm.view(t, 1, rc, method, page, form)
		assert.Equal(t, http.StatusForbidden, code, "%s %s", method, page)
		assert.Contains(t, body, "needs a token of scope write", "%s %s", method, page)
		assert.Contains(t, body, "the token &#34;reader&#34; has scope read", "%s %s", method, page)
	}
	for action, form := range forms {
		if action != "memories/consolidate" { // the plan's page is for readers too
			refused(http.MethodGet, action+"?"+form.Encode(), nil)
		}
		refused(http.MethodPost, action, form)
	}

	assert.Equal(t, []string{"admin", "admin"}, actors(t, admin, "notes.md"), "nothing was reverted")
	list := ok(t, admin, "list_memories", `{}`)
	assert.Contains(t, fmtJSON(t, list), kept, "the memory is still there")
	assert.NotContains(t, fmtJSON(t, list), gone, "the deleted one is still deleted")

	// The same token as a bearer: pages yes, changes no.
	req, err := http.NewRequest(http.MethodGet, tm.urls[0]+ui.Prefix+"docs?scope=global", nil)
	require.NoError(t, err)
	req.Header.Set("Authorization", "Bearer "+reader)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	res.Body.Close()
	assert.Equal(t, http.StatusOK, res.StatusCode)

	for _, tok := range []string{reader, tm.admin} {
		assert.NotContains(t, tm.logs.String(), tok, "a token is in the logs")
	}
}

// A write token's changes from the viewer record its name; it reverts
// its own writes there, and is refused, naming admin and the other
// writer, a revert that would undo someone else's.
func TestViewerWriteTokenRecordsItsName(t *testing.T) {
	tm := newTeam(t)
	alice := tm.token(t, "alice", tokens.ScopeWrite, 0)
	bob := tm.token(t, "bob", tokens.ScopeWrite, 0)
	a := tm.connect(t, 0, alice, "claude-code")
	b := tm.connect(t, 1, bob, "alice") // bob's client claims alice's name
	writeGlobal(t, a, "notes.md", "# Notes\\n\\none\\n")
	writeGlobal(t, a, "notes.md", "# Notes\\n\\ntwo\\n")

	ac := tm.signIn(t, 1, alice)
	action, form := tm.confirmForm(t, 1, ac, "revert?scope=global&path=notes.md&version=1")
	code, _, body := tm.view(t, 1, ac, http.MethodPost, action, form)
	require.Equal(t, http.StatusSeeOther, code, body)
	assert.Equal(t, []string{"alice", "alice", "alice"}, actors(t, b, "notes.md"))

	writeGlobal(t, b, "notes.md", "# Notes\\n\\nbob\\n")
	code, _, body = tm.view(t, 1, ac, http.MethodGet, "revert?scope=global&path=notes.md&version=3", nil)
	assert.Equal(t, http.StatusForbidden, code)
	assert.Contains(t, body, "needs a token of scope admin")
	assert.Contains(t, body, "version 4 was written by &#34;bob&#34;")
	form.Set("version", "3")
	form.Set("ifVersion", "4")
	code, _, body = tm.view(t, 1, ac, http.MethodPost, action, form)
	assert.Equal(t, http.StatusForbidden, code, body)
	assert.Contains(t, body, "needs a token of scope admin")
	assert.Equal(t, []string{"bob", "alice", "alice", "alice"}, actors(t, b, "notes.md"), "bob's write stands")

	// The shared token is an admin named admin: it may.
	sc := tm.signIn(t, 0, tm.admin)
	action, form = tm.confirmForm(t, 0, sc, "revert?scope=global&path=notes.md&version=3")
	code, _, body = tm.view(t, 0, sc, http.MethodPost, action, form)
	require.Equal(t, http.StatusSeeOther, code, body)
	assert.Equal(t, "admin", actors(t, b, "notes.md")[0])

	// A memory deleted from the viewer by a write token.
	id := addMemory(t, b, "Deploys happen on Tuesdays")
	action, form = tm.confirmForm(t, 1, ac, "memories/delete?id="+id)
	code, _, body = tm.view(t, 1, ac, http.MethodPost, action, form)
	require.Equal(t, http.StatusSeeOther, code, body)
	assert.NotContains(t, fmtJSON(t, ok(t, b, "list_memories", `{}`)), id)
}

// A session names its token: revoked through the store, the session is
// refused by a server that had just served it, once the cache of a few
// seconds has passed, on the other server too; the cookie of one server
// is good on the other (both have the shared token that keys sessions).
func TestViewerSessionOfRevokedToken(t *testing.T) {
	tm := newTeam(t)
	bob := tm.token(t, "bob", tokens.ScopeRead, 0)
	c := tm.signIn(t, 0, bob)
	for i := range tm.urls {
		code, _, body := tm.view(t, i, c, http.MethodGet, "", nil)
		require.Equal(t, http.StatusOK, code, "server %d: %s", i, body)
	}
	require.NoError(t, tm.store.Revoke(t.Context(), "bob", tm.clock.now()))
	tm.clock.advance(tokens.DefaultCacheTTL)
	require.Less(t, tokens.DefaultCacheTTL, 5*time.Second)
	for i := range tm.urls {
		code, hdr, body := tm.view(t, i, c, http.MethodGet, "", nil)
		assert.Equal(t, http.StatusUnauthorized, code, "server %d", i)
		assert.Contains(t, body, "revoked", "server %d", i)
		assert.Contains(t, hdr.Get("Set-Cookie"), "Max-Age=0", "server %d: the session cookie is cleared", i)
	}
}

// Adversarial: a session cookie is not made without the key (a forged
// one naming the shared token's hash is refused); failed tokens at the
// viewer and at /mcp are counted together, so the viewer is not a second
// lane for guessing.
func TestViewerAdversarial(t *testing.T) {
	tm := newTeam(t)
	alice := tm.token(t, "alice", tokens.ScopeRead, 0)
	c := tm.signIn(t, 0, alice)
	parts := strings.Split(c.Value, ".")
	require.Len(t, parts, 5)
	for name, v := range map[string]string{
		"admin's hash": strings.Join([]string{parts[0], parts[1], parts[2], tokens.Hash(tm.admin), parts[4]}, "."),
		"later time":   strings.Join([]string{parts[0], parts[1] + "0", parts[2], parts[3], parts[4]}, "."),
		"no signature": strings.Join(parts[:4], "."),
		"the token":    alice,
	} {
		code, _, body := tm.view(t, 1, &http.Cookie{Name: c.Name, Value: v}, http.MethodGet, "", nil)
		assert.Equal(t, http.StatusUnauthorized, code, name)
		assert.NotContains(t, body, `id="banks"`, name)
	}

	for i := range tokens.DefaultMaxFailures / 2 {
		guess, _ := tokens.Generate()
		assert.Equal(t, http.StatusUnauthorized, tm.post(t, 1, guess).StatusCode, "guess %d at /mcp", i)
		code, _, _ := tm.view(t, 1, nil, http.MethodPost, "signin", url.Values{"token": {guess}})
		assert.Equal(t, http.StatusUnauthorized, code, "guess %d at the viewer", i)
	}
	code, hdr, _ := tm.view(t, 1, nil, http.MethodPost, "signin", url.Values{"token": {alice}})
	assert.Equal(t, http.StatusTooManyRequests, code, "the right token, after ten wrong ones")
	assert.NotEmpty(t, hdr.Get("Retry-After"))
	assert.Equal(t, http.StatusTooManyRequests, tm.post(t, 1, alice).StatusCode)
	code, _, _ = tm.view(t, 0, nil, http.MethodPost, "signin", url.Values{"token": {alice}})
	assert.Equal(t, http.StatusSeeOther, code, "the other server counts its own")
}

// With personal tokens and no shared token, the viewer is served and
// takes them.
func TestViewerWithPersonalTokensOnly(t *testing.T) {
	tm := newTeamWith(t, "")
	alice := tm.token(t, "alice", tokens.ScopeWrite, 0)
	code, _, _ := tm.view(t, 0, nil, http.MethodGet, "", nil)
	assert.Equal(t, http.StatusUnauthorized, code)
	c := tm.signIn(t, 0, alice)
	code, _, body := tm.view(t, 0, c, http.MethodGet, "", nil)
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, "alice · write")
}

// Over MCP too, a write token reverts a document whose undone versions
// are all its own, and is refused one that would undo another's; an
// admin may. revert_document is listed to a write token.
func TestWriteTokenRevertsItsOwnWrites(t *testing.T) {
	tm := newTeam(t)
	alice := tm.token(t, "alice", tokens.ScopeWrite, 0)
	bob := tm.token(t, "bob", tokens.ScopeWrite, 0)
	carol := tm.token(t, "carol", tokens.ScopeAdmin, 0)
	a := tm.connect(t, 0, alice, "bob")
	b := tm.connect(t, 1, bob, "alice")
	lr, err := a.ListTools(t.Context(), nil)
	require.NoError(t, err)
	assert.Contains(t, fmtJSON(t, lr), `"revert_document"`)

	writeGlobal(t, a, "notes.md", "# Notes\\n\\none\\n")
	writeGlobal(t, b, "notes.md", "# Notes\\n\\ntwo\\n")
	writeGlobal(t, a, "notes.md", "# Notes\\n\\nthree\\n")
	ok(t, a, "revert_document", `{"scope":"global","path":"notes.md","toVersion":2}`)
	assert.Equal(t, []string{"alice", "alice", "bob", "alice"}, actors(t, b, "notes.md"))

	code, msg := fails(t, a, "revert_document", `{"scope":"global","path":"notes.md","toVersion":1}`)
	assert.Equal(t, string(mcpserver.CodePermissionDenied), code)
	assert.Contains(t, msg, "needs a token of scope admin")
	assert.Contains(t, msg, `version 2 was written by "bob"`)
	code, msg = fails(t, b, "revert_document", `{"scope":"global","path":"notes.md","toVersion":2}`)
	assert.Equal(t, string(mcpserver.CodePermissionDenied), code)
	assert.Contains(t, msg, `version 4 was written by "alice"`)
	assert.Len(t, actors(t, b, "notes.md"), 4, "nothing was reverted")

	ok(t, tm.connect(t, 1, carol, "x"), "revert_document", `{"scope":"global","path":"notes.md","toVersion":1}`)
	assert.Equal(t, "carol", actors(t, b, "notes.md")[0])
}
