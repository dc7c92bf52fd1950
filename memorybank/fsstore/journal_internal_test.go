package fsstore

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A record torn by a crash mid-append, or bytes that are no record, are
// skipped; the records after them are read.
func TestParseJournalSkipsTornRecords(t *testing.T) {
	r1 := record{op: opPut, perm: 0o644, mtime: 1, key: "a.json", data: []byte(`{"a":1}`)}
	r2 := record{op: opDelete, mtime: 2, key: "b.json"}
	r3 := record{op: opPut, perm: 0o600, mtime: 3, key: "c/d.json", data: []byte(`{}`)}
	torn := r2.encode()
	torn = torn[:len(torn)-3]
	var b bytes.Buffer
	b.Write(r1.encode())
	b.Write(torn)
	b.WriteString("garbage")
	b.Write(r3.encode())
	got := parseJournal(b.Bytes())
	require.Len(t, got, 2)
	assert.Equal(t, "a.json", got[0].key)
	assert.Equal(t, []byte(`{"a":1}`), got[0].data)
	assert.Equal(t, r3.key, got[1].key)
	assert.Equal(t, r3.perm, got[1].perm)
	assert.Equal(t, r3.mtime, got[1].mtime)

	flipped := r1.encode()
	flipped[len(flipped)-1] ^= 1
	assert.Empty(t, parseJournal(flipped), "a record whose checksum fails is not read")
}

func FuzzParseJournal(f *testing.F) {
	f.Add((&record{op: opPut, perm: 0o644, mtime: 5, key: "k", data: []byte("v")}).encode())
	f.Add((&record{op: opDelete, key: "x/y"}).encode())
	f.Add([]byte("MBJ1\xff\xff\xff\xff"))
	f.Fuzz(func(t *testing.T, b []byte) {
		for _, r := range parseJournal(b) {
			again := parseJournal(r.encode())
			if len(again) != 1 || again[0].key != r.key || !bytes.Equal(again[0].data, r.data) || again[0].mtime != r.mtime || again[0].op != r.op {
				t.Fatalf("record %+v does not survive encoding", r)
			}
		}
	})
}
