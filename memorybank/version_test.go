package memorybank_test

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Versions edited by hand to huge values are read exactly and incremented
// exactly; the largest int64 cannot be incremented, and a write of such a
// document is refused with an error naming /metadata/version, changing
// nothing.
func TestHugeVersions(t *testing.T) {
	g := memorybank.ScopeGlobal
	cases := []struct {
		name, stored string
		read, next   int64
	}{
		{"2^53+1", "9007199254740993", 9007199254740993, 9007199254740994},
		{"max int64 - 1", "9223372036854775806", 9223372036854775806, 9223372036854775807},
		{"as a string", `"9223372036854775806"`, 9223372036854775806, 9223372036854775807},
		{"max int64", "9223372036854775807", 9223372036854775807, 0},
		{"beyond int64 reads as the largest", "92233720368547758070", 9223372036854775807, 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, p := range []string{"doc.json", "doc.md"} {
				store := &memorybank.MemStore{}
				b := newBank(store)
				data := `{"schema":"memory_document_v2","metadata":{"title":"T","documentType":"generic","tags":[],"version":` + tc.stored + `},"content":{"a":1}}`
				if p == "doc.md" {
					data = "---\nschema: memory_document_v2\nmetadata:\n  title: T\n  version: " + tc.stored + "\n---\nbody\n"
				}
				_, err := store.Put(ctx, "global-memory-bank/"+p, []byte(data), memorybank.Condition{})
				require.NoError(t, err)
				before := snapshot(t, store)
				req := memorybank.WriteRequest{Scope: g, Path: p, Content: raw(`{"b":2}`)}
				if p == "doc.md" {
					req = memorybank.WriteRequest{Scope: g, Path: p, Text: "new body\n"}
				}
				d := mustRead(t, b, g, "", p)
				assert.Equal(t, tc.read, d.Version, p)
				req.IfVersion = tc.read
				res, err := b.Write(ctx, req)
				if tc.next == 0 {
					var ve *memorybank.ValidationError
					require.ErrorAs(t, err, &ve, p)
					require.Len(t, ve.Problems, 1)
					assert.Equal(t, "/metadata/version", ve.Problems[0].Pointer)
					assert.Contains(t, ve.Problems[0].Message, fmt.Sprint(tc.read))
					assert.Equal(t, before, snapshot(t, store), p)
					continue
				}
				require.NoError(t, err, p)
				assert.Equal(t, tc.next, res.Version, p)
				assert.Equal(t, tc.next, mustRead(t, b, g, "", p).Version, p)
			}
		})
	}
}

// A document whose version was edited to the largest int64 can be deleted
// and written again (its versions then restart: there is nothing after the
// largest).
func TestDeleteMaxVersion(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	g := memorybank.ScopeGlobal
	_, err := store.Put(ctx, "global-memory-bank/doc.json", []byte(`{"schema":"memory_document_v2","metadata":{"title":"T","version":9223372036854775807},"content":{"a":1}}`), memorybank.Condition{})
	require.NoError(t, err)
	require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: "doc.json", IfVersion: 9223372036854775807}))
	res, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "doc.json", Content: raw(`{"a":2}`)})
	require.NoError(t, err)
	assert.Equal(t, int64(1), res.Version)
}
