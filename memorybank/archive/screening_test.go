package archive_test

import (
	"bytes"
	"context"
	"regexp"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/screen"
)

var fakeKey = regexp.MustCompile(`FAKEKEY-[A-Za-z0-9]{16}`)

var fakeScanner = screen.PatternScanner("fake-key", fakeKey)

func TestImportScreensCredentials(t *testing.T) {
	ctx := context.Background()
	const key = "FAKEKEY-abcdEFGH12345678"
	// An archive made by a bank without a screen holds the key in a
	// document, its history and a memory.
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), Language: memorybank.English})
	_, err := src.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "n.md", Text: "# N\n\nkey " + key + "\n"})
	require.NoError(t, err)
	_, err = src.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "n.md", Text: "# N\n\nkey " + key + " twice\n"})
	require.NoError(t, err)
	memFile := new(memories.MemStore)
	mm, err := memories.New(memFile, nil)
	require.NoError(t, err)
	_, err = mm.Add(ctx, "the key is "+key)
	require.NoError(t, err)
	var buf bytes.Buffer
	_, err = archive.Export(ctx, src, archive.Memories{File: memFile}, &buf, nil)
	require.NoError(t, err)

	// Refused whole, nothing written.
	store := &memorybank.MemStore{}
	dst := memorybank.New(store, &memorybank.Options{History: history.New(nil), Secrets: screen.Secrets{Scanner: fakeScanner}})
	dstMem := new(memories.MemStore)
	_, err = archive.Import(ctx, dst, archive.Memories{File: dstMem}, bytes.NewReader(buf.Bytes()), &archive.ImportOptions{Apply: true})
	require.ErrorIs(t, err, screen.ErrSecret)
	var ee *archive.EntryError
	require.ErrorAs(t, err, &ee)
	assert.NotEmpty(t, ee.Entry)
	n := 0
	for _, err := range store.List(ctx, "") {
		require.NoError(t, err)
		n++
	}
	assert.Zero(t, n, "nothing was written")

	// Redacted everywhere.
	dst = memorybank.New(store, &memorybank.Options{History: history.New(nil), Secrets: screen.Secrets{Scanner: fakeScanner, Mode: screen.Redact}})
	_, err = archive.Import(ctx, dst, archive.Memories{File: dstMem}, bytes.NewReader(buf.Bytes()), &archive.ImportOptions{Apply: true})
	require.NoError(t, err)
	n = 0
	for obj, err := range store.List(ctx, "") {
		require.NoError(t, err)
		full, err := store.Get(ctx, obj.Key)
		require.NoError(t, err)
		assert.NotContains(t, string(full.Data), key, obj.Key)
		n++
	}
	assert.Positive(t, n)
	data, _, err := dstMem.Load(ctx)
	require.NoError(t, err)
	assert.Contains(t, string(data), "the key is [REDACTED:fake-key]")
}
