package jsonpatch

import (
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
