package fsstore_test

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Put on a key that is a symbolic link to a file inside the store keeps the
// link and writes the file it points to; Delete removes the link, never
// its target. A link that leaves the store, or points at the store's own
// files, is refused and nothing changes.
func TestPutKeepsLinksInside(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "shared"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "shared", "notes.md"), []byte("old"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "bank"), 0o755))
	require.NoError(t, os.Symlink("../shared/notes.md", filepath.Join(dir, "bank", "notes.md")))
	require.NoError(t, os.Symlink("notes.md", filepath.Join(dir, "bank", "chain.md"))) // a link to a link
	require.NoError(t, os.Symlink("../shared/new.md", filepath.Join(dir, "bank", "dangling.md")))
	require.NoError(t, os.Symlink("../.memorybank.lock", filepath.Join(dir, "bank", "lock.md")))
	s := open(t, dir, nil)

	cur, err := s.Get(ctx, "bank/notes.md")
	require.NoError(t, err)
	obj, err := s.Put(ctx, "bank/notes.md", []byte("new"), memorybank.Condition{IfVersion: cur.Version})
	require.NoError(t, err)
	fi, err := os.Lstat(filepath.Join(dir, "bank", "notes.md"))
	require.NoError(t, err)
	assert.Equal(t, os.ModeSymlink, fi.Mode()&os.ModeSymlink, "the link is kept")
	data, err := os.ReadFile(filepath.Join(dir, "shared", "notes.md"))
	require.NoError(t, err)
	assert.Equal(t, "new", string(data), "the target is written")
	got, err := s.Get(ctx, "bank/notes.md")
	require.NoError(t, err)
	assert.Equal(t, obj.Version, got.Version)

	_, err = s.Put(ctx, "bank/chain.md", []byte("chained"), memorybank.Condition{})
	require.NoError(t, err)
	data, err = os.ReadFile(filepath.Join(dir, "shared", "notes.md"))
	require.NoError(t, err)
	assert.Equal(t, "chained", string(data))

	_, err = s.Put(ctx, "bank/dangling.md", []byte("created"), memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)
	data, err = os.ReadFile(filepath.Join(dir, "shared", "new.md"))
	require.NoError(t, err)
	assert.Equal(t, "created", string(data), "a dangling link inside creates its target")

	_, err = s.Put(ctx, "bank/lock.md", []byte("x"), memorybank.Condition{})
	require.ErrorIs(t, err, memorybank.ErrInvalidKey, "a link to the store's own files")

	require.NoError(t, s.Delete(ctx, "bank/notes.md", memorybank.Condition{}))
	_, err = os.Lstat(filepath.Join(dir, "bank", "notes.md"))
	assert.True(t, os.IsNotExist(err), "Delete removes the link")
	_, err = os.Stat(filepath.Join(dir, "shared", "notes.md"))
	assert.NoError(t, err, "and keeps its target")
}
