package render_test

import (
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
