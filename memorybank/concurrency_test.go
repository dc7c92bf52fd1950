package memorybank_test

import (
	"encoding/json"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// appendConcurrently runs one patch write per goroutine, each appending its
// number to /content/items of c.json through banks[i%len(banks)], and checks
// that every write succeeded and every item is present, with default
// options.
func appendConcurrently(t *testing.T, banks []*memorybank.Bank, writers int) {
	t.Helper()
	g := memorybank.ScopeGlobal
	mustWrite(t, banks[0], memorybank.WriteRequest{Scope: g, Path: "c.json", Content: raw(`{"items":[]}`), Tags: []string{"c"}})
	errs := make(chan error, writers)
	for i := range writers {
		b := banks[i%len(banks)]
		go func() {
			_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "c.json",
				Patches: jsonpatch.Patch{op("add", "/content/items/-", fmt.Sprint(i))}})
			errs <- err
		}()
	}
	for range writers {
		assert.NoError(t, <-errs)
	}
	for _, b := range banks {
		d := mustRead(t, b, g, "", "c.json")
		var env struct {
			Content struct{ Items []int }
		}
		require.NoError(t, json.Unmarshal(d.Content, &env))
		assert.ElementsMatch(t, seq(writers), env.Content.Items, "every update is present")
		assert.Equal(t, int64(1+writers), d.Version)
		hits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"c"}, Scope: g})
		require.NoError(t, err)
		require.Len(t, hits, 1)
	}
}

func seq(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

// Goroutines of one Bank writing one document queue instead of fighting
// over the store's compare-and-swap: none of their writes is refused by
// the store for a stale version.
func TestConcurrentWritesOneBank(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		counting := &countingStore{Store: store}
		appendConcurrently(t, []*memorybank.Bank{memorybank.New(counting, nil)}, 32)
		assert.Zero(t, counting.conflicts.Load(), "writers of one Bank lost a compare-and-swap: they fought instead of queueing")
	})
}

// Two Banks on two fsstore handles of one folder (two processes, in effect)
// never lose an update either.
func TestConcurrentWritesTwoBanksOneFolder(t *testing.T) {
	dir := t.TempDir()
	var banks []*memorybank.Bank
	for range 2 {
		s, err := fsstore.Open(dir, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		banks = append(banks, memorybank.New(s, nil))
	}
	appendConcurrently(t, banks, 40)
}
