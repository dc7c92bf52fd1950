package archive_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// archiveOf exports a MemStore holding keys as given.
func archiveOf(t *testing.T, keys map[string]string) []byte {
	t.Helper()
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	for k, v := range keys {
		_, err := src.Store().Put(context.Background(), k, []byte(v), memorybank.Condition{})
		require.NoError(t, err)
	}
	data, _ := export(t, src, archive.Memories{})
	return data
}

func fsBank(t *testing.T) (*memorybank.Bank, string) {
	t.Helper()
	dir := t.TempDir()
	s, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	t.Cleanup(func() { s.Close() })
	return memorybank.New(s, &memorybank.Options{History: history.New(nil)}), dir
}

// Every key is judged by the target store's rules, and against the other
// keys of the archive, in the dry run: an archive that would fail half-way
// is refused before anything is written, naming the entry.
func TestImportRefusesKeysTheTargetCannotHold(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys map[string]string
		bad  string
	}{
		{"the store's lock file", map[string]string{"global-memory-bank/a.md": "a", ".memorybank.lock": ""}, ".memorybank.lock"},
		{"the store's change count", map[string]string{"global-memory-bank/a.md": "a", ".memorybank.changes": "1"}, ".memorybank.changes"},
		{"a temporary file", map[string]string{"global-memory-bank/a.md": "a", "global-memory-bank/x/.atomicfile-0123456789abcdef.tmp": "t"}, "global-memory-bank/x/.atomicfile-0123456789abcdef.tmp"},
		{"a file where a folder is needed", map[string]string{"global-memory-bank/a.md": "a", "global-memory-bank/a.md/b.md": "b", "global-memory-bank/0.md": "z"}, "global-memory-bank/a.md/b.md"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data := archiveOf(t, tc.keys)
			for _, apply := range []bool{false, true} {
				dst, dir := fsBank(t)
				_, _, err := importInto(t, dst, archive.Memories{}, data, archive.ImportOptions{Apply: apply})
				var ee *archive.EntryError
				require.ErrorAs(t, err, &ee)
				assert.ErrorIs(t, err, archive.ErrUnsafeName)
				assert.Equal(t, "store/"+tc.bad, ee.Entry)
				assert.Empty(t, storeKeys(t, dst.Store()), "nothing was written")
				entries, err := os.ReadDir(filepath.Join(dir, "global-memory-bank"))
				assert.True(t, errors.Is(err, os.ErrNotExist) || len(entries) == 0, "no folder was left: %v", entries)
			}
		})
	}
}

// A key of the archive that collides with ours (a file where it needs a
// folder, or a folder where it needs a file) is refused in the dry run and
// skipped by the apply, which writes the rest.
func TestImportRefusesKeysThatCollideWithOurs(t *testing.T) {
	ctx := context.Background()
	data := archiveOf(t, map[string]string{"global-memory-bank/a.md": "a", "global-memory-bank/n.md/x.md": "x", "global-memory-bank/z.md": "z"})
	dst, _ := fsBank(t)
	for k, v := range map[string]string{"global-memory-bank/a.md/b.md": "b", "global-memory-bank/n.md": "n"} {
		_, err := dst.Store().Put(ctx, k, []byte(v), memorybank.Condition{})
		require.NoError(t, err)
	}
	before := storeKeys(t, dst.Store())
	for _, apply := range []bool{false, true} {
		res, items, err := importInto(t, dst, archive.Memories{}, data, archive.ImportOptions{Apply: apply})
		require.NoError(t, err)
		assert.Equal(t, 2, res.Refused)
		got := map[string]archive.Action{}
		for _, it := range items {
			got[it.Key] = it.Action
		}
		assert.Equal(t, map[string]archive.Action{"global-memory-bank/a.md": archive.Refuse, "global-memory-bank/n.md/x.md": archive.Refuse, "global-memory-bank/z.md": archive.Create}, got)
	}
	after := storeKeys(t, dst.Store())
	assert.Equal(t, "z", after["global-memory-bank/z.md"])
	delete(after, "global-memory-bank/z.md")
	assert.Equal(t, before, after)
}

// Import applies a write's size limit: a document over the bank's
// MaxDocumentBytes is refused, with its history.
func TestImportRefusesDocumentsOverTheWriteLimit(t *testing.T) {
	ctx := context.Background()
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), MaxDocumentBytes: 8 << 20})
	big := "# Big\n\n" + strings.Repeat("x", 2<<20)
	_, err := src.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "big.md", Text: big})
	require.NoError(t, err)
	_, err = src.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "small.md", Text: "# Small\n"})
	require.NoError(t, err)
	data, _ := export(t, src, archive.Memories{})

	dst := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	res, items, err := importInto(t, dst, archive.Memories{}, data, archive.ImportOptions{Apply: true})
	require.NoError(t, err)
	assert.Equal(t, 1, res.Refused)
	assert.Equal(t, 1, res.Created)
	for _, it := range items {
		if it.Key == memorybank.GlobalPrefix+"big.md" {
			assert.Equal(t, archive.Refuse, it.Action)
			assert.Contains(t, it.Detail, "at most 1048576")
		}
	}
	for k := range storeKeys(t, dst.Store()) {
		assert.NotContains(t, k, "big", k)
	}
	assert.Equal(t, 1, res.HistoryWritten, "small.md's entry only")
}
