package claudememory_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// Symbolic links planted in a bank directory lead nowhere: a memory path
// through one is refused by the store, and nothing outside is read, written
// or listed.
func TestSymlinksInBankDirectoryLeadNowhere(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "secret.md")
	require.NoError(t, os.WriteFile(secret, []byte("secret\n"), 0o644))
	dir := t.TempDir()
	mem := filepath.Join(dir, "global-memory-bank", "memories")
	require.NoError(t, os.MkdirAll(mem, 0o755))
	require.NoError(t, os.Symlink(outside, filepath.Join(mem, "evil")))
	require.NoError(t, os.Symlink(secret, filepath.Join(mem, "secret.md")))
	store, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	defer store.Close()
	h := claudememory.New(claudememory.BankFiles(memorybank.New(store, nil)), nil)

	for _, in := range []map[string]any{
		{"command": "view", "path": "/memories/evil/secret.md"},
		{"command": "view", "path": "/memories/secret.md"},
		{"command": "create", "path": "/memories/evil/new.md", "file_text": "x"},
		{"command": "str_replace", "path": "/memories/secret.md", "old_str": "secret", "new_str": "gone"},
		{"command": "insert", "path": "/memories/evil/secret.md", "insert_line": 0, "insert_text": "x"},
		{"command": "delete", "path": "/memories/evil"},
		{"command": "rename", "old_path": "/memories/secret.md", "new_path": "/memories/copy.md"},
	} {
		got, err := call(t, h, in)
		require.Error(t, err, "%v gave %q", in, got)
		assert.NotContains(t, err.Error(), "secret\n", "%v", in)
	}
	listing, err := call(t, h, map[string]any{"command": "view", "path": "/memories"})
	require.NoError(t, err)
	assert.NotContains(t, listing, "evil")
	assert.NotContains(t, listing, "secret")

	data, err := os.ReadFile(secret)
	require.NoError(t, err)
	assert.Equal(t, "secret\n", string(data))
	entries, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Len(t, entries, 1, "nothing was created outside")
}

func TestCreateRefusesDirectoryPath(t *testing.T) {
	files := newMapFiles(nil)
	h := claudememory.New(files, nil)
	_, err := call(t, h, map[string]any{"command": "create", "path": "/memories/notes/", "file_text": "x"})
	assert.ErrorIs(t, err, claudememory.ErrInvalidPath)
	assert.Contains(t, err.Error(), "create makes a file")
	assert.Empty(t, files.paths())
}

func TestLongOldStrIsQuotedShort(t *testing.T) {
	h := claudememory.New(newMapFiles(map[string]string{"a.md": "x"}), nil)
	_, err := call(t, h, map[string]any{"command": "str_replace", "path": "/memories/a.md", "old_str": strings.Repeat("y", 5000), "new_str": ""})
	assert.ErrorIs(t, err, claudememory.ErrNoMatch)
	assert.Less(t, len(err.Error()), 1200)
	assert.Contains(t, err.Error(), "[... 4000 more bytes]")
}
