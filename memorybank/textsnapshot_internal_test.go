package memorybank

import (
	"context"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A snapshot that would be larger than allowed is not written: the bank
// is indexed from its documents, as without one.
func TestTextSnapshotTooLargeIsNotWritten(t *testing.T) {
	ctx := context.Background()
	store := &MemStore{}
	for i := range 40 {
		_, err := store.Put(ctx, fmt.Sprintf("%sn%02d.md", GlobalPrefix, i), []byte(strings.Repeat(fmt.Sprintf("word%d note text ", i), 200)), Condition{})
		require.NoError(t, err)
	}
	search := func(limit int) string {
		saved := maxTextSnapshotBytes
		maxTextSnapshotBytes = limit
		defer func() { maxTextSnapshotBytes = saved }()
		var log strings.Builder
		_, err := New(store, &Options{Logger: slog.New(slog.NewTextHandler(&log, nil))}).Search(ctx, TextSearchRequest{Query: "word3"})
		require.NoError(t, err)
		return log.String()
	}
	log := search(1000)
	assert.Contains(t, log, "cannot store the text index snapshot")
	assert.Contains(t, log, "more than the 1000 allowed")
	_, err := store.Get(ctx, GlobalPrefix+textSnapshotKey)
	assert.ErrorIs(t, err, ErrNotFound)

	assert.Empty(t, search(64<<20))
	obj, err := store.Get(ctx, GlobalPrefix+textSnapshotKey)
	require.NoError(t, err)
	assert.Greater(t, len(obj.Data), 1000)
	log = search(len(obj.Data) - 1)
	assert.Contains(t, log, "ignoring the text index snapshot", "a bound lowered since makes it too large to read")
}

// FuzzTextSnapshot feeds the snapshot reader bodies under a right format
// line and checksum, so that mutations reach the entries and the index:
// it refuses them with a reason or gives an index that searches.
func FuzzTextSnapshot(f *testing.F) {
	ctx := context.Background()
	store := &MemStore{}
	paths := map[string]string{}
	for i := range 12 {
		obj, err := store.Put(ctx, fmt.Sprintf("%sn%02d.md", GlobalPrefix, i), []byte(fmt.Sprintf("---\ntags: [t%d]\n---\n# N%d\n\n", i%3, i)+strings.Repeat(fmt.Sprintf("word%d note text ", i), 400)), Condition{})
		require.NoError(f, err)
		paths[fmt.Sprintf("n%02d.md", i)] = obj.Version
	}
	_, err := New(store, nil).Search(ctx, TextSearchRequest{Query: "note"})
	require.NoError(f, err)
	obj, err := store.Get(ctx, GlobalPrefix+textSnapshotKey)
	require.NoError(f, err)
	body := obj.Data[len(textSnapshotFormat) : len(obj.Data)-4]
	f.Add(body)
	f.Add(body[:len(body)/3])
	f.Fuzz(func(t *testing.T, body []byte) {
		data := append([]byte(textSnapshotFormat), body...)
		data = binary.LittleEndian.AppendUint32(data, crc32.Checksum(data, crcTable))
		docs, ix, keep, err := decodeTextSnapshot(data, GlobalPrefix, paths)
		if err != nil {
			require.ErrorIs(t, err, errTextSnapshot)
			return
		}
		require.Len(t, keep, len(docs))
		ix.Each([]string{"note", "word3"}, nil, func(string, float64) {})
	})
}
