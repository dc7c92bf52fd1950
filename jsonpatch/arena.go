package jsonpatch

import (
	"slices"
	"unsafe"
)

// arena hands out slices of T carved from blocks that are kept across
// Applies (in a pooled scratch), so that the containers and children of a
// tree cost one allocation per block instead of one per container, and
// none once the arena has served a tree of that size. A slice it returns
// has no room to grow in place (cap == len), so that append never writes
// into a neighbour's space; grow makes room within the arena.
type arena[T any] struct {
	blocks [][]T
	k      int // the block being carved
	used   int // of blocks[k]
	bytes  int // the size of all blocks
}

// alloc returns a zeroed slice of n elements.
//
// Blocks before k are used up, blocks after it free. A slice of more than a
// quarter of a block gets a block of its own, a free one long enough or a
// new one, moved before k.
func (a *arena[T]) alloc(n int) []T {
	for a.k < len(a.blocks) {
		b := a.blocks[a.k]
		if len(b)-a.used >= n {
			s := b[a.used : a.used+n : a.used+n]
			a.used += n
			return s
		}
		if n > len(b)/4 {
			own := -1
			for j := a.k + 1; j < len(a.blocks); j++ {
				if len(a.blocks[j]) >= n {
					own = j
					break
				}
			}
			var blk []T
			if own >= 0 {
				blk = a.blocks[own]
				copy(a.blocks[a.k+1:own+1], a.blocks[a.k:own])
				a.blocks[a.k] = blk
			} else {
				blk = a.newBlock(n)
				a.blocks = slices.Insert(a.blocks, a.k, blk)
			}
			a.k++
			return blk[:n:n]
		}
		a.k++
		a.used = 0
	}
	// Blocks double from a small one, for small documents, to a size past
	// which a new block wastes little, so that a cold arena allocates
	// little more than a document needs.
	size := 16
	if len(a.blocks) > 0 {
		size = max(16, min(2*len(a.blocks[len(a.blocks)-1]), 8<<10/a.elemSize()))
	}
	a.blocks = append(a.blocks, a.newBlock(max(size, n)))
	a.k, a.used = len(a.blocks)-1, n
	return a.blocks[a.k][:n:n]
}

func (a *arena[T]) elemSize() int {
	var zero T
	return int(unsafe.Sizeof(zero))
}

func (a *arena[T]) newBlock(n int) []T {
	a.bytes += n * a.elemSize()
	return make([]T, n)
}

// reset clears what was handed out (which holds pointers into the
// document and the patch) for reuse, and reports whether the arena is small
// enough to keep.
func (a *arena[T]) reset() bool {
	if a.bytes > keepArena {
		*a = arena[T]{}
		return false
	}
	for k := 0; k < a.k && k < len(a.blocks); k++ {
		clear(a.blocks[k])
	}
	if a.k < len(a.blocks) {
		clear(a.blocks[a.k][:a.used])
	}
	a.k, a.used = 0, 0
	return true
}

// grow returns s with room for one more element at least, carving a new
// slice from a when s is full (its old space is given up until reset).
func grow[T any](a *arena[T], s []T) []T {
	if len(s) < cap(s) {
		return s
	}
	if a.k < len(a.blocks) && len(s) > 0 {
		// s was the last slice carved: extend it in place.
		b, start := a.blocks[a.k], a.used-len(s)
		if start >= 0 && a.used < len(b) && &b[start] == &s[0] {
			a.used += min(max(4, len(s)), len(b)-a.used)
			return b[start : start+len(s) : a.used]
		}
	}
	// As append grows: double small slices, a quarter more for large ones.
	n := max(4, 2*len(s))
	if len(s) >= 256 {
		n = len(s) + len(s)/4
	}
	g := a.alloc(n)
	copy(g, s)
	return g[:len(s)]
}
