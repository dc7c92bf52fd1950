package main

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
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
		assert.Equal(t, c.uri, docURI(c.scope, c.branch, c.path))
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

// A subscriber hears of a write to its document from its own server and
// from another server process on the same bank, and of nothing else.
func TestSubscriptionsAcrossProcesses(t *testing.T) {
	for _, protocol := range []string{"", legacyProtocol} {
		t.Run("protocol "+protocol, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "docs")
			updated := make(chan string, 16)
			client := newClient(&mcp.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
				updated <- req.Params.URI
			}})
			watcherCmd := connectStdioVersion(t, client, root, protocol)
			writer := connectStdio(t, nil, root)

			const uri = "memorybank://branch/feature%2Flogin/progress.json"
			ok(t, writer, "write_branch_memory_bank", `{"branch":"feature/login","path":"progress.json","content":{"done":[]}}`)
			require.NoError(t, watcherCmd.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))

			ok(t, writer, "write_global_memory_bank", `{"path":"other.json","content":{"x":1}}`)
			ok(t, writer, "write_branch_memory_bank", `{"branch":"feature/login","path":"progress.json","patches":[{"op":"add","path":"/content/done/-","value":"form"}]}`)
			start := time.Now()
			select {
			case got := <-updated:
				assert.Equal(t, uri, got, "only the subscribed document")
				assert.Less(t, time.Since(start), 2*time.Second)
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/resources/updated for a write by another process")
			}

			ok(t, watcherCmd, "write_branch_memory_bank", `{"branch":"feature/login","path":"progress.json","patches":[{"op":"add","path":"/content/done/-","value":"tests"}]}`)
			select {
			case got := <-updated:
				assert.Equal(t, uri, got)
			case <-time.After(10 * time.Second):
				t.Fatal("no notifications/resources/updated for a write by the same process")
			}
		})
	}
}

func TestSubscriptionLimit(t *testing.T) {
	ts := newTestServer(t)
	for i := range maxSubscriptions {
		require.NoError(t, ts.watcher.add(t.Context(), fmt.Sprintf("memorybank://global/d%d.json", i), fmt.Sprintf("global-memory-bank/d%d.json", i)))
	}
	err := ts.watcher.add(t.Context(), "memorybank://global/one-more.json", "global-memory-bank/one-more.json")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "at most 1000")
	require.NoError(t, ts.watcher.add(t.Context(), "memorybank://global/d0.json", "global-memory-bank/d0.json"), "a second subscriber to a watched document")
	ts.watcher.remove("memorybank://global/d1.json")
	require.NoError(t, ts.watcher.add(t.Context(), "memorybank://global/one-more.json", "global-memory-bank/one-more.json"))
}
