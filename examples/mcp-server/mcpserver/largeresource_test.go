package mcpserver

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// A resource read of a document larger than a write could store (a file
// placed in the folder by hand) answers its beginning and a note.
func TestResourceReadOfALargeDocumentIsBounded(t *testing.T) {
	ts := newTestServer(t)
	s := ts.connect(t, nil, "")
	text := "# Large\n\n" + strings.Repeat("a line of a large note\n", 10<<20/23)
	require.NoError(t, os.MkdirAll(filepath.Join(ts.root, "global-memory-bank"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(ts.root, "global-memory-bank", "large.md"), []byte(text), 0o644))
	res, err := s.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "memorybank://global/large.md"})
	require.NoError(t, err)
	got := res.Contents[0].Text
	assert.LessOrEqual(t, len(got), memorybank.DefaultMaxDocumentBytes+512)
	assert.True(t, strings.Contains(got, "[Truncated: this document is"), "with a note")
}
