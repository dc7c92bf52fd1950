package textsearch

import "slices"

// TopN returns the limit best of items, best first, by better (a strict
// order: better(a, b) when a ranks before b); limit <= 0 means all of
// them. It takes O(n log limit) time and reorders items.
func TopN[T any](items []T, limit int, better func(a, b T) bool) []T {
	cmp := func(a, b T) int {
		switch {
		case better(a, b):
			return -1
		case better(b, a):
			return 1
		}
		return 0
	}
	if limit <= 0 || limit >= len(items) {
		slices.SortFunc(items, cmp)
		return items
	}
	// A heap of the limit best so far, the worst at its root.
	h := items[:0:0]
	for _, it := range items {
		switch {
		case len(h) < limit:
			h = append(h, it)
			for i := len(h) - 1; i > 0; {
				parent := (i - 1) / 2
				if !better(h[parent], h[i]) {
					break
				}
				h[parent], h[i] = h[i], h[parent]
				i = parent
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
	}
	slices.SortFunc(h, cmp)
	return h
}
