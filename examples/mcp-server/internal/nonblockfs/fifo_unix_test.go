//go:build unix

package nonblockfs_test

import (
	"io/fs"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/nonblockfs"
)

// A FIFO with no writer opens at once (and is seen as a FIFO), where a
// plain open would wait for a writer for ever.
func TestFSOpensAFIFOWithoutBlocking(t *testing.T) {
	root, dir := openRoot(t)
	require.NoError(t, syscall.Mkfifo(filepath.Join(dir, "notes", "b.md"), 0o644))
	opened := make(chan error, 1)
	go func() {
		f, err := nonblockfs.New(root).Open("notes/b.md")
		if err == nil {
			var fi fs.FileInfo
			if fi, err = f.Stat(); err == nil && fi.Mode().Type() != fs.ModeNamedPipe {
				t.Errorf("opened %v, not the FIFO", fi.Mode())
			}
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		assert.NoError(t, err)
	case <-time.After(time.Minute):
		t.Fatal("opening a FIFO with no writer blocked")
	}
}
