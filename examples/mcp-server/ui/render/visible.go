package render

import (
	"fmt"
	"html/template"
	"strings"

	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/renderer"
	"github.com/yuin/goldmark/renderer/html"
	"github.com/yuin/goldmark/util"

	"github.com/mnemobank/mnemobank/screen"
)

// Nothing an agent reads is hidden from the person: the viewer shows every
// character of a document. Raw HTML and HTML comments are shown as escaped
// text in a box saying so (never dropped as goldmark's default does, never
// run), so an unclosed <!--, <pre>, <script>, <style> or <textarea> shows
// what follows it as text instead of swallowing it; link targets are
// written after the link text (not only on hover); images are not loaded
// (a remote image can carry data away in its address) but shown as their
// text and address; and characters a browser would not show (zero-width,
// Unicode tag characters, bidirectional controls, as screen.Invisible
// defines them) are replaced by a visible mark ⟦U+XXXX⟧, with a note above
// the text.

// MarkInvisible returns s with every invisible character replaced by the
// text ⟦U+XXXX⟧, and how many there were. s is returned as is when it has
// none.
func MarkInvisible(s string) (string, int) {
	n := 0
	for _, r := range s {
		if screen.Invisible(r) {
			n++
		}
	}
	if n == 0 {
		return s, 0
	}
	var b strings.Builder
	b.Grow(len(s) + n*10)
	for _, r := range s {
		if screen.Invisible(r) {
			fmt.Fprintf(&b, "⟦%U⟧", r)
			continue
		}
		b.WriteRune(r)
	}
	return b.String(), n
}

// VisibleText is s escaped for HTML with each invisible character shown as
// a mark ⟦U+XXXX⟧ whose title names it, for the viewer's templates (titles,
// memories, snippets, tags, history notes).
func VisibleText(s string) template.HTML {
	var b strings.Builder
	last := 0
	for i, r := range s {
		if !screen.Invisible(r) {
			continue
		}
		b.WriteString(template.HTMLEscapeString(s[last:i]))
		fmt.Fprintf(&b, `<span class="invisible-mark" title="%U %s: invisible to you, read by the agent">⟦%U⟧</span>`,
			r, template.HTMLEscapeString(screen.InvisibleName(r)), r)
		last = i + len(string(r))
	}
	b.WriteString(template.HTMLEscapeString(s[last:]))
	return template.HTML(b.String()) //nolint:gosec // escaped above
}

// InvisibleNote is the note above a text holding n invisible characters
// ("" when n is 0).
func InvisibleNote(n int) template.HTML {
	if n == 0 {
		return ""
	}
	return template.HTML(fmt.Sprintf(`<p class="render-note invisible-note">This text holds %d invisible or reordering character(s) (zero-width, Unicode tag or bidirectional control characters). Each is shown as ⟦U+XXXX⟧ where it is: a browser would not show it, but an agent reads it.</p>`+"\n", n))
}

// visibleHTML renders raw HTML, links and images of a Markdown document so
// that the person sees what the agent reads.
type visibleHTML struct{}

func (visibleHTML) RegisterFuncs(reg renderer.NodeRendererFuncRegisterer) {
	reg.Register(ast.KindHTMLBlock, renderHTMLBlock)
	reg.Register(ast.KindRawHTML, renderRawHTML)
	reg.Register(ast.KindLink, renderLink)
	reg.Register(ast.KindImage, renderImage)
}

func renderHTMLBlock(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.HTMLBlock)
	if !entering {
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`<div class="raw-html"><p class="raw-html-label">HTML in the document, shown as text (not rendered):</p><pre>`)
	lines := n.Lines()
	for i := range lines.Len() {
		seg := lines.At(i)
		template.HTMLEscape(w, seg.Value(source))
	}
	if n.HasClosure() {
		template.HTMLEscape(w, n.ClosureLine.Value(source))
	}
	_, _ = w.WriteString("</pre></div>\n")
	return ast.WalkSkipChildren, nil
}

func renderRawHTML(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	if !entering {
		return ast.WalkSkipChildren, nil
	}
	n := node.(*ast.RawHTML)
	_, _ = w.WriteString(`<code class="raw-html" title="HTML in the document, shown as text">`)
	for i := range n.Segments.Len() {
		seg := n.Segments.At(i)
		template.HTMLEscape(w, seg.Value(source))
	}
	_, _ = w.WriteString(`</code>`)
	return ast.WalkSkipChildren, nil
}

func renderLink(w util.BufWriter, _ []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Link)
	dest := util.URLEscape(n.Destination, true)
	if entering {
		_, _ = w.WriteString(`<a href="`)
		if !html.IsDangerousURL(dest) {
			_, _ = w.Write(util.EscapeHTML(dest))
		}
		_, _ = w.WriteString(`">`)
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`</a>`)
	writeTarget(w, n.Destination, n.Title)
	return ast.WalkContinue, nil
}

func renderImage(w util.BufWriter, source []byte, node ast.Node, entering bool) (ast.WalkStatus, error) {
	n := node.(*ast.Image)
	if entering {
		_, _ = w.WriteString(`<span class="image-ref" title="an image, not loaded">[image: `)
		return ast.WalkContinue, nil
	}
	_, _ = w.WriteString(`]</span>`)
	writeTarget(w, n.Destination, n.Title)
	return ast.WalkContinue, nil
}

// writeTarget writes a link's or image's address and title as text.
func writeTarget(w util.BufWriter, dest, title []byte) {
	_, _ = w.WriteString(` <span class="link-target">(`)
	template.HTMLEscape(w, dest)
	if len(title) > 0 {
		_, _ = w.WriteString(` “`)
		template.HTMLEscape(w, title)
		_, _ = w.WriteString(`”`)
	}
	_, _ = w.WriteString(`)</span>`)
}

// visibleRenderer is the renderer option that installs visibleHTML over
// goldmark's own renderers of the same nodes.
func visibleRenderer() renderer.Option {
	return renderer.WithNodeRenderers(util.Prioritized(visibleHTML{}, 100))
}

// markSource marks the invisible characters of a Markdown source.
func markSource(src []byte) ([]byte, int) {
	s, n := MarkInvisible(string(src))
	if n == 0 {
		return src, 0
	}
	return []byte(s), n
}
