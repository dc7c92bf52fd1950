package jsonpatch

import (
	"encoding/json"
	"strconv"
	"strings"
)

// Grouping: evanphx parses and re-encodes the whole document, whatever the
// patch touches. When every operation works below some member (the parent of
// its path, and of its from), operations are grouped by the shallowest such
// root, and evanphx runs once per group on that subtree only; the results are
// spliced into the document, whose other bytes are only validated, scanned
// once and compacted. Groups never overlap (no group root lies inside
// another), so they are independent and their order does not matter. A
// group evanphx fails, or with operations it would misread, takes the slow
// path on its own subtree; across groups, the failure reported is that of
// the first failing operation in patch order.

type group struct {
	root string // escaped pointer, a strict prefix (at a "/") of every pointer of its ops
	ops  []int
	at   span
}

// minGroupGain: without operations that need exact evaluation, grouping is
// used only when the subtrees it hands to evanphx are at most this fraction
// of the document; otherwise one whole-document call is as cheap.
const minGroupGain = 2

// applyGroups applies the patch group by group when it can (handled); when
// it cannot, the caller falls back to the whole document. A group that
// evanphx fails, or that holds operations needing exact evaluation, goes
// through the slow path on its own subtree; the error reported is the one
// of the first failing operation in patch order, as if applied in sequence.
func (p *patcher) applyGroups(d []byte, patch Patch, pr *prepared) ([]byte, bool, error) {
	groups, byRoot := planGroups(patch)
	if groups == nil || !locateGroups(d, groups, byRoot) {
		return nil, false, nil
	}
	covered := 0
	for _, g := range groups {
		covered += g.at.end - g.at.start
	}
	if (!pr.anyExact && covered*minGroupGain > len(d)) || !json.Valid(d) {
		return nil, false, nil
	}
	if p.maxCopy >= 0 {
		// Copies are counted here, in patch order, so that the groups need
		// not count them; when that cannot be done up front, or the patch
		// goes over the limit, the whole-document path counts and reports.
		total, known := copySizes(d, patch, groups)
		if !known || total > p.maxCopy {
			return nil, false, nil
		}
	}
	work := new(int64)
	results := make([][]byte, len(groups))
	failed, firstErr := -1, error(nil)
	for k, g := range groups {
		if failed >= 0 && g.ops[0] > failed {
			break // groups are in order of their first operation
		}
		sub := d[g.at.start:g.at.end]
		rel := make(Patch, len(g.ops))
		for n, i := range g.ops {
			rel[n] = patch[i]
			rel[n].Path = rel[n].Path[len(g.root):]
			if rel[n].Op == OpMove || rel[n].Op == OpCopy {
				rel[n].From = rel[n].From[len(g.root):]
			}
		}
		relPr := p.prepare(rel)
		knownFail := false
		if !relPr.anyExact {
			r, err := p.engine(sub, relPr.segment(0, len(rel)), 0)
			if err == nil {
				results[k] = r
				continue
			}
			knownFail = true
		}
		base, _ := ParsePointer(g.root)
		st := &state{negOK: p.negativeIdx, maxCopy: -1, base: base, work: work}
		r, n, err := p.slow(sub, rel, relPr, knownFail, st)
		if err != nil {
			if i := g.ops[n]; failed < 0 || i < failed {
				failed, firstErr = i, opError(i, patch[i], err)
			}
			continue
		}
		results[k] = appendCompact(make([]byte, 0, len(r)), r)
	}
	if failed >= 0 {
		return nil, true, firstErr
	}
	sortGroups(groups, results)
	size := len(d)
	for k, g := range groups {
		size += len(results[k]) - (g.at.end - g.at.start)
	}
	out := make([]byte, 0, size)
	prev := 0
	for k, g := range groups {
		out = appendCompact(out, d[prev:g.at.start])
		out = append(out, results[k]...)
		prev = g.at.end
	}
	return appendCompact(out, d[prev:]), true, nil
}

// planGroups assigns each operation to the shallowest root among all the
// operations' roots that prefixes its own. nil: some operation works at the
// top level, so the whole document is the only group.
func planGroups(patch Patch) ([]*group, map[string]*group) {
	roots := make(map[string]bool, len(patch))
	opRoot := make([]string, len(patch))
	for i, op := range patch {
		r := parentPointer(op.Path)
		if op.Op == OpMove || op.Op == OpCopy {
			r = commonRoot(r, parentPointer(op.From))
		}
		if r == "" {
			return nil, nil
		}
		roots[r] = true
		opRoot[i] = r
	}
	byRoot := make(map[string]*group)
	var groups []*group
	for i, r := range opRoot {
		top := r
		for k := 1; k < len(r); k++ {
			if r[k] == '/' && roots[r[:k]] {
				top = r[:k]
				break
			}
		}
		g := byRoot[top]
		if g == nil {
			g = &group{root: top}
			byRoot[top] = g
			groups = append(groups, g)
		}
		g.ops = append(g.ops, i)
	}
	return groups, byRoot
}

func parentPointer(p string) string {
	if p == "" {
		return ""
	}
	return p[:strings.LastIndexByte(p, '/')]
}

// commonRoot is the longest common prefix of two pointers that ends at a
// token boundary.
func commonRoot(a, b string) string {
	n := min(len(a), len(b))
	last := 0
	for i := 0; i < n; i++ {
		if a[i] != b[i] {
			return a[:last]
		}
		if a[i] == '/' {
			last = i
		}
	}
	if len(a) == len(b) || (len(a) > n && a[n] == '/') || (len(b) > n && b[n] == '/') {
		return a[:n]
	}
	return a[:last]
}

// trie of unescaped tokens leading to group roots.
type trie struct {
	next map[string]*trie
	g    *group
}

// locateGroups finds every group root's value in one pass over d. The
// document is not validated yet: a malformed one may end the walk early
// (reported as not found) but never reads out of bounds.
func locateGroups(d []byte, groups []*group, byRoot map[string]*group) (found bool) {
	defer func() {
		if recover() != nil {
			found = false
		}
	}()
	root := &trie{}
	for _, g := range groups {
		toks, _ := ParsePointer(g.root)
		t := root
		for _, tok := range toks {
			if t.next == nil {
				t.next = make(map[string]*trie)
			}
			c := t.next[tok]
			if c == nil {
				c = &trie{}
				t.next[tok] = c
			}
			t = c
		}
		t.g = g
		g.at = span{-1, -1}
	}
	walkTrie(d, span{0, len(d)}, root)
	for _, g := range groups {
		if g.at.start < 0 {
			return false
		}
		if c := d[g.at.start]; c != '{' && c != '[' {
			return false
		}
	}
	return true
}

func walkTrie(d []byte, v span, t *trie) {
	c := d[v.start]
	if c != '{' && c != '[' {
		return
	}
	for n, ch := range children(d, v) {
		key := ch.key
		if c == '[' {
			key = strconv.Itoa(n)
		}
		next := t.next[key]
		if next == nil {
			continue
		}
		if next.g != nil {
			next.g.at = ch.val
			continue
		}
		walkTrie(d, ch.val, next)
	}
}

// copySizes adds up, in bytes of compact JSON, what the copy operations
// duplicate, read from the document as it was: known only when no earlier
// operation of the same group can have changed a copy's source.
func copySizes(d []byte, patch Patch, groups []*group) (total int64, known bool) {
	const budget = 1 << 16 // comparisons; beyond that, let evanphx count
	work := 0
	for _, g := range groups {
		for n, i := range g.ops {
			op := patch[i]
			if op.Op != OpCopy {
				continue
			}
			work += n
			if work > budget {
				return 0, false
			}
			for _, j := range g.ops[:n] {
				q := patch[j]
				if q.Op == OpTest {
					continue
				}
				if mayChange(q.Path, op.From) || (q.Op == OpMove && mayChange(q.From, op.From)) {
					return 0, false
				}
			}
			toks, _ := ParsePointer(op.From[len(g.root):])
			sub := d[g.at.start:g.at.end]
			at, err := resolve(sub, nil, toks, false)
			if err != nil {
				return 0, false // the copy fails; the slow path says why
			}
			total += compactLen(sub[at.start:at.end])
		}
	}
	return total, true
}

// mayChange reports whether writing at pointer t may change the value at f.
func mayChange(t, f string) bool {
	if t == f || strings.HasPrefix(f, t+"/") || strings.HasPrefix(t, f+"/") {
		return true
	}
	parent := parentPointer(t)
	if !strings.HasPrefix(f, parent+"/") {
		return false
	}
	// t is a sibling of f's ancestor at this level: only array shifts matter.
	next := f[len(parent)+1:]
	if k := strings.IndexByte(next, '/'); k >= 0 {
		next = next[:k]
	}
	last := t[len(parent)+1:]
	return indexLike(next) && indexLike(last)
}

func indexLike(tok string) bool {
	return tok == "-" || allDigits(tok) || (len(tok) > 1 && tok[0] == '-' && allDigits(tok[1:]))
}

func sortGroups(groups []*group, results [][]byte) {
	// insertion sort by position; groups are few relative to the work per group
	for i := 1; i < len(groups); i++ {
		for j := i; j > 0 && groups[j].at.start < groups[j-1].at.start; j-- {
			groups[j], groups[j-1] = groups[j-1], groups[j]
			results[j], results[j-1] = results[j-1], results[j]
		}
	}
}

// appendCompact appends a fragment of valid JSON that starts outside any
// string, without insignificant whitespace.
func appendCompact(dst, src []byte) []byte {
	inStr := false
	start := 0
	for i := 0; i < len(src); i++ {
		c := src[i]
		if inStr {
			if c == '\\' {
				i++
			} else if c == '"' {
				inStr = false
			}
			continue
		}
		if c == '"' {
			inStr = true
		} else if isSpace(c) {
			dst = append(dst, src[start:i]...)
			start = i + 1
		}
	}
	return append(dst, src[start:]...)
}
