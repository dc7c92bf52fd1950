package memorybank_test

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

func TestWriteRecordsProvenance(t *testing.T) {
	b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), Language: memorybank.English})
	g := memorybank.ScopeGlobal
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "n.md", Text: "# N\n\nfrom an import\n", Actor: "claude-code",
		Provenance: &memorybank.Provenance{Tool: "import", Source: "backup.tar: notes/n.md"}})
	require.NoError(t, err)
	d := mustRead(t, b, g, "", "n.md")
	var meta struct {
		Provenance memorybank.Provenance `json:"provenance"`
	}
	require.NoError(t, json.Unmarshal(d.Metadata, &meta))
	assert.Equal(t, memorybank.Provenance{Actor: "claude-code", Tool: "import", Source: "backup.tar: notes/n.md"}, meta.Provenance)
	entries, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: "n.md"})
	require.NoError(t, err)
	require.Len(t, entries, 1)
	require.NotNil(t, entries[0].Via)
	assert.Equal(t, "import", entries[0].Via.Tool)

	// A later write without provenance does not inherit the old one.
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "n.md", Text: "# N\n\nedited\n"})
	require.NoError(t, err)
	d = mustRead(t, b, g, "", "n.md")
	assert.NotContains(t, string(d.Metadata), "provenance")
}
