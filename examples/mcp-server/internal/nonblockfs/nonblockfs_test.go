package nonblockfs_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"testing/fstest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/nonblockfs"
)

// openRoot is a directory holding notes/a.md and a link to it, opened as a
// root.
func openRoot(t *testing.T) (*os.Root, string) {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes", "a.md"), []byte("# A\n"), 0o644))
	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	return root, dir
}

func TestFSReadsTheRoot(t *testing.T) {
	root, _ := openRoot(t)
	fsys := nonblockfs.New(root)
	require.NoError(t, fstest.TestFS(fsys, "notes/a.md"))
	data, err := fs.ReadFile(fsys, "notes/a.md")
	require.NoError(t, err)
	assert.Equal(t, "# A\n", string(data))

	_, err = fsys.Open("../outside.md")
	assert.ErrorIs(t, err, fs.ErrInvalid, "a name that is not fs.ValidPath")
	_, err = fsys.Open("notes/missing.md")
	assert.ErrorIs(t, err, fs.ErrNotExist)
}

// A link is seen as a link, and one that leads out of the root is not
// followed.
func TestFSLinks(t *testing.T) {
	root, dir := openRoot(t)
	outside := filepath.Join(t.TempDir(), "secret.md")
	require.NoError(t, os.WriteFile(outside, []byte("secret"), 0o644))
	if err := os.Symlink("notes/a.md", filepath.Join(dir, "in.md")); err != nil {
		t.Skip("this system or user cannot create symbolic links:", err)
	}
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "out.md")))
	fsys := nonblockfs.New(root)

	fi, err := fs.Lstat(fsys, "in.md")
	require.NoError(t, err)
	assert.Equal(t, fs.ModeSymlink, fi.Mode().Type())
	target, err := fs.ReadLink(fsys, "in.md")
	require.NoError(t, err)
	assert.Equal(t, "notes/a.md", target)
	data, err := fs.ReadFile(fsys, "in.md")
	require.NoError(t, err, "a link inside the root is followed")
	assert.Equal(t, "# A\n", string(data))

	_, err = fs.ReadFile(fsys, "out.md")
	assert.Error(t, err, "a link out of the root is not followed")
}
