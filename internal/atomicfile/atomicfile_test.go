package atomicfile_test

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
)

func openRoot(t *testing.T) *os.Root {
	t.Helper()
	root, err := os.OpenRoot(t.TempDir())
	require.NoError(t, err)
	t.Cleanup(func() { root.Close() })
	return root
}

// entries lists every name under root, recursively.
func entries(t *testing.T, root *os.Root) []string {
	t.Helper()
	var names []string
	require.NoError(t, fs.WalkDir(root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if p != "." {
			names = append(names, p)
		}
		return err
	}))
	return names
}

func TestWriteCreatesAndReplaces(t *testing.T) {
	root := openRoot(t)
	require.NoError(t, atomicfile.Write(root, "a/b/c.json", []byte(`{"v":1}`), nil))
	got, err := root.ReadFile("a/b/c.json")
	require.NoError(t, err)
	assert.Equal(t, `{"v":1}`, string(got))

	require.NoError(t, atomicfile.Write(root, "a/b/c.json", []byte(`{"v":2}`), nil))
	got, err = root.ReadFile("a/b/c.json")
	require.NoError(t, err)
	assert.Equal(t, `{"v":2}`, string(got))
	assert.Equal(t, []string{"a", "a/b", "a/b/c.json"}, entries(t, root), "no temporary file is left")
}

func TestWriteModes(t *testing.T) {
	root := openRoot(t)
	require.NoError(t, atomicfile.Write(root, "new", []byte("x"), &atomicfile.Options{Perm: 0o600}))
	fi, err := root.Stat("new")
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o600), fi.Mode().Perm())

	require.NoError(t, root.WriteFile("existing", []byte("x"), 0o640))
	require.NoError(t, root.Chmod("existing", 0o640))
	require.NoError(t, atomicfile.Write(root, "existing", []byte("y"), nil))
	fi, err = root.Stat("existing")
	require.NoError(t, err)
	assert.Equal(t, fs.FileMode(0o640), fi.Mode().Perm(), "an existing file keeps its mode")
}

func TestWriteBeforeCommitErrorKeepsOldContent(t *testing.T) {
	root := openRoot(t)
	require.NoError(t, atomicfile.Write(root, "doc", []byte("old"), nil))
	boom := errors.New("boom")
	var seen string
	err := atomicfile.Write(root, "doc", []byte("new"), &atomicfile.Options{BeforeCommit: func(tmp string) error {
		seen = tmp
		data, err := root.ReadFile(tmp)
		require.NoError(t, err)
		assert.Equal(t, "new", string(data), "the temporary file holds the data")
		return boom
	}})
	require.ErrorIs(t, err, boom)
	assert.True(t, atomicfile.IsTemp(filepath.Base(seen)), "temporary name %q", seen)
	got, err := root.ReadFile("doc")
	require.NoError(t, err)
	assert.Equal(t, "old", string(got))
	assert.Equal(t, []string{"doc"}, entries(t, root), "the temporary file was removed")
}

func TestWriteStaysInRoot(t *testing.T) {
	root := openRoot(t)
	outside := t.TempDir()
	require.NoError(t, os.Symlink(outside, filepath.Join(root.Name(), "link")))
	for _, name := range []string{"../x", "/abs", "link/x", "a/../../x", "", "."} {
		err := atomicfile.Write(root, name, []byte("x"), nil)
		assert.Error(t, err, "Write(%q)", name)
	}
	got, err := os.ReadDir(outside)
	require.NoError(t, err)
	assert.Empty(t, got, "nothing was written outside the root")
}

func TestWriteParentIsAFile(t *testing.T) {
	root := openRoot(t)
	require.NoError(t, atomicfile.Write(root, "a", []byte("file"), nil))
	err := atomicfile.Write(root, "a/b", []byte("x"), nil)
	require.Error(t, err)
	got, err := root.ReadFile("a")
	require.NoError(t, err)
	assert.Equal(t, "file", string(got))
}

func TestIsTempAndRemoveTemp(t *testing.T) {
	assert.True(t, atomicfile.IsTemp(".atomicfile-0123456789abcdef.tmp"))
	assert.False(t, atomicfile.IsTemp("atomicfile-0123.tmp"))
	assert.False(t, atomicfile.IsTemp(".atomicfile-0123.json"))
	assert.False(t, atomicfile.IsTemp("notes.tmp"))

	root := openRoot(t)
	require.NoError(t, root.WriteFile(".atomicfile-00.tmp", []byte("torn"), 0o644))
	require.NoError(t, root.WriteFile(".atomicfile-01.tmp", []byte("torn"), 0o644))
	require.NoError(t, root.WriteFile("keep.md", []byte("x"), 0o644))
	n, err := atomicfile.RemoveTemp(root, ".")
	require.NoError(t, err)
	assert.Equal(t, 2, n)
	assert.Equal(t, []string{"keep.md"}, entries(t, root))
}

// RemoveTempBefore removes only leftovers last modified before the cutoff,
// so a write still in progress keeps its temporary file.
func TestRemoveTempBefore(t *testing.T) {
	root := openRoot(t)
	old := time.Now().Add(-time.Hour)
	require.NoError(t, root.WriteFile(".atomicfile-00.tmp", []byte("torn"), 0o644))
	require.NoError(t, root.Chtimes(".atomicfile-00.tmp", old, old))
	require.NoError(t, root.WriteFile(".atomicfile-01.tmp", []byte("in progress"), 0o644))
	require.NoError(t, root.WriteFile("keep.md", []byte("x"), 0o644))
	require.NoError(t, root.Chtimes("keep.md", old, old))
	n, err := atomicfile.RemoveTempBefore(root, ".", time.Now().Add(-time.Minute))
	require.NoError(t, err)
	assert.Equal(t, 1, n)
	assert.Equal(t, []string{".atomicfile-01.tmp", "keep.md"}, entries(t, root))
}

// NoSync writes the same file the same way, atomically for readers.
func TestWriteNoSync(t *testing.T) {
	root, err := os.OpenRoot(t.TempDir())
	require.NoError(t, err)
	defer root.Close()
	require.NoError(t, atomicfile.Write(root, "d/e/f.txt", []byte("one"), &atomicfile.Options{NoSync: true}))
	require.NoError(t, atomicfile.Write(root, "d/e/f.txt", []byte("two"), &atomicfile.Options{NoSync: true}))
	got, err := root.ReadFile("d/e/f.txt")
	require.NoError(t, err)
	assert.Equal(t, "two", string(got))
	n, err := atomicfile.RemoveTemp(root, "d/e")
	require.NoError(t, err)
	assert.Zero(t, n, "no temporary file is left behind")
}
