package render

import (
	"bytes"
	"fmt"
	"html"
	"html/template"
	"regexp"
	"sync"

	"github.com/microcosm-cc/bluemonday"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
)

// MaxMarkdownBytes is the largest document Markdown renders as HTML; a
// larger one is shown as escaped plain text. Parsing and sanitising
// allocate about 100 times the input (BenchmarkMarkdown: 1.1 MB for 10 KiB,
// 110 MB for 1 MiB), so the limit keeps one page of a big document to
// about 27 MB; memory documents are rarely above a few tens of KiB.
const MaxMarkdownBytes = 256 << 10

// The renderer never passes raw HTML through: a document's own tags and
// comments are shown as escaped text (visible.go), never markup, never
// dropped. bluemonday then removes anything goldmark itself might emit
// that could run, such as a javascript: link target; two layers, so a bug in
// either one alone does not open a hole. Both are made on first use, not
// at start: the MCP server links this package and most of its runs never
// show a page.
var (
	markdown = sync.OnceValue(func() goldmark.Markdown {
		return goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(visibleRenderer()))
	})
	ugc = sync.OnceValue(newUGCPolicy)
)

func newUGCPolicy() *bluemonday.Policy {
	p := bluemonday.UGCPolicy()
	// Links a model wrote are not endorsed (nofollow), leak nothing about the
	// viewer (noreferrer), and absolute ones open in a new tab that cannot
	// reach back into this page (target=_blank adds noopener).
	p.RequireNoFollowOnLinks(true)
	p.RequireNoReferrerOnLinks(true)
	p.AddTargetBlankToFullyQualifiedLinks(true)
	// GFM task lists: goldmark writes disabled checkboxes. Nothing else of a
	// form is allowed.
	p.AllowAttrs("type").Matching(regexp.MustCompile(`^checkbox$`)).OnElements("input")
	p.AllowAttrs("checked", "disabled").Matching(regexp.MustCompile(`^$`)).OnElements("input")
	// The boxes that show raw HTML, link targets and invisible characters.
	p.AllowAttrs("class").Matching(regexp.MustCompile(`^(raw-html|raw-html-label|link-target|image-ref|render-note invisible-note)$`)).OnElements("div", "p", "code", "span")
	return p
}

// Markdown renders a Markdown document (CommonMark with GitHub's tables,
// strikethrough, task lists and autolinks) as sanitised HTML. Raw HTML in
// the document is shown as escaped text; invisible characters as marks,
// with a note; link and image addresses are written out (images are not
// loaded); links get rel="nofollow noreferrer" (and
// target="_blank" with noopener when absolute); only http, https and mailto
// link targets survive. A document above MaxMarkdownBytes is shown escaped
// in a <pre> after a note saying why.
func Markdown(src []byte) template.HTML {
	if len(src) > MaxMarkdownBytes {
		return PlainText(src, fmt.Sprintf("This document is %d bytes, above the %d-byte limit for rendering Markdown; it is shown as plain text.", len(src), MaxMarkdownBytes))
	}
	src, hidden := markSource(src)
	var buf bytes.Buffer
	buf.WriteString(string(InvisibleNote(hidden)))
	if err := markdown().Convert(src, &buf); err != nil {
		// goldmark fails only when its writer fails, which a bytes.Buffer
		// does not; show the text rather than nothing all the same.
		return PlainText(src, "This document could not be rendered as Markdown ("+err.Error()+"); it is shown as plain text.")
	}
	return template.HTML(ugc().SanitizeBytes(buf.Bytes())) //nolint:gosec // sanitised just above
}

// PlainText shows src as escaped text in a <pre class="render-plain">,
// after a <p class="render-note"> saying note (escaped too): how a
// document is shown when it cannot be rendered. Its cost and its output
// are linear in src (at most 5 bytes of output a byte), whatever src holds.
func PlainText(src []byte, note string) template.HTML {
	var b bytes.Buffer
	b.Grow(len(src) + len(note) + 64)
	b.WriteString(`<p class="render-note">`)
	b.WriteString(html.EscapeString(note))
	b.WriteString("</p>\n")
	marked, hidden := markSource(src)
	b.WriteString(string(InvisibleNote(hidden)))
	b.WriteString("<pre class=\"render-plain\">")
	template.HTMLEscape(&b, marked)
	b.WriteString("</pre>\n")
	return template.HTML(b.String())
}
