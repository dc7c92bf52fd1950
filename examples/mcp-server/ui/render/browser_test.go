package render_test

import (
	"bytes"
	"context"
	"fmt"
	"html/template"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/internal/browsertest"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	gmhtml "github.com/yuin/goldmark/renderer/html"
)

// pwnedDoc is one Markdown document holding many ways to run script. Each
// calls top.pwn with its own name, so the test can tell which ran. Some run
// on load, some on a click or a hover (the test clicks and hovers
// everything).
const pwnedDoc = "# Hostile\n\n" +
	"<script>top.pwn('script')</script>\n\n" +
	"<img src=\"/missing.png\" onerror=\"top.pwn('img-onerror')\">\n\n" +
	"<svg onload=\"top.pwn('svg-onload')\"><circle r=\"5\"/></svg>\n\n" +
	"<details open ontoggle=\"top.pwn('details-ontoggle')\"><summary>s</summary>x</details>\n\n" +
	"<iframe srcdoc=\"<script>top.pwn('iframe-srcdoc')</script>\"></iframe>\n\n" +
	"<p><b onmouseover=\"top.pwn('mouseover')\">hover me</b></p>\n\n" +
	"<a id=\"raw-js\" href=\"javascript:top.pwn('raw-js-link')\">raw link</a>\n\n" +
	"<a href=\"&#106;avascript:top.pwn('entity-link')\">entity link</a>\n\n" +
	"[markdown link](javascript:top.pwn('md-js-link'))\n\n" +
	"[reference link][r]\n\n[r]: javascript:top.pwn('ref-js-link')\n\n" +
	"text <img src=x onerror=\"top.pwn('inline-onerror')\"> text\n"

// hostileJSON is a JSON document whose keys and strings are markup.
const hostileJSON = `{"<img src=x onerror=top.pwn('json-key')>": "<script>top.pwn('json-string')</script>", "list": ["<svg onload=top.pwn('json-item')>"]}`

// The viewer's page policy (package ui): script only from the server's own
// files. The end-to-end tests check the real pages; this one checks render
// under the same policy and without any.
const testCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"

// pwnJS is the detector: the one script every page may load. It records
// what called it, and sets the title, which the test reads.
const pwnJS = `window.__pwned = []; window.pwn = function (n) { window.__pwned.push(n); document.title = "pwned " + n; };`

func page(body template.HTML) []byte {
	var b bytes.Buffer
	b.WriteString(`<!doctype html><html><head><meta charset="utf-8"><title>clean</title><script src="/pwn.js"></script></head><body>`)
	b.WriteString(string(body))
	b.WriteString(`</body></html>`)
	return b.Bytes()
}

func TestBrowserHostileDocumentRunsNothing(t *testing.T) {
	ctx := browsertest.New(t)

	// The control renders the same document the way a careless viewer
	// would: goldmark passing raw HTML through, no sanitiser.
	var unsafe bytes.Buffer
	require.NoError(t, goldmark.New(goldmark.WithExtensions(extension.GFM),
		goldmark.WithRendererOptions(gmhtml.WithUnsafe())).Convert([]byte(pwnedDoc), &unsafe))
	jsonHTML, err := render.JSON([]byte(hostileJSON))
	require.NoError(t, err)
	rendered := render.Markdown([]byte(pwnedDoc)) + jsonHTML

	pages := map[string][]byte{
		"/control":     page(template.HTML(unsafe.String())),
		"/control-csp": page(`<script src="/control.js"></script><p>control</p>`),
		"/rendered":    page(rendered),
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/pwn.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, pwnJS)
	})
	mux.HandleFunc("/control.js", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/javascript")
		fmt.Fprint(w, `pwn('allowed-script'); alert('allowed-alert');`)
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		body, ok := pages[strings.TrimSuffix(r.URL.Path, "-with-csp")]
		if !ok {
			http.NotFound(w, r)
			return
		}
		if strings.HasSuffix(r.URL.Path, "-csp") {
			w.Header().Set("Content-Security-Policy", testCSP)
		}
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		_, _ = w.Write(body)
	})
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)

	// The control without CSP proves the document is really hostile and
	// the procedure sees what runs: on load, on click, on hover.
	fired, dialogs := visit(t, ctx, srv.URL+"/control")
	for _, want := range []string{"script", "img-onerror", "svg-onload", "details-ontoggle", "iframe-srcdoc", "mouseover", "raw-js-link", "entity-link", "md-js-link", "ref-js-link", "inline-onerror"} {
		assert.Contains(t, fired, want, "the unsanitised control runs %s", want)
	}
	assert.Empty(t, dialogs)

	// The control with CSP proves an allowed script is seen, title and
	// dialog included, under the policy the real pages use.
	fired, dialogs = visit(t, ctx, srv.URL+"/control-csp")
	assert.Equal(t, []string{"allowed-script"}, fired)
	assert.Equal(t, []string{"alert: allowed-alert"}, dialogs)

	// The rendered document runs nothing, with the policy and without it
	// (render alone must be enough).
	for _, path := range []string{"/rendered", "/rendered-with-csp"} {
		fired, dialogs = visit(t, ctx, srv.URL+path)
		assert.Empty(t, fired, "%s: script ran", path)
		assert.Empty(t, dialogs, "%s: a dialog opened", path)
		title, err := chromedp.Run(ctx, chromedp.Title())
		require.NoError(t, err)
		assert.Equal(t, "clean", title, path)
		if path == "/rendered" {
			browsertest.Screenshot(t, ctx, "render-hostile-document")
		}
	}
}

// visit loads url, clicks every link that does not leave the page and
// hovers every element, lets pending tasks run, and returns the names
// pwn recorded and the dialogs the tab opened during the visit.
func visit(t *testing.T, ctx context.Context, url string) (fired, dialogs []string) {
	t.Helper()
	before := len(browsertest.Dialogs(ctx))
	require.NoError(t, chromedp.Do(ctx, chromedp.Navigate(url)))
	// Evaluated through DevTools, which the page's policy does not limit.
	// The last await lets timers and events queued by the clicks run
	// (javascript: URLs run in a task after the click) before reading.
	got, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`(async () => {
		for (const el of document.querySelectorAll("body *")) {
			el.dispatchEvent(new MouseEvent("mouseover", {bubbles: true}));
		}
		for (const a of document.querySelectorAll("a")) {
			const href = (a.getAttribute("href") || "").trim().toLowerCase();
			if (!href.startsWith("http")) a.click();
		}
		for (let i = 0; i < 3; i++) {
			await new Promise(r => setTimeout(r, 0));
			await new Promise(r => requestAnimationFrame(r));
		}
		return window.__pwned || ["detector missing"];
	})()`, chromedp.EvalAwaitPromise))
	require.NoError(t, err, url)
	slices.Sort(got)
	return got, browsertest.Dialogs(ctx)[before:]
}
