package ui_test

// End-to-end tests: the viewer in a real headless Chromium (package
// browsertest), over a bank on disk (fsstore) and, when MNEMOBANK_PG_DSN is
// set, on PostgreSQL. Each main page is saved as a screenshot
// ($MNEMOBANK_UI_SCREENSHOTS, else the test's temp dir).

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	gmhtml "github.com/yuin/goldmark/renderer/html"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/dottest"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/internal/browsertest"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
	"github.com/mnemobank/mnemobank/skillgraph"
	"github.com/mnemobank/mnemobank/skillgraph/skilldoc"
)

// The second process: when writerEnv names a bank directory, the test
// binary writes one document there as an agent would, and exits.
const (
	writerEnv  = "MNEMOBANK_E2E_WRITER_ROOT"
	writerPath = "notes/from-another-process.md"
)

func TestMain(m *testing.M) {
	if root := os.Getenv(writerEnv); root != "" {
		os.Exit(writeAsAnotherProcess(root))
	}
	os.Exit(m.Run())
}

func writeAsAnotherProcess(root string) int {
	store, err := fsstore.Open(root, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	bank := memorybank.New(store, &memorybank.Options{History: history.New(nil), Language: memorybank.English})
	_, err = bank.Write(context.Background(), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: writerPath,
		Text: "# Written elsewhere\n\nBy a second process.\n", Actor: "agent-b", Reason: "end-to-end test"})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// feedBound is how long a write may take to reach an open page before the
// test fails: a failure bound, far above the second the issue asks for, so
// a loaded machine does not fail it; not a speed claim.
const feedBound = 15 * time.Second

// hostileDoc tries to run script on the document page; every vector sets
// the same markers, which the page must never show.
const hostileDoc = "# Hostile\n\n" +
	"<script>window.__pwned=1;document.title='pwned';alert('pwned')</script>\n\n" +
	"<img src=\"/missing.png\" onerror=\"window.__pwned=1;document.title='pwned'\">\n\n" +
	"<svg onload=\"window.__pwned=1\"><circle r=\"5\"/></svg>\n\n" +
	"<details open ontoggle=\"window.__pwned=1\"><summary>s</summary>x</details>\n\n" +
	"<iframe srcdoc=\"<script>top.__pwned=1</script>\"></iframe>\n\n" +
	"<p><b onmouseover=\"window.__pwned=1\">hover me</b></p>\n\n" +
	"<a href=\"javascript:window.__pwned=1\">raw link</a>\n\n" +
	"[markdown link](javascript:window.__pwned=1)\n\n" +
	"text <img src=x onerror=\"window.__pwned=1\"> text\n"

// e2eBank is a bank, its memories and a viewer over them, served over
// HTTP beside a control page (see hostileControl).
type e2eBank struct {
	root string // the fsstore directory; "" on PostgreSQL
	bank *memorybank.Bank
	mem  *memories.Manager
	url  string // the server; pages are under url+ui.Prefix
}

// seedE2E writes documents with a history, a JSON document, a branch
// bank, a hostile document, memories and a skill graph.
func seedE2E(t *testing.T, b *e2eBank) {
	t.Helper()
	ctx := context.Background()
	write := func(req memorybank.WriteRequest) {
		t.Helper()
		_, err := b.bank.Write(ctx, req)
		require.NoError(t, err)
	}
	write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Tags: []string{"design"}, Actor: "agent-a", Reason: "first notes",
		Text: "# Architecture\n\nThe **service** stores its data in PostgreSQL.\n\n| part | owner |\n|---|---|\n| api | team a |\n| db | team b |\n\n- [x] schema\n- [ ] backups\n"})
	write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Actor: "agent-a", Reason: "moved to SQLite",
		Text: "# Architecture\n\nThe **service** stores its data in SQLite.\n\n| part | owner |\n|---|---|\n| api | team a |\n| db | team b |\n\n- [x] schema\n- [x] backups\n"})
	write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "decisions.json", Tags: []string{"design"},
		Content: []byte(`{"schema":"memory_document_v2","content":{"decision":"use pgx","why":["fast","maintained"],"owner":{"name":"team b","since":2024},"final":true,"supersedes":null}}`)})
	write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "hostile.md", Text: hostileDoc, Actor: "agent-x"})
	write(memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "progress.md", Text: "# Progress\n\nLogin form done; sessions next.\n"})
	for _, m := range []struct{ content, tag string }{
		{"Run go test with -race before every commit", "lesson"},
		{"The staging database is reset every Monday", "fact"},
	} {
		_, err := b.mem.Add(ctx, m.content, m.tag)
		require.NoError(t, err)
	}
	g := &skillgraph.Graph{SkillID: "release", Version: 1, Nodes: []skillgraph.Node{
		{ID: "tag", Type: skillgraph.TypeInstruction, Data: skillgraph.NodeData{Label: "Tag the release"}},
		{ID: "ok", Type: skillgraph.TypeDecision, Data: skillgraph.NodeData{Label: "CI green?"}},
		{ID: "push", Type: skillgraph.TypeTool, Data: skillgraph.NodeData{Label: "Push", ToolName: "git"}},
	}, Edges: []skillgraph.Edge{{ID: "e1", Source: "tag", Target: "ok"}, {ID: "e2", Source: "ok", Target: "push"}}}
	_, err := skilldoc.Store(ctx, b.bank, g, 0, "")
	require.NoError(t, err)
}

// serveE2E starts the viewer over b, and the control page.
func serveE2E(t *testing.T, b *e2eBank) {
	t.Helper()
	h, err := ui.New(ui.Options{Bank: b.bank, Memories: b.mem})
	require.NoError(t, err)
	var unsafe bytes.Buffer
	require.NoError(t, goldmark.New(goldmark.WithRendererOptions(gmhtml.WithUnsafe())).Convert([]byte(hostileDoc), &unsafe))
	mux := http.NewServeMux()
	mux.Handle(ui.Prefix, h)
	// The control: the same document rendered by a careless viewer (raw
	// HTML passed through, no sanitiser, no policy), which must set the
	// markers, proving that the visit below would see them.
	mux.HandleFunc("/control", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprintf(w, "<!doctype html><html><head><title>control</title></head><body>%s</body></html>", unsafe.String())
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(func() {
		h.Close() // ends the event streams, which would keep Close waiting
		srv.Close()
	})
	b.url = srv.URL
}

func TestE2EViewerOnDisk(t *testing.T) {
	ctx := browsertest.New(t)
	dottest.Use(t) // the skill graph drawn by the real mnemobank-dot
	root := t.TempDir()
	store, err := fsstore.Open(root, nil)
	require.NoError(t, err)
	mem, err := memories.New(filestore.New(filepath.Join(root, "memories.md"), nil),
		&memories.Options{Trash: filestore.New(filepath.Join(root, "memories.trash.md"), nil)})
	require.NoError(t, err)
	b := &e2eBank{root: root, bank: memorybank.New(store, &memorybank.Options{History: history.New(nil), Language: memorybank.English}), mem: mem}
	seedE2E(t, b)
	serveE2E(t, b)

	t.Run("bank pages", func(t *testing.T) { bankPages(t, ctx, b, "") })
	t.Run("revert changes the file on disk", func(t *testing.T) { revert(t, ctx, b) })
	t.Run("a write by another process appears in the feed", func(t *testing.T) { feedFromAnotherProcess(t, ctx, b) })
	t.Run("a hostile document runs nothing", func(t *testing.T) { hostileDocument(t, ctx, b) })
	t.Run("JSON past the tree's limits is shown as text", func(t *testing.T) { jsonAsText(t, ctx, b) })
	t.Run("memories delete and restore", func(t *testing.T) { memoriesDeleteRestore(t, ctx, b) })
	t.Run("skill graph picture", func(t *testing.T) { skillGraph(t, ctx, b) })
}

// The bank pages on PostgreSQL, in a namespace of its own.
func TestE2EBankPagesOnPostgreSQL(t *testing.T) {
	dsn := os.Getenv("MNEMOBANK_PG_DSN")
	if dsn == "" {
		t.Skip("MNEMOBANK_PG_DSN is not set: no PostgreSQL to run the viewer on pgstore (bash .ci/run starts one)")
	}
	ctx := browsertest.New(t)
	ns := make([]byte, 8)
	_, _ = rand.Read(ns)
	pg, err := pgstore.Open(t.Context(), dsn, &pgstore.Options{Namespace: "ui-e2e-" + hex.EncodeToString(ns)})
	require.NoError(t, err)
	t.Cleanup(pg.Close)
	ms, err := pg.Memories("memories.md")
	require.NoError(t, err)
	trash, err := pg.Memories("memories.trash.md")
	require.NoError(t, err)
	mem, err := memories.New(ms, &memories.Options{Trash: trash})
	require.NoError(t, err)
	b := &e2eBank{bank: memorybank.New(pg, &memorybank.Options{History: history.New(nil), Language: memorybank.English}), mem: mem}
	seedE2E(t, b)
	serveE2E(t, b)
	bankPages(t, ctx, b, "pgstore-")
}

// bankPages opens the banks, a bank, both kinds of document, the
// history, a diff and a search, by following the pages' own links.
func bankPages(t *testing.T, ctx context.Context, b *e2eBank, shotPrefix string) {
	open(t, ctx, b.url+ui.Prefix, "#banks")
	banks := text(t, ctx, "#banks")
	assert.Contains(t, banks, "global")
	assert.Contains(t, banks, "feature/login")
	browsertest.Screenshot(t, ctx, shotPrefix+"banks")

	click(t, ctx, `#banks a[href*="scope=global"]`, "#documents")
	docs := text(t, ctx, "#documents")
	for _, p := range []string{"architecture.md", "decisions.json", "hostile.md"} {
		assert.Contains(t, docs, p)
	}
	browsertest.Screenshot(t, ctx, shotPrefix+"documents")

	click(t, ctx, `#documents a[href*="architecture.md"]`, "#doc-content")
	assert.Equal(t, "service", text(t, ctx, "#doc-content p strong"), "Markdown is rendered")
	assert.Contains(t, text(t, ctx, "#doc-content p"), "stores its data in SQLite")
	assert.Equal(t, 1, count(t, ctx, "#doc-content table"), "the GFM table is a table")
	assert.Equal(t, 2, count(t, ctx, `#doc-content input[type="checkbox"][disabled]`), "task list items are checkboxes")
	assert.Equal(t, []string{"none", "none"}, evalStrings(t, ctx, `[...document.querySelectorAll("#doc-content li")].filter(li => li.querySelector(":scope > input[type=checkbox]")).map(li => getComputedStyle(li).listStyleType)`),
		"a task list item shows its checkbox and no bullet")
	assert.Contains(t, text(t, ctx, "#doc-version"), "2")
	browsertest.Screenshot(t, ctx, shotPrefix+"document-markdown")

	open(t, ctx, b.url+ui.Prefix+"doc?scope=global&path=decisions.json", "#doc-content")
	assert.Equal(t, 3, count(t, ctx, "#doc-content details[open]"), "the object, its array and its nested object are open trees")
	keys, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#doc-content .json-key")].map(e => e.textContent)`))
	require.NoError(t, err)
	assert.Equal(t, []string{`"decision"`, `"why"`, `"owner"`, `"name"`, `"since"`, `"final"`, `"supersedes"`}, keys, "keys in the stored order")
	assert.Equal(t, []string{"none"}, evalStrings(t, ctx, `[...new Set([...document.querySelectorAll("#doc-content .json li")].map(li => getComputedStyle(li).listStyleType))]`),
		"the JSON tree's members have no list bullets")
	indent, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`(() => {
		const outer = document.querySelector("#doc-content .json > details > ul > li"), inner = document.querySelector("#doc-content .json ul ul > li");
		return inner.getBoundingClientRect().left - outer.getBoundingClientRect().left; })()`))
	require.NoError(t, err)
	assert.Greater(t, indent, 8.0, "a nested member is indented under its parent")
	browsertest.Screenshot(t, ctx, shotPrefix+"document-json")

	open(t, ctx, b.url+ui.Prefix+"doc?scope=global&path=architecture.md", "#history-link")
	click(t, ctx, "#history-link", "#history")
	assert.Equal(t, 2, count(t, ctx, "#history .entry"))
	assert.Contains(t, text(t, ctx, "#history"), "moved to SQLite")
	browsertest.Screenshot(t, ctx, shotPrefix+"history")

	click(t, ctx, `#history .entry[data-version="2"] .diff-link`, "#diff")
	assert.Contains(t, text(t, ctx, "#diff .del"), "PostgreSQL")
	assert.Contains(t, text(t, ctx, "#diff .add"), "SQLite")
	assert.Positive(t, count(t, ctx, "#diff .same"))
	browsertest.Screenshot(t, ctx, shotPrefix+"diff")

	open(t, ctx, b.url+ui.Prefix+"search", "#search-form")
	require.NoError(t, chromedp.Do(ctx, chromedp.SendKeys(chromedp.CSS(`#search-form input[name="q"]`), "login sessions")))
	click(t, ctx, `#search-form button[type="submit"]`, "#results")
	assert.Contains(t, text(t, ctx, "#results li.hit"), "progress.md")
	assert.Contains(t, text(t, ctx, "#results p.snippet"), "sessions")
	browsertest.Screenshot(t, ctx, shotPrefix+"search")
}

// revert goes back to version 1 through the confirmation and checks the
// file on disk and the history's actor.
func revert(t *testing.T, ctx context.Context, b *e2eBank) {
	open(t, ctx, b.url+ui.Prefix+"history?scope=global&path=architecture.md", "#history")
	click(t, ctx, `#history .entry[data-version="1"] .revert-link`, "#confirm")
	browsertest.Screenshot(t, ctx, "revert-confirm")
	file := filepath.Join(b.root, memorybank.GlobalPrefix, "architecture.md")
	before, err := os.ReadFile(file)
	require.NoError(t, err)
	require.Contains(t, string(before), "SQLite", "nothing changes before the confirmation")

	click(t, ctx, "#confirm-button", "#history")
	after, err := os.ReadFile(file)
	require.NoError(t, err)
	assert.Contains(t, string(after), "PostgreSQL", "the file on disk is version 1's text again")
	assert.NotContains(t, string(after), "SQLite")
	assert.Equal(t, 3, count(t, ctx, "#history .entry"))
	assert.Equal(t, ui.Actor, text(t, ctx, `#history .entry[data-version="3"] .actor`))

	open(t, ctx, b.url+ui.Prefix+"doc?scope=global&path=architecture.md", "#doc-content")
	assert.Contains(t, text(t, ctx, "#doc-content"), "PostgreSQL")
}

// feedFromAnotherProcess keeps a page open while another process writes
// to the same directory, and waits for the write in #feed.
func feedFromAnotherProcess(t *testing.T, ctx context.Context, b *e2eBank) {
	open(t, ctx, b.url+ui.Prefix, "#feed")
	// The stream is open once the script says so; a write before that
	// would be missed by design (the feed shows changes, not history).
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`document.getElementById("feed-status").textContent.startsWith("Listening")`,
		chromedp.WithPollingTimeout(feedBound)))
	require.NoError(t, err, "the live feed did not connect")

	exe, err := os.Executable()
	require.NoError(t, err)
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), writerEnv+"="+b.root)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the writer process: %s", out)
	require.NotEqual(t, os.Getpid(), cmd.ProcessState.Pid())

	_, err = chromedp.Run(ctx, chromedp.Poll[chromedp.Void](
		fmt.Sprintf(`document.getElementById("feed").textContent.includes(%q)`, writerPath),
		chromedp.WithPollingTimeout(feedBound)))
	require.NoError(t, err, "the other process's write did not reach #feed within %s", feedBound)
	href, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.querySelector("#feed a").getAttribute("href")`))
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(href, ui.Prefix+"doc?"), "the entry links to the document: %s", href)
	browsertest.Screenshot(t, ctx, "feed")
}

// jsonAsText opens a JSON document nested too deeply for a tree: the page
// shows its text and why, not an error.
func jsonAsText(t *testing.T, ctx context.Context, b *e2eBank) {
	depth := render.MaxJSONDepth + 1
	deep := `{"content":{"plan":` + strings.Repeat("[", depth) + `"<img src=x onerror=alert(1)>"` + strings.Repeat("]", depth) + `}}`
	_, err := b.bank.Write(t.Context(), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "deep.json", Content: []byte(deep)})
	require.NoError(t, err)
	open(t, ctx, b.url+ui.Prefix+"doc?scope=global&path=deep.json", "#doc-content")
	assert.Contains(t, text(t, ctx, "#doc-content .render-note"), "nest deeper than "+strconv.Itoa(render.MaxJSONDepth)+" levels")
	assert.Contains(t, text(t, ctx, "#doc-content pre.render-plain"), `"<img src=x onerror=alert(1)>"`, "the text, as text")
	assert.Equal(t, 0, count(t, ctx, "#doc-content img"), "and never as markup")
	browsertest.Screenshot(t, ctx, "document-json-text")
}

// hostileDocument shows the hostile document on the real page, clicks
// and hovers everything, and finds no marker; the control proves the same
// visit sees them when script runs.
func hostileDocument(t *testing.T, ctx context.Context, b *e2eBank) {
	fired, dialogs := pokeEverything(t, ctx, b.url+"/control")
	require.True(t, fired, "the control page must run the hostile document's script")
	require.NotEmpty(t, dialogs, "the control's alert is seen")

	fired, dialogs = pokeEverything(t, ctx, b.url+ui.Prefix+"doc?scope=global&path=hostile.md")
	assert.False(t, fired, "script from the document ran on the viewer's page")
	assert.Empty(t, dialogs, "the document opened a dialog")
	title, err := chromedp.Run(ctx, chromedp.Title())
	require.NoError(t, err)
	assert.NotEqual(t, "pwned", title)
	assert.Contains(t, text(t, ctx, "#doc-content"), "markdown link", "the document's text is shown")
	browsertest.Screenshot(t, ctx, "document-hostile")
}

// pokeEverything loads url, hovers every element and clicks every link
// that stays on the page, lets queued tasks run, and reports whether a
// marker was set and the dialogs opened meanwhile.
func pokeEverything(t *testing.T, ctx context.Context, url string) (bool, []string) {
	t.Helper()
	before := len(browsertest.Dialogs(ctx))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	fired, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(async () => {
		for (const el of document.querySelectorAll("main *, body > *")) {
			el.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
		}
		for (const a of document.querySelectorAll("main a, body > p > a")) {
			const href = (a.getAttribute("href") || "").trim().toLowerCase();
			if (href.startsWith("javascript:")) a.click();
		}
		for (let i = 0; i < 3; i++) {
			await new Promise(r => setTimeout(r, 0));
			await new Promise(r => requestAnimationFrame(r));
		}
		return window.__pwned === 1 || document.title === "pwned";
	})()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err, url)
	return fired, browsertest.Dialogs(ctx)[before:]
}

// memoriesDeleteRestore deletes a memory through its confirmation, finds
// it in the trash, and restores it.
func memoriesDeleteRestore(t *testing.T, ctx context.Context, b *e2eBank) {
	open(t, ctx, b.url+ui.Prefix+"memories", "#memories")
	require.Equal(t, 2, count(t, ctx, "#memories li.memory"))
	browsertest.Screenshot(t, ctx, "memories")
	all, err := b.mem.List(context.Background())
	require.NoError(t, err)
	var id string
	for _, m := range all {
		if strings.Contains(m.Content, "staging database") {
			id = m.ID
		}
	}
	require.NotEmpty(t, id)

	click(t, ctx, fmt.Sprintf(`#memories li.memory[data-id=%q] .delete-link`, id), "form.delete")
	click(t, ctx, "#confirm-button", "#trash")
	assert.Contains(t, text(t, ctx, "#trash"), "staging database")
	browsertest.Screenshot(t, ctx, "memories-trash")
	open(t, ctx, b.url+ui.Prefix+"memories", "#memories")
	assert.Equal(t, 1, count(t, ctx, "#memories li.memory"))
	assert.NotContains(t, text(t, ctx, "#memories"), "staging database")

	open(t, ctx, b.url+ui.Prefix+"memories/trash", "#trash")
	click(t, ctx, "#trash .restore-link", "form.restore")
	click(t, ctx, "#confirm-button", "#memories")
	assert.Equal(t, 2, count(t, ctx, "#memories li.memory"))
	assert.Contains(t, text(t, ctx, "#memories"), "staging database")
}

// skillGraph opens the skill page and checks that the picture loaded.
func skillGraph(t *testing.T, ctx context.Context, b *e2eBank) {
	open(t, ctx, b.url+ui.Prefix+"skills", "#skills")
	click(t, ctx, `#skills a[href*="id=release"]`, "#graph")
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](`(() => { const g = document.getElementById("graph"); return g.complete; })()`,
		chromedp.WithPollingTimeout(feedBound)))
	require.NoError(t, err)
	width, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.getElementById("graph").naturalWidth`))
	require.NoError(t, err)
	assert.Positive(t, width, "the SVG of the graph loaded as an image")
	assert.Contains(t, text(t, ctx, "#skill-md"), "Tag the release")
	browsertest.Screenshot(t, ctx, "skill")
}

// stepBound is how long one navigation or click may take before the test
// fails (a failure bound, not a speed claim): without it a missing element
// is waited for until the test binary's own timeout.
const stepBound = 20 * time.Second

// open navigates to url and waits for sel.
func open(t *testing.T, ctx context.Context, url, sel string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepBound)
	defer cancel()
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url), chromedp.WaitReady(chromedp.CSS(sel))), "open %s, wait for %s", url, sel)
	failIfErrorPage(t, ctx, url)
}

// click clicks the first element matching sel, a link or a form's button,
// and waits for the page it leads to and for next in it.
func click(t *testing.T, ctx context.Context, sel, next string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, stepBound)
	defer cancel()
	// Every click here follows a link or submits a form: wait for the new
	// page's load event, so the next query does not meet the old document
	// being replaced.
	_, err := chromedp.Run(ctx, chromedp.WaitEvent(page.LoadEventFired, nil, chromedp.Click(chromedp.CSS(sel))))
	if err == nil {
		err = chromedp.Do(ctx, chromedp.WaitReady(chromedp.CSS(next)))
	}
	if err != nil {
		page, _ := chromedp.Run(context.WithoutCancel(ctx), chromedp.Evaluate[string](`location.href + "\n" + document.body.innerText`))
		t.Fatalf("click %s, wait for %s: %v; the page is %s", sel, next, err, page)
	}
	failIfErrorPage(t, ctx, sel)
}

func failIfErrorPage(t *testing.T, ctx context.Context, where string) {
	t.Helper()
	msg, err := chromedp.Run(ctx, chromedp.Evaluate[string](`(() => { const e = document.getElementById("error"); return e ? e.textContent : ""; })()`))
	require.NoError(t, err)
	require.Empty(t, msg, "%s: the viewer answered with an error page", where)
}

func text(t *testing.T, ctx context.Context, sel string) string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[string](fmt.Sprintf(`[...document.querySelectorAll(%q)].map(e => e.textContent).join("\n")`, sel)))
	require.NoError(t, err)
	return strings.TrimSpace(s)
}

// evalStrings is the value of a script that gives a list of strings.
func evalStrings(t *testing.T, ctx context.Context, script string) []string {
	t.Helper()
	s, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](script))
	require.NoError(t, err)
	return s
}

func count(t *testing.T, ctx context.Context, sel string) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](fmt.Sprintf(`document.querySelectorAll(%q).length`, sel)))
	require.NoError(t, err)
	return n
}
