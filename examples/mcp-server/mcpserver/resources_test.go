package mcpserver

import (
	"context"
	"fmt"
	"iter"
	"log/slog"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

func TestDocURIs(t *testing.T) {
	for _, c := range []struct {
		scope        memorybank.Scope
		branch, path string
		uri          string
	}{
		{memorybank.ScopeGlobal, "", "systemPatterns.json", "memorybank://global/systemPatterns.json"},
		{memorybank.ScopeGlobal, "", "notes/db design.md", "memorybank://global/notes/db%20design.md"},
		{memorybank.ScopeBranch, "feature/login", "progress.json", "memorybank://branch/feature%2Flogin/progress.json"},
		{memorybank.ScopeBranch, "main", "a/b.md", "memorybank://branch/main/a/b.md"},
	} {
		assert.Equal(t, c.uri, ResourceURI(c.scope, c.branch, c.path))
		rr, err := parseDocURI(c.uri)
		require.NoError(t, err, c.uri)
		assert.Equal(t, memorybank.ReadRequest{Scope: c.scope, Branch: c.branch, Path: c.path}, rr)
	}
	for _, bad := range []string{"memorybank://global/../x.json", "memorybank://branch/main", "memorybank://other/x", "file:///etc/passwd",
		"memorybank://global/%2e%2e/x.json", "memorybank://branch/%zz/x.md", "memorybank://global/.hidden"} {
		_, err := parseDocURI(bad)
		assert.Error(t, err, bad)
	}
}

func TestResources(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	ok(t, s, "write_global_memory_bank", `{"path":"notes/db.md","content":"# DB\nPostgres 16"}`)
	ok(t, s, "write_branch_memory_bank", `{"branch":"feature/login","path":"progress.json","content":{"done":["form"]}}`)

	templates, err := s.ListResourceTemplates(t.Context(), nil)
	require.NoError(t, err)
	var tmpl []string
	for _, rt := range templates.ResourceTemplates {
		tmpl = append(tmpl, rt.URITemplate)
	}
	assert.ElementsMatch(t, []string{"memorybank://global/{+path}", "memorybank://branch/{branch}/{+path}"}, tmpl)

	list, err := s.ListResources(t.Context(), nil)
	require.NoError(t, err)
	var uris []string
	for _, r := range list.Resources {
		uris = append(uris, r.URI)
	}
	assert.Contains(t, uris, "memorybank://global/notes/db.md")
	assert.Contains(t, uris, "memorybank://branch/feature%2Flogin/progress.json")

	res, err := s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memorybank://global/notes/db.md"})
	require.NoError(t, err)
	require.Len(t, res.Contents, 1)
	assert.Equal(t, "text/markdown", res.Contents[0].MIMEType)
	assert.Contains(t, res.Contents[0].Text, "Postgres 16")

	res, err = s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memorybank://branch/feature%2Flogin/progress.json"})
	require.NoError(t, err)
	assert.Equal(t, "application/json", res.Contents[0].MIMEType)
	assert.Contains(t, res.Contents[0].Text, `"memory_document_v2"`, "a JSON document reads as its envelope")
	assert.Contains(t, res.Contents[0].Text, `"form"`)

	_, err = s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memorybank://global/missing.md"})
	assert.Error(t, err)
	_, err = s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memorybank://global/../../etc/passwd"})
	assert.Error(t, err)
}

// Each session may watch at most maxSubscriptionsPerSession documents,
// so no client reaches the server's cap; a session's watches are released
// when it unsubscribes or ends.
func TestSubscriptionLimits(t *testing.T) {
	ts := newTestServer(t)
	a, b := &mcp.ServerSession{}, &mcp.ServerSession{}
	uri := func(i int) (string, memorybank.ReadRequest) {
		return fmt.Sprintf("memorybank://global/d%d.json", i), memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("d%d.json", i)}
	}
	for i := range maxSubscriptionsPerSession {
		u, k := uri(i)
		require.NoError(t, ts.watcher.add(t.Context(), a, u, k))
	}
	u, k := uri(maxSubscriptionsPerSession)
	err := ts.watcher.add(t.Context(), a, u, k)
	var le *subscriptionLimitError
	require.ErrorAs(t, err, &le)
	require.ErrorIs(t, err, errSubscriptionLimit)
	assert.Contains(t, err.Error(), fmt.Sprintf("at most %d", maxSubscriptionsPerSession))
	u0, k0 := uri(0)
	require.NoError(t, ts.watcher.add(t.Context(), a, u0, k0), "subscribing twice to one document is one watch")
	require.NoError(t, ts.watcher.add(t.Context(), b, u, k), "another session is not limited by the first")
	assert.Less(t, maxSubscriptionsPerSession, maxWatchedDocuments, "one session cannot reach the server's cap")

	ts.watcher.remove(b, u0) // b does not watch d0: a's watch stays
	assert.Equal(t, maxSubscriptionsPerSession+1, ts.watcher.watchedDocuments())
	ts.watcher.remove(a, u0)
	require.NoError(t, ts.watcher.add(t.Context(), a, u, k), "room again after an unsubscribe")
	ts.watcher.release(a)
	assert.Equal(t, 1, ts.watcher.watchedDocuments(), "only b's watch is left")
}

// One session's unsubscribe does not end another's watch, and a session's
// watches end with it.
func TestSubscriptionsBelongToTheirSession(t *testing.T) {
	ts := newTestServer(t)
	updated := make(chan string, 16)
	watcherClient := newClient(&mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		updated <- req.Params.URI
	}})
	w := ts.connect(t, watcherClient, legacyProtocol)
	other := ts.connect(t, nil, legacyProtocol)
	const uri = "memorybank://global/progress.json"
	require.NoError(t, w.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))
	require.NoError(t, other.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))
	require.NoError(t, other.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri}))
	require.NoError(t, other.Unsubscribe(t.Context(), &mcp.UnsubscribeParams{URI: uri}), "unsubscribing twice is harmless")
	ok(t, other, "write_global_memory_bank", `{"path":"progress.json","content":{"n":1}}`)
	select {
	case got := <-updated:
		assert.Equal(t, uri, got, "the first session still watches")
	case <-time.After(10 * time.Second):
		t.Fatal("another session's unsubscribe ended this session's watch")
	}

	require.NoError(t, w.Close())
	require.Eventually(t, func() bool { return ts.watcher.watchedDocuments() == 0 }, 10*time.Second, 10*time.Millisecond,
		"the closed session's watch was not released")
}

// countingStore counts List calls.
type countingStore struct {
	*fsstore.Store
	lists atomic.Int64
}

func (c *countingStore) List(ctx context.Context, prefix string) iter.Seq2[memorybank.Object, error] {
	c.lists.Add(1)
	return c.Store.List(ctx, prefix)
}

// The watcher's work on a change does not grow with the number of
// watched documents.
func TestWatchCostDoesNotGrowWithWatches(t *testing.T) {
	fs, err := fsstore.Open(filepath.Join(t.TempDir(), "docs"), nil)
	require.NoError(t, err)
	t.Cleanup(func() { _ = fs.Close() })
	store := &countingStore{Store: fs}
	bank := memorybank.New(store, &memorybank.Options{Language: memorybank.English})
	w := newWatcher(bank, slog.New(slog.DiscardHandler))
	t.Cleanup(w.stop)
	notified := make(chan string, 16)
	w.notify = func(uri string) { notified <- uri }
	const n = 100
	for i := range n {
		ss := &mcp.ServerSession{} // as many sessions as it takes
		require.NoError(t, w.add(t.Context(), ss, fmt.Sprintf("memorybank://global/d%d.json", i),
			memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("d%d.json", i)}))
	}
	before := store.lists.Load()
	_, err = bank.Write(t.Context(), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "d7.json", Content: []byte(`{"x":1}`)})
	require.NoError(t, err)
	select {
	case got := <-notified:
		assert.Equal(t, "memorybank://global/d7.json", got)
	case <-time.After(10 * time.Second):
		t.Fatal("no notification")
	}
	assert.Less(t, store.lists.Load()-before, int64(n/10), "one change costs a few listings, not one per watched document")
}

// Resource errors carry the protocol's codes and quote a short prefix of
// the client's URI, never the whole of it.
func TestResourceErrors(t *testing.T) {
	ts := newTestServer(t)
	// Protocol 2026-07-28 subscribes by listening; the error of a
	// subscribe request is the earlier protocols'.
	s := ts.connect(t, nil, legacyProtocol)
	long := "memorybank://global/" + strings.Repeat("x", 1<<20) + "/../y.md"
	for name, err := range map[string]error{
		"subscribe":         s.Subscribe(t.Context(), &mcp.SubscribeParams{URI: long}),
		"subscribe foreign": s.Subscribe(t.Context(), &mcp.SubscribeParams{URI: "file:///etc/passwd"}),
		"read missing": func() error {
			_, err := s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memorybank://global/missing.md"})
			return err
		}(),
		"read long": func() error { _, err := s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: long}); return err }(),
	} {
		var je *jsonrpc.Error
		require.ErrorAs(t, err, &je, name)
		want := int64(jsonrpc.CodeInvalidParams)
		if name == "read missing" {
			want = legacyResourceNotFound // the code of protocol 2025-11-25
		}
		assert.EqualValues(t, want, je.Code, name)
		assert.Less(t, len(je.Message)+len(je.Data), 1000, "%s: the URI is not echoed whole", name)
	}
}
