package jsonpatch

import (
	"errors"
	"math/rand/v2"
	"sync"
	"testing"

	evanphx "github.com/evanphx/json-patch/v5"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch/internal/benchgen"
)

// TestArena checks that the slices an arena hands out never share memory,
// whether carved, given a block of their own, or grown, across resets that
// reuse the blocks: a tree's containers rely on it.
func TestArena(t *testing.T) {
	var a arena[int]
	rng := rand.New(rand.NewPCG(1, 2))
	for round := range 6 {
		var live [][]int
		for id := 1; id <= 400; id++ {
			var s []int
			if len(live) > 0 && rng.IntN(3) == 0 {
				// Grow one of them by appending, as appendMember does.
				k := rng.IntN(len(live))
				s = live[k]
				for range 1 + rng.IntN(40) {
					s = append(grow(&a, s), s[0])
				}
				live[k] = s
				continue
			}
			n := rng.IntN(8)
			if rng.IntN(10) == 0 {
				n = rng.IntN(3000) // larger than blocks
			}
			s = a.alloc(n)
			require.Len(t, s, n)
			require.Equal(t, n, cap(s), "no room to grow in place")
			for i := range s {
				if s[i] != 0 {
					t.Fatalf("round %d: a handed-out slice is not zeroed", round)
				}
				s[i] = id
			}
			if n == 0 {
				s = append(grow(&a, s), id)
			}
			live = append(live, s)
		}
		for _, s := range live {
			for _, v := range s {
				if v != s[0] {
					t.Fatalf("round %d: a slice was overwritten by another", round)
				}
			}
		}
		ok := a.reset()
		require.True(t, ok)
	}
	blocks := len(a.blocks)
	a.alloc(100)
	a.reset()
	assert.Len(t, a.blocks, blocks, "a warm arena serves a smaller tree from the blocks it has")

	a.alloc(keepArena) // more than keepArena bytes in all
	assert.False(t, a.reset(), "a giant arena is not kept")
	assert.Empty(t, a.blocks)
}

// TestApplyReusesArenas applies patches to documents of different sizes in
// turn, from several goroutines, with patches that fail halfway among them,
// so that each Apply gets arenas another one used (and maybe left after an
// error): the results must be those of evanphx every time.
func TestApplyReusesArenas(t *testing.T) {
	type job struct {
		doc   []byte
		patch Patch
		want  string // "" for the failing patch
	}
	var jobs []job
	for k, size := range []int{2 << 10, 30 << 10, 150 << 10} {
		doc, n := benchgen.Doc(size)
		raw := benchgen.Patch(n, 400, uint64(k))
		p, err := Decode(raw)
		require.NoError(t, err)
		ep, err := evanphx.DecodePatch(raw)
		require.NoError(t, err)
		want, err := ep.ApplyWithOptions(doc, &evanphx.ApplyOptions{EscapeHTML: false})
		require.NoError(t, err)
		jobs = append(jobs, job{doc, p, string(want)})
		// The same operations, then one that fails after them all.
		failing := append(p[:len(p):len(p)], Operation{Op: OpTest, Path: "/meta/id", Value: []byte(`"other"`)})
		jobs = append(jobs, job{doc, failing, ""})
	}
	var wg sync.WaitGroup
	for g := range 3 {
		wg.Go(func() {
			for i := range 12 {
				j := jobs[(g+i*5)%len(jobs)]
				out, err := Apply(j.doc, j.patch)
				if j.want == "" {
					var opErr *OperationError
					if assert.ErrorIs(t, err, ErrTestFailed) && errors.As(err, &opErr) {
						assert.Equal(t, len(j.patch)-1, opErr.Index)
					}
					continue
				}
				if assert.NoError(t, err) {
					assert.Equal(t, j.want, string(out))
				}
			}
		})
	}
	wg.Wait()
}
