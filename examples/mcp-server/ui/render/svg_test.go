package render_test

import (
	"bytes"
	"encoding/xml"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
)

// Graphviz does not write script, but the sanitiser must not rely on that:
// these are SVGs a different renderer, or a bug, could produce.
func TestSanitizeSVGRemovesEverythingThatRuns(t *testing.T) {
	hostile := `<?xml version="1.0"?>
<?xml-stylesheet href="javascript:alert(0)"?>
<!DOCTYPE svg [<!ENTITY x "boom">]>
<!-- a comment -->
<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" onload="alert(1)" OnClick="alert(2)">
<script>alert(3)</script>
<script xlink:href="https://evil.example/x.js"/>
<foreignObject><body xmlns="http://www.w3.org/1999/xhtml"><img src="x" onerror="alert(4)"/></body></foreignObject>
<a xlink:href="javascript:alert(5)"><text>a</text></a>
<a href=" java&#9;script:alert(6)"><text>b</text></a>
<a href="data:text/html,x"><text>c</text></a>
<a xlink:href="https://example.com/ok"><text>d &lt;b&gt;</text></a>
<a href="#node1"><text>e</text></a>
<g style="background:url(javascript:alert(7))"><animate attributeName="href" to="javascript:alert(8)"/><set attributeName="onmouseover" to="alert(9)"/></g>
<use href="#x"/><handler>alert(10)</handler><svg:script xmlns:svg="http://www.w3.org/2000/svg">alert(11)</svg:script>
</svg>`
	out, err := render.SanitizeSVG([]byte(hostile))
	require.NoError(t, err)
	s := strings.ToLower(string(out))
	for _, bad := range []string{"<script", "script:", "alert(", "onload", "onclick", "onerror", "foreignobject", "<animate", "<set", "<use", "<handler", "data:", "<!", "stylesheet", "url("} {
		assert.NotContains(t, s, bad)
	}
	assert.Contains(t, s, `xlink:href="https://example.com/ok"`, "a safe link stays, with its prefix")
	assert.Contains(t, s, `href="#node1"`)
	assert.Contains(t, s, "d &lt;b&gt;", "text stays escaped")
}

func TestSanitizeSVGRefusesWhatIsNotOneSVGDocument(t *testing.T) {
	for _, src := range []string{
		`<svg><g></svg>`,
		`<svg><g>`,
		``,
		`just text`,
		`<html><body onload="alert(1)"></body></html>`,
		`<svg></svg><svg></svg>`,
		`<x:svg xmlns:x="http://www.w3.org/2000/svg"></x:svg>`,
	} {
		_, err := render.SanitizeSVG([]byte(src))
		assert.ErrorIs(t, err, render.ErrSyntax, "%q", src)
		var se *render.SyntaxError
		if assert.ErrorAs(t, err, &se, "%q", src) {
			assert.Equal(t, "SVG", se.Format)
		}
	}
}

func TestSanitizeSVGRefusesOversizedInput(t *testing.T) {
	big := []byte("<svg>" + strings.Repeat(" ", render.MaxSVGBytes) + "</svg>")
	_, err := render.SanitizeSVG(big)
	assert.ErrorIs(t, err, render.ErrTooLarge)
	assert.ErrorContains(t, err, "SVG bytes")
}

// Whatever a renderer program writes, SanitizeSVG either refuses it with
// ErrSyntax or ErrTooLarge, or returns one well-formed <svg> document with
// no element outside Graphviz's, no handler and no link but http(s),
// mailto and fragments. Never a panic.
func FuzzSanitizeSVG(f *testing.F) {
	for _, s := range []string{
		`<svg xmlns="http://www.w3.org/2000/svg"><g class="node"><title>a</title><text>a</text></g></svg>`,
		`<svg onload="alert(1)"><script>alert(2)</script><a xlink:href="javascript:x" xmlns:xlink="http://www.w3.org/1999/xlink"><text>t</text></a></svg>`,
		`<?xml version="1.0"?><!DOCTYPE svg [<!ENTITY x "y">]><svg><foreignObject><img onerror="x"/></foreignObject></svg>`,
		`<svg><g style="fill:url(javascript:x)"><a href=" java&#9;script:x"/></g></svg>`,
		`<svg><g></svg>`, ``, `<html/>`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		out, err := render.SanitizeSVG(src)
		if err != nil {
			if !errors.Is(err, render.ErrSyntax) && !errors.Is(err, render.ErrTooLarge) {
				t.Fatalf("error of no kind: %v", err)
			}
			return
		}
		d := xml.NewDecoder(bytes.NewReader(out))
		d.Strict = true
		root := 0
		depth := 0
		for {
			tok, err := d.RawToken()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("output is not well-formed: %v\n%s", err, out)
			}
			switch e := tok.(type) {
			case xml.StartElement:
				if depth == 0 {
					root++
					if e.Name.Local != "svg" {
						t.Fatalf("root <%s>", e.Name.Local)
					}
				}
				depth++
				if e.Name.Local == "script" || e.Name.Local == "foreignObject" || e.Name.Space != "" {
					t.Fatalf("element <%s:%s> kept", e.Name.Space, e.Name.Local)
				}
				for _, a := range e.Attr {
					name := strings.ToLower(a.Name.Local)
					if strings.HasPrefix(name, "on") {
						t.Fatalf("handler %s kept", a.Name.Local)
					}
					if name == "href" || name == "src" {
						v := strings.ToLower(strings.TrimSpace(a.Value))
						if !strings.HasPrefix(v, "#") && !strings.HasPrefix(v, "http://") && !strings.HasPrefix(v, "https://") && !strings.HasPrefix(v, "mailto:") {
							t.Fatalf("link %q kept", a.Value)
						}
					}
				}
			case xml.EndElement:
				depth--
			case xml.Comment, xml.Directive:
				t.Fatalf("%T kept", tok)
			case xml.ProcInst:
				if e.Target != "xml" {
					t.Fatalf("processing instruction %s kept", e.Target)
				}
			}
		}
		if root != 1 {
			t.Fatalf("%d root elements", root)
		}
	})
}
