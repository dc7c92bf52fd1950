package main

import (
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// Every subcommand reads --postgres alike: a URL or a keyword/value DSN
// reaches the driver as given, a bare host/db becomes a URL.
func TestPostgresDSN(t *testing.T) {
	for in, want := range map[string]string{
		"postgres://u:p@h/db":         "postgres://u:p@h/db",
		"postgresql://h/db?sslmode=x": "postgresql://h/db?sslmode=x",
		"host=h dbname=db user=u":     "host=h dbname=db user=u",
		"h:5432/db":                   "postgres://h:5432/db",
		"//h/db":                      "postgres://h/db",
	} {
		assert.Equal(t, want, postgresDSN(in), in)
	}
}

// A directory bank keeps its memories in the --memories file with the
// trash beside it, and says when its directory was created.
func TestOpenStoresDirectory(t *testing.T) {
	dir := t.TempDir()
	c := storeConfig{Root: filepath.Join(dir, "docs"), Memories: filepath.Join(dir, "m", "memories.md")}
	st, err := openStores(t.Context(), c, nil)
	require.NoError(t, err)
	assert.True(t, st.createdRoot, "the directory was new")
	assert.Equal(t, "directory "+c.Root, st.source)
	mem, err := memories.New(st.mem, &memories.Options{Trash: st.trash})
	require.NoError(t, err)
	m, err := mem.Add(t.Context(), "kept")
	require.NoError(t, err)
	require.NoError(t, mem.Delete(t.Context(), m.ID))
	assert.FileExists(t, filepath.Join(dir, "m", trashFileName), "the trash is beside the memories file")
	st.close()

	again, err := openStores(t.Context(), c, nil)
	require.NoError(t, err)
	defer again.close()
	assert.False(t, again.createdRoot, "the directory was there")
}
