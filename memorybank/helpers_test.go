package memorybank_test

import (
	"context"
	"slices"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/banktest"
)

// The helpers shared with the other tests over a Bank
// (memorybank/internal/banktest), under the names these tests use.
var (
	ctx          = context.Background()
	t0           = banktest.T0
	forEachStore = banktest.ForEachStore
	newBank      = banktest.NewBank
	raw          = banktest.Raw
	op           = banktest.Op
	mv           = banktest.Mv
	decode       = banktest.Decode
	mustWrite    = banktest.MustWrite
	mustRead     = banktest.MustRead
)

// snapshot returns every key and value of a store, to show a failed write
// changed nothing.
func snapshot(t *testing.T, s memorybank.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for obj, err := range s.List(ctx, "") {
		require.NoError(t, err)
		full, err := s.Get(ctx, obj.Key)
		require.NoError(t, err)
		out[obj.Key] = string(full.Data)
	}
	return out
}

const progressDoc = `{"schema":"memory_document_v2","metadata":{"title":"Progress","documentType":"progress","tags":["core","progress"]},"content":{"status":"started","workingFeatures":[]}}`

func slicesSort(s []string) { slices.Sort(s) }
