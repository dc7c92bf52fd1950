//go:build unix

package fsstore_test

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Names Windows could not even create (CON, a colon, a FIFO) are skipped by
// List wherever they come from.
func TestListSkipsNonKeys(t *testing.T) {
	dir := t.TempDir()
	write := func(name string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte("x"), 0o644))
	}
	for _, name := range []string{"ok.md", "CON", "bad:name.md", "trailing.", "ctl\x01.md", "sub/ok.md", "sub/nul.txt", "back\\slash"} {
		write(name)
	}
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "fifo"), 0o644))
	require.NoError(t, os.Symlink(".", filepath.Join(dir, "loop")))         // a cycle
	require.NoError(t, os.Symlink("ok.md", filepath.Join(dir, "alias.md"))) // inside: listed
	require.NoError(t, os.Symlink("missing", filepath.Join(dir, "dangling.md")))
	s := open(t, dir, nil)

	assert.Equal(t, []string{"alias.md", "ok.md", "sub/ok.md"}, listKeys(t, s, ""))
	_, err := s.Get(ctx, "fifo")
	assert.ErrorIs(t, err, memorybank.ErrNotFound, "a FIFO holds no value (and must not block)")
	obj, err := s.Get(ctx, "alias.md")
	require.NoError(t, err)
	assert.Equal(t, "x", string(obj.Data))
	_, err = s.Get(ctx, "dangling.md")
	assert.ErrorIs(t, err, memorybank.ErrNotFound)
}
