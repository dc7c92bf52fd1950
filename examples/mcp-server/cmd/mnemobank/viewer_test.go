package main

import (
	"context"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcphttp"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/tools"
	"github.com/mnemobank/mnemobank/skillgraph"
	"github.com/mnemobank/mnemobank/skillgraph/skilldoc"
)

// addrWriter is a stderr that hands over the viewer's address once it is
// printed.
type addrWriter struct {
	mu   sync.Mutex
	buf  strings.Builder
	addr chan string
	sent bool
}

var uiLine = regexp.MustCompile(`mnemobank: ui on (http://\S+/ui/)\n`)

func newAddrWriter() *addrWriter { return &addrWriter{addr: make(chan string, 1)} }

func (w *addrWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if m := uiLine.FindStringSubmatch(w.buf.String()); m != nil && !w.sent {
		w.sent = true
		w.addr <- m[1]
	}
	return len(p), nil
}

// fetch GETs url without following redirects.
func fetch(t *testing.T, url string, header ...string) (int, http.Header, string) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, url, nil)
	require.NoError(t, err)
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(t, err)
	return resp.StatusCode, resp.Header, string(body)
}

// The viewer runs beside stdio while the server runs, shows what the
// agent writes, and stops with the server.
func TestViewerBesideStdio(t *testing.T) {
	dir := t.TempDir()
	st, ct := mcp.NewInMemoryTransports()
	stderr := newAddrWriter()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--root", filepath.Join(dir, "docs"), "--memories", filepath.Join(dir, "m.md"), "--ui", "127.0.0.1:0"}, st, &strings.Builder{}, stderr)
	}()
	base := <-stderr.addr
	cs, err := newClient(nil).Connect(ctx, ct, nil)
	require.NoError(t, err)
	ok(t, cs, tools.WriteGlobalMemoryBank, `{"path":"decisions.md","content":"# Decisions\n\nUse pgx."}`)

	code, _, body := fetch(t, base+"docs?scope=global")
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, "decisions.md")
	code, _, body = fetch(t, base+"doc?scope=global&path=decisions.md")
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, "Use pgx.")

	_ = cs.Close()
	cancel()
	if err := <-done; err != nil {
		require.ErrorIs(t, err, context.Canceled)
	}
	_, err = http.Get(base)
	assert.Error(t, err, "the viewer stopped with the server")
}

func TestViewerSubcommand(t *testing.T) {
	dir := t.TempDir()
	stderr := newAddrWriter()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := runSubcommand(ctx, []string{"ui", "--root", filepath.Join(dir, "docs"), "--memories", filepath.Join(dir, "m.md"), "--addr", "127.0.0.1:0", "--ui-read-only"},
			nil, &strings.Builder{}, stderr)
		done <- err
	}()
	base := <-stderr.addr
	code, _, body := fetch(t, base)
	require.Equal(t, http.StatusOK, code, body)
	assert.Contains(t, body, `id="banks"`)
	assert.Contains(t, body, `id="read-only"`)
	code, hdr, _ := fetch(t, strings.TrimSuffix(base, "ui/"))
	assert.Equal(t, http.StatusSeeOther, code, "the site's root leads to the viewer")
	assert.Equal(t, "/ui/", hdr.Get("Location"))
	code, _, _ = fetch(t, base+"revert?scope=global&path=x.md&version=1")
	assert.Equal(t, http.StatusForbidden, code, "--ui-read-only refuses changes")

	// An open live feed does not hold the shutdown: it ends at once.
	sctx, scancel := context.WithTimeout(t.Context(), 30*time.Second) // a guard against a hang, not a measure
	defer scancel()
	req, err := http.NewRequestWithContext(sctx, http.MethodGet, base+"events", nil)
	require.NoError(t, err)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(t, err)
	defer resp.Body.Close()
	require.Equal(t, http.StatusOK, resp.StatusCode)
	first := make([]byte, 8)
	_, err = io.ReadFull(resp.Body, first)
	require.NoError(t, err)
	cancel()
	require.NoError(t, <-done)
	_, err = io.ReadAll(resp.Body)
	assert.NoError(t, err, "the stream ended cleanly with the server")
}

func TestViewerRefusesOpenAddressWithoutToken(t *testing.T) {
	t.Setenv(mcphttp.TokenEnv, "")
	dir := t.TempDir()
	err := run(t.Context(), []string{"--root", dir, "--ui", "0.0.0.0:0"}, nil, io.Discard, io.Discard)
	require.ErrorIs(t, err, mcphttp.ErrInsecure)
	assert.Contains(t, err.Error(), "--ui")
	_, err = runSubcommand(t.Context(), []string{"ui", "--root", dir, "--addr", ":0"}, nil, io.Discard, io.Discard)
	require.ErrorIs(t, err, mcphttp.ErrInsecure)
	assert.Contains(t, err.Error(), "--addr")
}

// Under --http the viewer is at /ui/ of the same server, under the same
// token, which a browser presents once in the address.
func TestViewerOnHTTPServerNeedsTheToken(t *testing.T) {
	t.Setenv(mcphttp.TokenEnv, testToken)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	addrc := make(chan string, 1)
	stderr := &lineFunc{f: func(line string) {
		if u, ok := strings.CutPrefix(line, "mnemobank: listening on "); ok {
			addrc <- strings.TrimSuffix(u, mcphttp.Path)
		}
	}}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, []string{"--root", filepath.Join(dir, "docs"), "--memories", filepath.Join(dir, "m.md"), "--http", "127.0.0.1:0"}, nil, io.Discard, stderr)
	}()
	base := <-addrc
	code, _, _ := fetch(t, base+"/ui/")
	assert.Equal(t, http.StatusUnauthorized, code)
	code, _, _ = fetch(t, base+"/ui/", "Authorization", "Bearer "+testToken)
	assert.Equal(t, http.StatusOK, code)
	code, hdr, _ := fetch(t, base+"/ui/?token="+testToken)
	require.Equal(t, http.StatusSeeOther, code)
	cookie := hdr.Get("Set-Cookie")
	require.NotEmpty(t, cookie)
	code, _, body := fetch(t, base+"/ui/", "Cookie", strings.Split(cookie, ";")[0])
	assert.Equal(t, http.StatusOK, code)
	assert.Contains(t, body, `id="banks"`)
	code, _, _ = fetch(t, base+mcphttp.Path, "Cookie", strings.Split(cookie, ";")[0])
	assert.Equal(t, http.StatusUnauthorized, code, "the viewer's cookie is not the MCP endpoint's token")
	cancel()
	require.NoError(t, <-done)
}

// lineFunc calls f with every complete line written to it.
type lineFunc struct {
	mu  sync.Mutex
	buf string
	f   func(string)
}

func (w *lineFunc) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf += string(p)
	for {
		line, rest, ok := strings.Cut(w.buf, "\n")
		if !ok {
			return len(p), nil
		}
		w.buf = rest
		w.f(line)
	}
}

// "mnemobank ui --language en" shows a skill's SKILL.md in English, as the
// server writes it with the same flag; without it, in the language the
// locale asks for, English when it asks for none of ja and zh.
func TestViewerSubcommandLanguage(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	store, err := fsstore.Open(root, nil)
	require.NoError(t, err)
	g := &skillgraph.Graph{SkillID: "release", Version: 1, Nodes: []skillgraph.Node{
		{ID: "tag", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "Tag the release"}},
	}}
	_, err = skilldoc.Store(t.Context(), memorybank.New(store, nil), g, 0, "")
	require.NoError(t, err)
	require.NoError(t, store.Close())

	for _, c := range []struct {
		args      []string
		lang      string
		want, not string
	}{
		{[]string{"--language", "en"}, "ja_JP.UTF-8", "Instructions", "指示"},
		{nil, "ja_JP.UTF-8", "指示", "Instructions"},
		{nil, "", "Instructions", "指示"},
	} {
		t.Setenv("LC_ALL", "")
		t.Setenv("LC_MESSAGES", "")
		t.Setenv("LANG", c.lang)
		stderr := newAddrWriter()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() {
			_, err := runSubcommand(ctx, append([]string{"ui", "--root", root, "--memories", filepath.Join(dir, "m.md"), "--addr", "127.0.0.1:0"}, c.args...),
				nil, &strings.Builder{}, stderr)
			done <- err
		}()
		var base string
		select {
		case base = <-stderr.addr:
		case err := <-done:
			cancel()
			t.Fatalf("mnemobank ui %v stopped: %v", c.args, err)
		}
		code, _, body := fetch(t, base+"skill?id=release")
		assert.Equal(t, http.StatusOK, code, body)
		assert.Contains(t, body, c.want, c.args)
		assert.NotContains(t, body, c.not, c.args)
		cancel()
		require.NoError(t, <-done)
	}

	_, err = runSubcommand(t.Context(), []string{"ui", "--root", root, "--language", "fr"}, nil, &strings.Builder{}, &strings.Builder{})
	assert.ErrorContains(t, err, `--language "fr" is not one of en, ja, zh`)
}
