package ui_test

import (
	"net/http"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
	"github.com/mnemobank/mnemobank/memorybank"
)

// A JSON document render.JSON refuses (too deep, too large) is still shown
// on its page: its text escaped in a <pre>, after a note saying why it is
// not a tree. An error page would hide a document the bank accepted.
func TestJSONThatCannotBeATreeIsShownAsText(t *testing.T) {
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{Language: memorybank.English, MaxDocumentBytes: 4 << 20})
	f := newFixture(t, ui.Options{Bank: bank})
	const hostile = `</pre><script>alert(1)</script>`
	depth := render.MaxJSONDepth + 1
	deep := `{"content":` + strings.Repeat("[", depth) + strconv.Quote(hostile) + strings.Repeat("]", depth) + `}`
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "deep.json", Content: []byte(deep)})
	large := `{"content":{"notes":"` + hostile + strings.Repeat("x", render.MaxJSONBytes) + `"}}`
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "large.json", Content: []byte(large)})

	for _, c := range []struct {
		path string
		why  []string
	}{
		{"deep.json", []string{"deeper than " + strconv.Itoa(render.MaxJSONDepth) + " levels"}},
		{"large.json", []string{"bytes, above the " + strconv.Itoa(render.MaxJSONBytes) + "-byte limit"}},
	} {
		res := f.get("/ui/doc?scope=global&path=" + c.path)
		require.Equal(t, http.StatusOK, res.Code, "%s: %.2000s", c.path, res.Body)
		body := res.Body
		for _, want := range append(c.why, `id="doc-content"`, `id="doc-meta"`, `class="render-note"`, "not shown as a tree", `<pre class="render-plain">`,
			`&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;`) {
			assert.True(t, strings.Contains(body, want), "%s: the page lacks %q", c.path, want) // not Contains: the page is large
		}
		assert.False(t, strings.Contains(body, "<script>alert"), "%s: the document's text is escaped", c.path)
		assert.False(t, strings.Contains(body, `id="error"`), "%s: not an error page", c.path)
	}
}

// Whatever render.JSON says, the document is shown: malformed JSON (which
// the bank does not store, but a document read some other way may hold)
// is shown as text with the reason.
func TestMalformedJSONIsShownAsText(t *testing.T) {
	got := string(ui.RenderContent(&memorybank.Document{Path: "broken.json", Format: memorybank.FormatJSON, Content: []byte(`{"a": <b>1</b>`)}))
	assert.Contains(t, got, `class="render-note"`)
	assert.Contains(t, got, "not valid JSON")
	assert.Contains(t, got, `<pre class="render-plain">{&#34;a&#34;: &lt;b&gt;1&lt;/b&gt;</pre>`)
}
