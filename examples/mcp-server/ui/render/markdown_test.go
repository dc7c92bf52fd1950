package render_test

import (
	"regexp"
	"strings"
	"testing"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/stretchr/testify/assert"
)

// hostileMarkdown are documents a model or a repository could hold, each
// trying a different way to get script into the page.
var hostileMarkdown = map[string]string{
	"script tag":             "# Notes\n\n<script>window.__pwned=1</script>\n",
	"inline script":          "hello <script>window.__pwned=1</script> world",
	"javascript link":        "[click](javascript:window.__pwned=1)",
	"javascript link spaced": "[click]( javascript:alert(1) )",
	"javascript link case":   "[click](JaVaScRiPt:alert(1))",
	"javascript entity":      "[click](&#106;avascript:alert(1))",
	"javascript tab":         "[click](java\tscript:alert(1))",
	"javascript reference":   "[click][x]\n\n[x]: javascript:alert(1)",
	"javascript autolink":    "<javascript:alert(1)>",
	"data link":              "[click](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
	"data image":             "![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)",
	"img onerror":            `<img src=x onerror="window.__pwned=1">`,
	"img onerror inline":     `text <img src=x onerror=alert(1)> text`,
	"image title quote":      `![x](http://example.com/a.png "a\" onerror=\"alert(1)")`,
	"raw html block":         "<div onclick=\"alert(1)\">\n\n*hi*\n\n</div>\n",
	"svg onload":             "<svg onload=alert(1)><circle r=5 /></svg>",
	"svg script":             "<svg><script>alert(1)</script></svg>",
	"iframe srcdoc":          `<iframe srcdoc="<script>alert(1)</script>"></iframe>`,
	"entity script":          "&lt;script&gt;alert(1)&lt;/script&gt;",
	"double escaped":         "&amp;lt;script&amp;gt;",
	"style tag":              "<style>body{background:url(javascript:alert(1))}</style>",
	"meta refresh":           `<meta http-equiv="refresh" content="0;url=javascript:alert(1)">`,
	"base href":              `<base href="javascript:alert(1)//">`,
	"form action":            `<form action="javascript:alert(1)"><button>go</button></form>`,
	"object":                 `<object data="javascript:alert(1)"></object>`,
	"html comment breakout":  "<!-- --><script>alert(1)</script> -->",
	"link in table":          "| a |\n|---|\n| [x](javascript:alert(1)) |\n",
	"code span":              "`<script>alert(1)</script>`",
	"fenced code":            "```html\n<script>alert(1)</script>\n```\n",
	"math":                   "<math><mi xlink:href=\"javascript:alert(1)\">x</mi></math>",
	"vbscript":               "[x](vbscript:msgbox(1))",
}

func TestMarkdownHostileDocumentsRenderNothingExecutable(t *testing.T) {
	for name, src := range hostileMarkdown {
		t.Run(name, func(t *testing.T) {
			out := string(render.Markdown([]byte(src)))
			assert.Empty(t, executableMarkup(out), "rendered:\n%s", out)
		})
	}
}

func TestMarkdownShowsScriptTextInCodeEscaped(t *testing.T) {
	out := string(render.Markdown([]byte("`<script>alert(1)</script>`")))
	assert.Contains(t, out, "&lt;script&gt;alert(1)&lt;/script&gt;", "code keeps the text, escaped")
}

func TestMarkdownRendersGFM(t *testing.T) {
	src := "# Title\n\n| a | b |\n|---|---|\n| 1 | 2 |\n\n~~old~~\n\n- [x] done\n- [ ] todo\n\nsee https://example.com/page\n"
	out := string(render.Markdown([]byte(src)))
	assert.Contains(t, out, "<h1")
	assert.Contains(t, out, "<table>")
	assert.Contains(t, out, "<del>old</del>")
	assert.Regexp(t, `<input[^>]*checked[^>]*type="checkbox"|<input[^>]*type="checkbox"[^>]*checked`, out, "a done task keeps its checkbox")
	assert.Regexp(t, `<a href="https://example.com/page"`, out, "bare URLs become links")
}

func TestMarkdownLinksAreNofollowNoopenerNoreferrer(t *testing.T) {
	out := string(render.Markdown([]byte("[x](https://example.com/)")))
	rel := regexp.MustCompile(`rel="([^"]*)"`).FindStringSubmatch(out)
	if assert.Len(t, rel, 2, "the link has a rel attribute: %s", out) {
		for _, want := range []string{"nofollow", "noopener", "noreferrer"} {
			assert.Contains(t, strings.Fields(rel[1]), want)
		}
	}
	assert.Contains(t, out, `target="_blank"`)
}

func TestMarkdownAboveTheLimitIsEscapedPlainText(t *testing.T) {
	src := strings.Repeat("<script>alert(1)</script>\n", render.MaxMarkdownBytes/20)
	out := string(render.Markdown([]byte(src)))
	assert.Contains(t, out, `<pre class="render-plain">`)
	assert.Contains(t, out, "above the 262144-byte limit")
	assert.NotContains(t, out, "<script")
	assert.Contains(t, out, "&lt;script&gt;alert(1)")
}

func FuzzMarkdown(f *testing.F) {
	for _, src := range hostileMarkdown {
		f.Add(src)
	}
	f.Add("# t\n\n| a |\n|---|\n| b |\n- [x] y\n")
	f.Fuzz(func(t *testing.T, src string) {
		out := string(render.Markdown([]byte(src)))
		if strings.Contains(strings.ToLower(out), "<script") {
			t.Fatalf("a <script tag from %q:\n%s", src, out)
		}
		if bad := executableMarkup(out); bad != "" {
			t.Fatalf("%s from %q:\n%s", bad, src, out)
		}
	})
}
