package mcphttp

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens/pgtokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// testClock is the time every server of a team sees, moved by the test
// (the cache of lookups and the expiry are judged by it), so nothing
// sleeps.
type testClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *testClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *testClock) advance(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

// syncBuffer is a log both servers write to.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// team is two servers of one PostgreSQL namespace, as two machines of a
// team run them, with the namespace's tokens.
type team struct {
	urls  [2]string // base URLs
	store *pgtokens.Store
	pool  *pgxpool.Pool
	ns    string
	clock *testClock
	logs  *syncBuffer
	admin string
}

const teamAdminToken = "shared-admin-token-0123456789abcdef"

func newTeam(t *testing.T) *team { return newTeamWith(t, teamAdminToken) }

// newTeamWith is newTeam with shared as MNEMOBANK_TOKEN ("" for none).
func newTeamWith(t *testing.T, shared string) *team {
	dsn := os.Getenv("MNEMOBANK_PG_DSN")
	if dsn == "" {
		t.Skip("MNEMOBANK_PG_DSN is not set: no PostgreSQL to serve a team's bank from (bash .ci/run starts one)")
	}
	var nb [8]byte
	_, _ = rand.Read(nb[:])
	tm := &team{ns: "tokens-test-" + hex.EncodeToString(nb[:]), clock: &testClock{t: time.Now()}, logs: &syncBuffer{}, admin: shared}
	pool, err := pgxpool.New(t.Context(), dsn)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	tm.pool = pool
	tm.store = pgtokens.New(pool, tm.ns)
	logger := slog.New(slog.NewTextHandler(tm.logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	for i := range tm.urls {
		pg, err := pgstore.Open(t.Context(), dsn, &pgstore.Options{Namespace: tm.ns})
		require.NoError(t, err)
		t.Cleanup(pg.Close)
		ms, err := pg.Memories("memories.md")
		require.NoError(t, err)
		trash, err := pg.Memories("memories.trash.md")
		require.NoError(t, err)
		mem, err := memories.New(ms, &memories.Options{Trash: trash})
		require.NoError(t, err)
		bank := memorybank.New(pg, &memorybank.Options{Language: memorybank.English, Logger: logger, History: history.New(&history.Options{Logger: logger})})
		srv := mcpserver.New(bank, mem, &mcpserver.Options{Logger: logger})
		t.Cleanup(srv.Close)
		viewer := &ui.Options{Bank: bank, Memories: mem, Hosts: []string{"127.0.0.1"}, Logger: logger}
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan error, 1)
		acc := Access{Token: tm.admin, Store: tm.store, Logger: logger, Auth: &tokens.AuthOptions{Now: tm.clock.now}}
		go func() { done <- serveListener(ctx, ln, acc, true, NewHandler(srv, Limits{}), viewer, logger, nil) }()
		t.Cleanup(func() { cancel(); <-done })
		tm.urls[i] = "http://" + ln.Addr().String()
	}
	return tm
}

// token makes a token as "mnemobank token create" does.
func (tm *team) token(t *testing.T, name string, scope tokens.Scope, ttl time.Duration) string {
	text, _, err := tokens.New(t.Context(), tm.store, name, scope, ttl, tm.clock.now())
	require.NoError(t, err)
	return text
}

// bearer adds the token to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

// connect opens an MCP session on server i with token, the client
// calling itself clientName.
func (tm *team) connect(t *testing.T, i int, token, clientName string) *mcp.ClientSession {
	return tm.connectWith(t, i, token, clientName, legacyProtocol)
}

// connectWith is connect asking for protocol.
func (tm *team) connectWith(t *testing.T, i int, token, clientName, protocol string) *mcp.ClientSession {
	c := mcp.NewClient(&mcp.Implementation{Name: clientName, Version: "v0"}, nil)
	cs, err := c.Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: tm.urls[i] + Path,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}}}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// post sends a raw MCP request to server i and returns the response.
func (tm *team) post(t *testing.T, i int, token string) *http.Response {
	req, err := http.NewRequest(http.MethodPost, tm.urls[i]+Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { res.Body.Close() })
	return res
}

const writeArgs = `{"branch":"main","path":"notes.md","content":"# Notes\n"}`

// A read token sees only the read tools, and every other tool, called
// anyway, is refused naming the scope it needs; nothing is written. The
// viewer refuses its POSTs (TestViewerReadToken tries each).
func TestReadTokenCannotWrite(t *testing.T) {
	tm := newTeam(t)
	reader := tm.token(t, "reader", tokens.ScopeRead, 0)
	for _, protocol := range []string{legacyProtocol, mcpserver.StatelessProtocol} {
		t.Run(protocol, func(t *testing.T) { readOnly(t, tm, reader, protocol) })
	}
}

func readOnly(t *testing.T, tm *team, reader, protocol string) {
	cs := tm.connectWith(t, 0, reader, "mnemobank-test", protocol)

	lr, err := cs.ListTools(t.Context(), nil)
	require.NoError(t, err)
	listed := map[string]bool{}
	for _, tool := range lr.Tools {
		listed[tool.Name] = true
		need, ok := mcpserver.ToolScope(tool.Name)
		require.True(t, ok)
		assert.Equal(t, tokens.ScopeRead, need, "%s is listed to a read token", tool.Name)
	}
	assert.True(t, listed["read_context"])
	assert.False(t, listed["write_branch_memory_bank"])

	writes := map[string]string{
		"write_branch_memory_bank":     writeArgs,
		"write_global_memory_bank":     `{"path":"notes.md","content":"# Notes\n"}`,
		"delete_document":              `{"scope":"global","path":"notes.md"}`,
		"revert_document":              `{"scope":"global","path":"notes.md","toVersion":1}`,
		"add_memory":                   `{"content":"x"}`,
		"delete_memory":                `{"id":"x"}`,
		"restore_memory":               `{"id":"x"}`,
		"write_skill_graph":            `{}`,
		"apply_skill_graph_operations": `{}`,
		"apply_memory_ops":             `{}`,
	}
	for name, args := range writes {
		need, _ := mcpserver.ToolScope(name)
		require.NotEqual(t, tokens.ScopeRead, need, name)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: name, Arguments: json.RawMessage(args)})
		require.NoError(t, err, name)
		require.True(t, res.IsError, "%s with a read token succeeded", name)
		text := res.Content[0].(*mcp.TextContent).Text
		assert.Contains(t, text, string(mcpserver.CodePermissionDenied), name)
		assert.Contains(t, text, "needs a token of scope "+need.String(), name)
	}
	out := ok(t, cs, "list_documents", `{"scope":"global"}`)
	assert.Empty(t, out["entries"], "nothing was written")

	form := url.Values{"scope": {"global"}, "path": {"notes.md"}, "version": {"1"}}
	req, err := http.NewRequest(http.MethodPost, tm.urls[0]+ui.Prefix+"revert", strings.NewReader(form.Encode()))
	require.NoError(t, err)
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Authorization", "Bearer "+reader)
	res, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	body, err := io.ReadAll(res.Body)
	res.Body.Close()
	require.NoError(t, err)
	assert.Equal(t, http.StatusForbidden, res.StatusCode, "the viewer refuses a read token's change")
	assert.Contains(t, string(body), "needs a token of scope write")
}

// A token revoked through the store (as "mnemobank token revoke" does) is
// refused by a server that had just accepted it, once its cache of a few
// seconds has passed; and an expired token is refused.
func TestRevokedAndExpiredTokensRefused(t *testing.T) {
	tm := newTeam(t)
	alice := tm.token(t, "alice", tokens.ScopeWrite, time.Hour)
	bob := tm.token(t, "bob", tokens.ScopeWrite, 0)
	assert.Equal(t, http.StatusOK, tm.post(t, 1, alice).StatusCode)
	assert.Equal(t, http.StatusOK, tm.post(t, 1, bob).StatusCode)

	require.NoError(t, tm.store.Revoke(t.Context(), "bob", tm.clock.now()))
	tm.clock.advance(tokens.DefaultCacheTTL)
	require.Less(t, tokens.DefaultCacheTTL, 5*time.Second)
	res := tm.post(t, 1, bob)
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	body, _ := io.ReadAll(res.Body)
	assert.Contains(t, string(body), "revoked")
	assert.Equal(t, http.StatusOK, tm.post(t, 0, alice).StatusCode, "others are unaffected")

	tm.clock.advance(time.Hour)
	res = tm.post(t, 0, alice)
	assert.Equal(t, http.StatusUnauthorized, res.StatusCode)
	body, _ = io.ReadAll(res.Body)
	assert.Contains(t, string(body), "expired")
}

// The history names the token of each write, through either server,
// whatever name the client declares; the clear tokens are neither in the
// table nor in the logs.
func TestHistoryNamesTheToken(t *testing.T) {
	tm := newTeam(t)
	alice := tm.token(t, "alice", tokens.ScopeWrite, 0)
	bob := tm.token(t, "bob", tokens.ScopeAdmin, 0)
	a := tm.connect(t, 0, alice, "bob") // alice's client claims to be bob
	b := tm.connect(t, 1, bob, "alice")
	ok(t, a, "write_branch_memory_bank", writeArgs)
	ok(t, b, "write_branch_memory_bank", `{"branch":"main","path":"notes.md","content":"# Notes\nmore\n"}`)
	ok(t, b, "revert_document", `{"scope":"branch","branch":"main","path":"notes.md","toVersion":1}`)
	code, msg := fails(t, a, "revert_document", `{"scope":"branch","branch":"main","path":"notes.md","toVersion":2}`)
	assert.Equal(t, string(mcpserver.CodePermissionDenied), code)
	assert.Contains(t, msg, "scope admin")

	ok(t, a, "apply_memory_ops", `{"branch":"main","plan":`+createPlan+`,"confirmed":true}`)
	planned := ok(t, b, "document_history", `{"scope":"branch","branch":"main","path":"details/learnings/flaky-test.md"}`)
	assert.Contains(t, fmtJSON(t, planned), `"actor":"alice"`, "a plan's writes name its token")
	ok(t, a, "write_skill_graph", `{"skillId":"deploy","graph":{"nodes":[{"id":"a","type":"instruction","data":{"label":"Build"}}],"edges":[]}}`)
	ok(t, b, "apply_skill_graph_operations", `{"skillId":"deploy","operations":[{"operationId":"op1","kind":"addNode","node":{"type":"instruction","label":"Ship"}}]}`)
	skill := fmtJSON(t, ok(t, a, "document_history", `{"scope":"global","path":"skills/deploy.json"}`))
	assert.Contains(t, skill, `"actor":"alice"`, "a skill graph's write names its token")
	assert.Contains(t, skill, `"actor":"bob"`, "a skill graph's change names its token")

	h := ok(t, a, "document_history", `{"scope":"branch","branch":"main","path":"notes.md"}`)
	raw, err := json.Marshal(h)
	require.NoError(t, err)
	var hist struct {
		Entries []struct {
			Version int64  `json:"version"`
			Actor   string `json:"actor"`
		} `json:"entries"`
	}
	require.NoError(t, json.Unmarshal(raw, &hist), "%s", raw)
	var actors []string
	for _, e := range hist.Entries {
		actors = append(actors, e.Actor)
	}
	assert.Equal(t, []string{"bob", "bob", "alice"}, actors, "newest first: %s", raw)

	for _, tok := range []string{alice, bob, teamAdminToken} {
		var n int
		require.NoError(t, tm.pool.QueryRow(t.Context(), `SELECT count(*) FROM `+pgtokens.Table+` t WHERE t::text LIKE '%' || $1 || '%'`,
			strings.TrimPrefix(tok, tokens.Prefix)).Scan(&n))
		assert.Zero(t, n, "a clear token is in the table")
		assert.NotContains(t, tm.logs.String(), tok)
	}
	list, err := tm.store.List(t.Context())
	require.NoError(t, err)
	for _, tk := range list {
		assert.False(t, tk.LastUsed.IsZero(), "%s's last use is recorded", tk.Name)
	}
}

// Guessing: after tokens.DefaultMaxFailures wrong tokens from one address,
// even a right one is answered 429 with Retry-After; a refusal names the
// protected resource metadata, which lists the scopes.
func TestGuessingIsLimited(t *testing.T) {
	tm := newTeam(t)
	alice := tm.token(t, "alice", tokens.ScopeRead, 0)
	res := tm.post(t, 0, "")
	require.Equal(t, http.StatusUnauthorized, res.StatusCode)
	wa := res.Header.Get("WWW-Authenticate")
	assert.Contains(t, wa, `resource_metadata="`+tm.urls[0]+MetadataPath+`"`)

	mres, err := http.Get(tm.urls[0] + MetadataPath)
	require.NoError(t, err)
	defer mres.Body.Close()
	var md struct {
		Resource string   `json:"resource"`
		Scopes   []string `json:"scopes_supported"`
	}
	require.NoError(t, json.NewDecoder(mres.Body).Decode(&md))
	assert.Equal(t, tm.urls[0]+Path, md.Resource)
	assert.Equal(t, []string{"read", "write", "admin"}, md.Scopes)

	for i := range tokens.DefaultMaxFailures {
		guess, _ := tokens.Generate()
		assert.Equal(t, http.StatusUnauthorized, tm.post(t, 0, guess).StatusCode, "guess %d", i)
	}
	res = tm.post(t, 0, alice)
	assert.Equal(t, http.StatusTooManyRequests, res.StatusCode)
	assert.NotEmpty(t, res.Header.Get("Retry-After"))
	assert.Equal(t, http.StatusOK, tm.post(t, 1, alice).StatusCode, "each server counts its own failures")
	tm.clock.advance(tokens.DefaultFailWindow)
	assert.Equal(t, http.StatusOK, tm.post(t, 0, alice).StatusCode)
}

func fmtJSON(t *testing.T, v any) string {
	data, err := json.Marshal(v)
	require.NoError(t, err)
	return string(data)
}
