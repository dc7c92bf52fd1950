package ui_test

import (
	"context"
	"html"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/skillgraph"
	"github.com/mnemobank/mnemobank/skillgraph/skilldoc"
)

// fixture is a viewer over an in-memory bank and memories file.
type fixture struct {
	t    testing.TB
	bank *memorybank.Bank
	mem  *memories.Manager
	h    *ui.Handler
}

func newFixture(t testing.TB, opts ui.Options) *fixture {
	t.Helper()
	if opts.Bank == nil {
		opts.Bank = memorybank.New(&memorybank.MemStore{}, &memorybank.Options{Language: memorybank.English, History: history.New(nil)})
	}
	if opts.Memories == nil {
		m, err := memories.New(&memories.MemStore{}, &memories.Options{Trash: &memories.MemStore{}})
		require.NoError(t, err)
		opts.Memories = m
	}
	h, err := ui.New(opts)
	require.NoError(t, err)
	t.Cleanup(h.Close)
	return &fixture{t: t, bank: opts.Bank, mem: opts.Memories, h: h}
}

// write stores a document, failing the test on error.
func (f *fixture) write(req memorybank.WriteRequest) *memorybank.WriteResult {
	f.t.Helper()
	res, err := f.bank.Write(context.Background(), req)
	require.NoError(f.t, err)
	return res
}

// seed writes a few ordinary documents, a memory and a skill graph.
func (f *fixture) seed() {
	f.t.Helper()
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nThe **service** talks to PostgreSQL.\n", Tags: []string{"design"}})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "decisions.json", Content: []byte(`{"content":{"decision":"use pgx","why":["fast","maintained"]}}`)})
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "progress.md", Text: "# Progress\n\nLogin form done.\n"})
	_, err := f.mem.Add(context.Background(), "Run go test with -race before every commit", "lesson")
	require.NoError(f.t, err)
	g := &skillgraph.Graph{SkillID: "release", Version: 1, Nodes: []skillgraph.Node{
		{ID: "tag", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "Tag the release"}},
		{ID: "push", Type: skillgraph.TypeTool, Data: skillgraph.NodeData{Label: "Push", ToolName: "git"}},
	}, Edges: []skillgraph.Edge{{ID: "e1", Source: "tag", Target: "push"}}}
	_, err = skilldoc.Store(context.Background(), f.bank, g, 0, "")
	require.NoError(f.t, err)
}

// response is a finished request.
type response struct {
	Code   int
	Header http.Header
	Body   string
}

// do serves one request; host defaults to localhost.
func (f *fixture) do(req *http.Request) response {
	f.t.Helper()
	if req.Host == "" || req.Host == "example.com" {
		req.Host = "localhost:7777"
	}
	rec := httptest.NewRecorder()
	f.h.ServeHTTP(rec, req)
	body, _ := io.ReadAll(rec.Result().Body)
	return response{rec.Code, rec.Result().Header, string(body)}
}

func (f *fixture) get(target string) response {
	f.t.Helper()
	return f.do(httptest.NewRequest(http.MethodGet, target, nil))
}

// post sends a form as the viewer's own page would.
func (f *fixture) post(target string, form url.Values) response {
	f.t.Helper()
	req := httptest.NewRequest(http.MethodPost, target, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://localhost:7777")
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	return f.do(req)
}

// confirmForm reads the form of a confirmation page: its action and fields.
func (f *fixture) confirmForm(target string) (string, url.Values) {
	f.t.Helper()
	res := f.get(target)
	require.Equal(f.t, http.StatusOK, res.Code, res.Body)
	action := regexp.MustCompile(`<form class="[a-z]+" method="post" action="([^"]+)"`).FindStringSubmatch(res.Body)
	require.NotNil(f.t, action, "no change form in %s", res.Body)
	form := url.Values{}
	for _, m := range regexp.MustCompile(`<input type="hidden" name="([^"]+)" value="([^"]*)">`).FindAllStringSubmatch(res.Body, -1) {
		form.Set(m[1], html.UnescapeString(m[2]))
	}
	return html.UnescapeString(action[1]), form
}
