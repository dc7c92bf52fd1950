package archive_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
)

// recordingSpool is a Spool that counts what goes through it.
type recordingSpool struct {
	bytes.Buffer
	reads int
}

func (s *recordingSpool) ReadAt(p []byte, off int64) (int, error) {
	s.reads++
	return bytes.NewReader(s.Bytes()).ReadAt(p, off)
}

// The spool is the caller's: Export keeps the manifest in it and Import
// the copy of a stream, and the archive is the same as with the memory
// default or a file the caller made.
func TestSpoolIsTheCallers(t *testing.T) {
	ctx := context.Background()
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{Clock: fixed})
	srcMem := newMem()
	fill(t, src, srcMem)
	inMemory, _ := export(t, src, srcMem)

	var sp recordingSpool
	var buf bytes.Buffer
	_, err := archive.Export(ctx, src, srcMem, &buf, &archive.ExportOptions{Source: "test", Clock: fixed, Spool: &sp})
	require.NoError(t, err)
	assert.Equal(t, inMemory, buf.Bytes())
	assert.Contains(t, sp.String(), `"sha256"`, "the manifest's lines went to the caller's spool")
	assert.Positive(t, sp.reads)

	f, err := os.CreateTemp(t.TempDir(), "spool")
	require.NoError(t, err)
	defer f.Close()
	buf.Reset()
	_, err = archive.Export(ctx, src, srcMem, &buf, &archive.ExportOptions{Source: "test", Clock: fixed, Spool: f})
	require.NoError(t, err)
	assert.Equal(t, inMemory, buf.Bytes(), "a file spool")

	// A stream is copied to the spool and read from there.
	for _, spool := range []archive.Spool{nil, &recordingSpool{}} {
		dst := memorybank.New(&memorybank.MemStore{}, nil)
		dstMem := newMem()
		stream := io.MultiReader(bytes.NewReader(inMemory))
		_, err = archive.Import(ctx, dst, dstMem, stream, &archive.ImportOptions{Apply: true, Spool: spool})
		require.NoError(t, err)
		again, _ := export(t, dst, dstMem)
		assert.Equal(t, inMemory, again)
		if rs, ok := spool.(*recordingSpool); ok {
			assert.Equal(t, len(inMemory), rs.Len(), "the whole stream went to the spool")
			assert.Positive(t, rs.reads)
		}
	}
}
