package render

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strings"
)

// MaxSVGBytes is the largest SVG SanitizeSVG reads, and the most GraphSVG
// reads from its renderer program.
const MaxSVGBytes = 4 << 20

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

// SanitizeSVG re-writes an SVG document keeping only the elements Graphviz
// writes (svg, g, title, a, polygon, path, ellipse, text ...), without on*
// attributes, link targets other than http, https, mailto and #fragments,
// style with url() or script, comments, DOCTYPE, directives or processing
// instructions. It reads raw tokens so that namespace prefixes
// (xlink:href) are written back as they were.
//
// Errors: *LimitError (ErrTooLarge) above MaxSVGBytes; *SyntaxError
// (ErrSyntax) when src is not well-formed XML or its root is not <svg>.
func SanitizeSVG(src []byte) ([]byte, error) {
	if len(src) > MaxSVGBytes {
		return nil, &LimitError{What: "SVG bytes", Limit: MaxSVGBytes, Got: int64(len(src)), Err: ErrTooLarge}
	}
	d := xml.NewDecoder(bytes.NewReader(src))
	d.Strict = true
	var out bytes.Buffer
	out.Grow(len(src))
	out.WriteString(`<?xml version="1.0" encoding="UTF-8" standalone="no"?>` + "\n")
	var open []xml.Name // every element not yet closed: RawToken does not match tags
	skip := 0           // depth inside a dropped element
	depth := 0          // depth inside kept elements
	sawRoot := false
	for {
		tok, err := d.RawToken()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, &SyntaxError{Format: "SVG", Offset: d.InputOffset(), Msg: err.Error()}
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(open) == 0 && (t.Name.Local != "svg" || t.Name.Space != "" || sawRoot) {
				return nil, &SyntaxError{Format: "SVG", Offset: d.InputOffset(), Msg: fmt.Sprintf("the document element is <%s>, not one <svg>", qname(t.Name))}
			}
			sawRoot = true
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
				return nil, &SyntaxError{Format: "SVG", Offset: d.InputOffset(), Msg: fmt.Sprintf("</%s> closes an element out of order", qname(t.Name))}
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
	if len(open) != 0 || !sawRoot {
		return nil, &SyntaxError{Format: "SVG", Offset: d.InputOffset(), Msg: "the document ends before its <svg> element does"}
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
