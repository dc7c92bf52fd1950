package main

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
)

// The command's dry run shows the merge and changes nothing; --apply
// merges the duplicates into the newest text with the union of the tags,
// and the merged memories wait in the trash.
func TestConsolidateDryRunThenApply(t *testing.T) {
	dir := t.TempDir()
	root, memFile := filepath.Join(dir, "docs"), filepath.Join(dir, ".agent", "memories.md")
	trash := filepath.Join(dir, ".agent", "memories.trash.md")
	m, err := memories.New(filestore.New(memFile, nil), nil)
	require.NoError(t, err)
	ctx := context.Background()
	_, err = m.Add(ctx, "Run the integration tests with make itest; they need docker running", "testing")
	require.NoError(t, err)
	_, err = m.Add(ctx, "Integration tests run with make itest and need docker running", "ci")
	require.NoError(t, err)
	_, err = m.Add(ctx, "Prefer table tests with testify require for preconditions")
	require.NoError(t, err)

	out, _, err := runCmd(t, "", "consolidate", "--root", root, "--memories", memFile)
	require.NoError(t, err)
	assert.Contains(t, out, "- Run the integration tests with make itest; they need docker running")
	assert.Contains(t, out, "Dry run: nothing was changed")
	ms, err := m.List(ctx)
	require.NoError(t, err)
	assert.Len(t, ms, 3, "a dry run changes nothing")

	out, _, err = runCmd(t, "", "consolidate", "--root", root, "--memories", memFile, "--apply")
	require.NoError(t, err)
	assert.Contains(t, out, "Applied: 1 merges")
	ms, err = m.List(ctx)
	require.NoError(t, err)
	require.Len(t, ms, 2)
	assert.Equal(t, "Integration tests run with make itest and need docker running", ms[1].Content)
	assert.Equal(t, []string{"ci", "testing"}, ms[1].Tags)
	tm, err := memories.New(filestore.New(trash, nil), nil)
	require.NoError(t, err)
	gone, err := tm.List(ctx)
	require.NoError(t, err)
	assert.Len(t, gone, 2, "the merged memories are in the trash")
}
