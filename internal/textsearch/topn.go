package textsearch

import "slices"

// Top keeps the Limit best of the items pushed into it, by Better (a
// strict order: Better(a, b) when a ranks before b), in O(log Limit) a
// push; Limit <= 0 keeps them all.
type Top[T any] struct {
	Limit  int
	Better func(a, b T) bool
	h      []T // with a limit: a heap, the worst at its root
}

// Push offers an item.
func (t *Top[T]) Push(it T) {
	h, better := t.h, t.Better
	switch {
	case t.Limit <= 0 || len(h) < t.Limit:
		h = append(h, it)
		if t.Limit > 0 {
			for i := len(h) - 1; i > 0; {
				parent := (i - 1) / 2
				if !better(h[parent], h[i]) {
					break
				}
				h[parent], h[i] = h[i], h[parent]
				i = parent
			}
		}
	case better(it, h[0]):
		h[0] = it
		for i := 0; ; {
			worst, l, r := i, 2*i+1, 2*i+2
			if l < len(h) && better(h[worst], h[l]) {
				worst = l
			}
			if r < len(h) && better(h[worst], h[r]) {
				worst = r
			}
			if worst == i {
				break
			}
			h[i], h[worst] = h[worst], h[i]
			i = worst
		}
	}
	t.h = h
}

// Sorted returns the items kept, best first.
func (t *Top[T]) Sorted() []T {
	better := t.Better
	slices.SortFunc(t.h, func(a, b T) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	})
	return t.h
}

// TopN returns the limit best of items, best first, by better; limit <= 0
// means all of them. It takes O(n log limit) time.
func TopN[T any](items []T, limit int, better func(a, b T) bool) []T {
	t := Top[T]{Limit: limit, Better: better}
	if limit <= 0 || limit >= len(items) {
		t.Limit = 0
		t.h = items
		return t.Sorted()
	}
	for _, it := range items {
		t.Push(it)
	}
	return t.Sorted()
}
