package history_test

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// Reverts racing writes of the same document, through one Bank and through
// two Banks over one store (two processes): every revert to a version that
// is retained succeeds or reports a conflict, never that the version is
// not retained, and the history stays whole.
func TestRevertUnderConcurrentWrites(t *testing.T) {
	cases := []struct {
		name  string
		banks func(t *testing.T) [2]*memorybank.Bank
	}{
		{"MemStore one Bank", func(t *testing.T) [2]*memorybank.Bank {
			b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
			return [2]*memorybank.Bank{b, b}
		}},
		{"MemStore two Banks", func(t *testing.T) [2]*memorybank.Bank {
			s := &memorybank.MemStore{}
			return [2]*memorybank.Bank{memorybank.New(s, &memorybank.Options{History: history.New(nil)}), memorybank.New(s, &memorybank.Options{History: history.New(nil)})}
		}},
		{"fsstore two Banks", func(t *testing.T) [2]*memorybank.Bank {
			dir := t.TempDir()
			var out [2]*memorybank.Bank
			for i := range out {
				s, err := fsstore.Open(dir, nil)
				require.NoError(t, err)
				t.Cleanup(func() { _ = s.Close() })
				out[i] = memorybank.New(s, &memorybank.Options{History: history.New(nil)})
			}
			return out
		}},
	}
	const known, writers, reverters, each = 5, 2, 2, 20
	g := memorybank.ScopeGlobal
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			banks := tc.banks(t)
			mustWrite(t, banks[0], memorybank.WriteRequest{Scope: g, Path: "r.json", Content: raw(`{"items":[]}`)})
			for i := 2; i <= known; i++ {
				mustWrite(t, banks[0], memorybank.WriteRequest{Scope: g, Path: "r.json", Patches: jsonpatch.Patch{op("add", "/content/items/-", fmt.Sprint(i))}})
			}
			var wg sync.WaitGroup
			var reverted atomic.Int64
			for w := range writers {
				wg.Go(func() {
					for i := range each {
						_, err := banks[w%2].Write(ctx, memorybank.WriteRequest{Scope: g, Path: "r.json",
							Patches: jsonpatch.Patch{op("add", "/content/items/-", fmt.Sprintf(`"w%d-%d"`, w, i))}})
						assert.NoError(t, err)
					}
				})
			}
			for r := range reverters {
				wg.Go(func() {
					for i := range each {
						to := int64(1 + (r+i)%known)
						_, err := history.Revert(ctx, banks[(r+1)%2], memorybank.RevertRequest{Scope: g, Path: "r.json", ToVersion: to})
						if err == nil {
							reverted.Add(1)
						}
						var ce *memorybank.ConflictError
						if err != nil && !errors.As(err, &ce) && !errors.Is(err, memorybank.ErrConflict) {
							assert.NoError(t, err, "revert to version %d, which is retained", to)
						}
					}
				})
			}
			wg.Wait()
			hist, err := history.List(ctx, banks[0], memorybank.HistoryRequest{Scope: g, Path: "r.json"})
			require.NoError(t, err)
			last := known + writers*each + int(reverted.Load())
			versions := make([]int64, len(hist))
			want := make([]int64, last)
			for i, e := range hist {
				versions[i], want[i] = e.Version, int64(last-i)
			}
			require.Equal(t, want, versions, "one entry per write and successful revert, newest first")
		})
	}
}
