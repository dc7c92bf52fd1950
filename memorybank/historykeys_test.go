package memorybank_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// Every path a bank accepts has a history, however long it is and whatever
// other documents were there before it: the document is written, its
// history lists it, it can be reverted and deleted, on every store.
func TestHistoryForEveryPath(t *testing.T) {
	g := memorybank.ScopeGlobal
	// The longest path whose key fits: MaxKeyLen with the bank's prefix.
	longest := strings.Repeat(strings.Repeat("d", 200)+"/", 4)
	longest += strings.Repeat("n", memorybank.MaxKeyLen-len(memorybank.GlobalPrefix)-len(longest)-len(".md")) + ".md"
	require.Len(t, memorybank.GlobalPrefix+longest, memorybank.MaxKeyLen)
	cases := []struct {
		name   string
		before []string // documents written and deleted before path
		path   string
	}{
		{"longest path", nil, longest},
		{"path 975 bytes", nil, longest[len(longest)-975:]},
		{"path 990 bytes", nil, longest[len(longest)-990:]},
		// The history of "x.json" once held files named like these.
		{"named like a tombstone", []string{"x.json"}, "x.json/deleted.json"},
		{"named like an entry", []string{"x.json"}, "x.json/00000000000000000001.json"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, store memorybank.Store) {
				b := newBank(store)
				for _, p := range tc.before {
					mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: p, Content: raw(`{"n":0}`)})
					require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: p}))
				}
				content := func(n string) memorybank.WriteRequest {
					req := memorybank.WriteRequest{Scope: g, Path: tc.path, Text: "n=" + n}
					if strings.HasSuffix(tc.path, ".json") {
						req.Text, req.Content = "", raw(`{"n":`+n+`}`)
					}
					return req
				}
				first := mustWrite(t, b, content("1"))
				mustWrite(t, b, content("2"))
				hist, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: g, Path: tc.path})
				require.NoError(t, err)
				require.Len(t, hist, 2, "both writes are in the history")
				rev, err := history.Revert(ctx, b, memorybank.RevertRequest{Scope: g, Path: tc.path, ToVersion: first.Version})
				require.NoError(t, err)
				require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: tc.path}))
				_, err = b.Read(ctx, memorybank.ReadRequest{Scope: g, Path: tc.path})
				require.ErrorIs(t, err, memorybank.ErrNotFound)
				restored, err := history.Revert(ctx, b, memorybank.RevertRequest{Scope: g, Path: tc.path, ToVersion: rev.Version})
				require.NoError(t, err)
				assert.Equal(t, rev.Version+2, restored.Version, "the delete consumed a version")
			})
		})
	}
}

// A path whose key would be over MaxKeyLen is refused as a path, saying
// how long a path may be in that bank, and nothing is written.
func TestPathOverKeyLimit(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	p := strings.Repeat(strings.Repeat("d", 200)+"/", 4) + strings.Repeat("n", memorybank.MaxKeyLen-len(memorybank.GlobalPrefix)-804+1)
	require.Len(t, memorybank.GlobalPrefix+p, memorybank.MaxKeyLen+1)
	require.NoError(t, memorybank.ValidatePath(p), "a valid path on its own")
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: p, Text: "x"})
	require.ErrorIs(t, err, memorybank.ErrInvalidPath)
	assert.Contains(t, err.Error(), "a path there is at most 1005 bytes")
	assert.Empty(t, snapshot(t, store))
}
