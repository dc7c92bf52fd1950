package ui_test

import (
	"context"
	"html"
	"net/http"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memorybank"
)

// A document too large to show whole (here 10 MB placed in the store by
// hand, past the limit of a write) gives a page of about the limit, with a
// note and a link that downloads all of it.
func TestLargeDocumentPageIsBounded(t *testing.T) {
	f := newFixture(t, ui.Options{})
	line := "- a line of notes <b>with</b> & some markup to escape\n"
	text := "# Large\n\n" + strings.Repeat(line, 10<<20/len(line))
	_, err := f.bank.Store().Put(context.Background(), memorybank.GlobalPrefix+"large.md", []byte(text), memorybank.Condition{})
	require.NoError(t, err)

	page := f.get(ui.Prefix + "doc?scope=global&path=large.md")
	require.Equal(t, http.StatusOK, page.Code, page.Body)
	assert.Less(t, len(page.Body), 2*memorybank.DefaultMaxDocumentBytes, "the page is bounded")
	assert.True(t, strings.Contains(page.Body, "too large to show whole"), "the page has the note")
	link := regexp.MustCompile(`<a id="raw-link" href="([^"]+)"`).FindStringSubmatch(page.Body)
	require.NotNil(t, link, "a download link")

	raw := f.get(html.UnescapeString(link[1]))
	require.Equal(t, http.StatusOK, raw.Code)
	assert.True(t, text == raw.Body, "the download is the whole text (%d bytes of %d)", len(raw.Body), len(text))
	assert.Contains(t, raw.Header.Get("Content-Disposition"), `attachment; filename="large.md"`)

	// A document a write could store is shown whole, without the note.
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "small.md", Text: "# Small\n\nall of it\n"})
	page = f.get(ui.Prefix + "doc?scope=global&path=small.md")
	assert.Contains(t, page.Body, "all of it")
	assert.NotContains(t, page.Body, "too large to show whole")
	assert.NotContains(t, page.Body, "raw-link")
}
