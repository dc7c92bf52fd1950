package render

import (
	"bytes"
	"context"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing/fstest"

	"github.com/goccy/go-graphviz"
)

// Limits for GraphSVG: the DOT text's size and the graph's node count,
// both checked before layout, the expensive step.
const (
	MaxDOTBytes   = 256 << 10
	MaxGraphNodes = 1000
)

// Graphviz runs as a WebAssembly module inside one wazero runtime per
// process, and that module is not safe for concurrent use: one instance is
// made on first use and every call goes through gvSem, a one-slot
// semaphore rather than a sync.Mutex so that waiting for it honours ctx.
var (
	gvOnce sync.Once
	gv     *graphviz.Graphviz
	gvErr  error
	gvSem  = make(chan struct{}, 1)
)

func graphvizInstance() (*graphviz.Graphviz, error) {
	gvOnce.Do(func() {
		// The module's file system would otherwise be the host's: a DOT
		// node with image="/some/file" or an HTML label's <IMG SRC> makes
		// Graphviz open that path. An empty file system makes every such
		// open fail, so a graph cannot read or probe the viewer's files.
		graphviz.SetFileSystem(fstest.MapFS{})
		gv, gvErr = graphviz.New(context.Background())
	})
	return gv, gvErr
}

// GraphSVG lays out a Graphviz DOT graph (as skillgraph.DOT writes it) and
// returns it as SVG.
//
// Errors: *LimitError (ErrTooLarge) above MaxDOTBytes or MaxGraphNodes,
// *SyntaxError (ErrSyntax) for DOT Graphviz cannot read (with the offset
// of a string or comment never closed, which is refused before Graphviz
// sees it, since it would leave Graphviz's parser unable to read any later
// graph of the process), ctx's error when
// ctx ends while waiting for the renderer or between its steps (a layout
// already running finishes first: the WebAssembly call cannot be
// interrupted).
//
// Script in the picture is stopped in three layers: this function strips
// <script> and every element Graphviz does not write, on* attributes, and
// links other than http, https, mailto and #fragments, and writes no
// comments, DOCTYPE or processing instructions; the page embeds the result
// with <img>, which never runs script in an SVG; and the SVG is served with
// a Content-Security-Policy of default-src 'none'.
func GraphSVG(ctx context.Context, dot []byte) ([]byte, error) {
	if len(dot) > MaxDOTBytes {
		return nil, &LimitError{What: "DOT graph bytes", Limit: MaxDOTBytes, Got: int64(len(dot)), Err: ErrTooLarge}
	}
	if err := checkDOTTokens(dot); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	select {
	case gvSem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-gvSem }()
	g, err := graphvizInstance()
	if err != nil {
		return nil, fmt.Errorf("render: starting Graphviz: %w", err)
	}
	if gvBroken != nil {
		return nil, gvBroken
	}
	graph, err := graphviz.ParseBytes(dot)
	if err != nil || graph == nil {
		msg := "Graphviz could not read the graph"
		if err != nil {
			msg = strings.TrimSpace(err.Error())
		}
		checkParser()
		return nil, &SyntaxError{Format: "DOT", Offset: -1, Msg: msg}
	}
	defer graph.Close()
	n, err := countNodes(graph, MaxGraphNodes+1)
	if err != nil {
		return nil, fmt.Errorf("render: counting the graph's nodes: %w", err)
	}
	if n > MaxGraphNodes {
		return nil, &LimitError{What: "DOT graph nodes", Limit: MaxGraphNodes, Got: int64(n), Err: ErrTooLarge}
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var raw bytes.Buffer
	if err := g.Render(ctx, graph, graphviz.SVG, &raw); err != nil {
		return nil, fmt.Errorf("render: Graphviz layout: %w", err)
	}
	return sanitizeSVG(raw.Bytes())
}

// gvBroken, once set, is the error of every later GraphSVG: Graphviz's
// parser no longer reads a known-good graph. Guarded by gvSem.
var gvBroken error

// checkParser runs after a failed parse: the parser's state outlives a
// call (checkDOTTokens keeps out the input known to break it), so it is
// checked on a known-good graph, and if that fails, inputs that close each
// lexer state are fed to it before checking again. The caller holds gvSem.
func checkParser() {
	for _, reset := range []string{"", `"`, "*/", strings.Repeat(">", 64)} {
		if reset != "" {
			if g, err := graphviz.ParseBytes([]byte(reset)); err == nil && g != nil {
				_ = g.Close()
			}
		}
		g, err := graphviz.ParseBytes([]byte("digraph{}"))
		if err == nil && g != nil {
			_ = g.Close()
			return
		}
	}
	gvBroken = errors.New("render: Graphviz's parser no longer reads a valid graph after an earlier input; restart the server to draw graphs again")
}

// countNodes counts the graph's nodes, stopping at stop.
func countNodes(g *graphviz.Graph, stop int) (int, error) {
	n := 0
	node, err := g.FirstNode()
	for ; err == nil && node != nil && n < stop; node, err = g.NextNode(node) {
		n++
	}
	return n, err
}

// svgElements are the elements Graphviz's SVG renderer writes; anything
// else (script, foreignObject, animate, set, use, iframe ...) is dropped
// with everything inside it.
var svgElements = map[string]bool{
	"svg": true, "g": true, "title": true, "desc": true, "a": true,
	"polygon": true, "polyline": true, "path": true, "ellipse": true,
	"circle": true, "rect": true, "line": true, "text": true, "tspan": true,
	"image": true, "defs": true, "linearGradient": true,
	"radialGradient": true, "stop": true,
}

// sanitizeSVG re-writes SVG keeping only svgElements, without on*
// attributes, unsafe link targets, comments, directives or processing
// instructions. It reads raw tokens so that namespace prefixes
// (xlink:href) are written back as they were.
func sanitizeSVG(src []byte) ([]byte, error) {
	d := xml.NewDecoder(bytes.NewReader(src))
	d.Strict = true
	var out bytes.Buffer
	out.Grow(len(src))
	out.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="no"?>` + "\n")
	var open []xml.Name // every element not yet closed: RawToken does not match tags
	skip := 0           // depth inside a dropped element
	depth := 0          // depth inside kept elements
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("render: reading Graphviz's SVG: %w", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			open = append(open, t.Name)
			if skip > 0 || !svgElements[t.Name.Local] || t.Name.Space != "" {
				skip++
				continue
			}
			depth++
			out.WriteString("<" + t.Name.Local)
			for _, a := range t.Attr {
				if !safeSVGAttr(a) {
					continue
				}
				out.WriteString(" " + qname(a.Name) + `="`)
				_, _ = svgAttrEscaper.WriteString(&out, a.Value)
				out.WriteString(`"`)
			}
			out.WriteString(">")
		case xml.EndElement:
			if len(open) == 0 || open[len(open)-1] != t.Name {
				return nil, fmt.Errorf("render: Graphviz's SVG closes <%s> out of order", qname(t.Name))
			}
			open = open[:len(open)-1]
			if skip > 0 {
				skip--
				continue
			}
			depth--
			out.WriteString("</" + t.Name.Local + ">")
		case xml.CharData:
			if skip == 0 && depth > 0 {
				_, _ = svgTextEscaper.WriteString(&out, string(t))
			}
		}
	}
	if len(open) != 0 {
		return nil, errors.New("render: Graphviz's SVG ended inside an element")
	}
	return out.Bytes(), nil
}

var (
	svgTextEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", "\r", "&#13;")
	svgAttrEscaper = strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;", `"`, "&quot;",
		"\n", "&#10;", "\r", "&#13;", "\t", "&#9;")
)

func qname(n xml.Name) string {
	if n.Space == "" {
		return n.Local
	}
	return n.Space + ":" + n.Local
}

func safeSVGAttr(a xml.Attr) bool {
	name := strings.ToLower(a.Name.Local)
	if strings.HasPrefix(name, "on") {
		return false
	}
	switch name {
	case "href", "src", "action", "formaction", "from", "to", "values", "by", "attributename":
		return safeURL(a.Value)
	case "style":
		v := strings.ToLower(a.Value)
		return !strings.Contains(v, "url(") && !strings.Contains(v, "expression") && !strings.Contains(v, "javascript")
	}
	return true
}

// safeURL accepts fragment links and absolute http, https and mailto URLs.
// Browsers ignore ASCII whitespace and control characters inside a scheme
// ("java\tscript:"), so those are removed before looking.
func safeURL(v string) bool {
	clean := strings.Map(func(r rune) rune {
		if r <= ' ' || r == 0x7f {
			return -1
		}
		return r
	}, strings.ToLower(v))
	if strings.HasPrefix(clean, "#") {
		return true
	}
	for _, p := range []string{"http://", "https://", "mailto:"} {
		if strings.HasPrefix(clean, p) {
			return true
		}
	}
	return false
}
