package memories

import (
	"bytes"
	"slices"
)

// Substring candidates.
//
// A search puts first the memories holding every query word as a
// substring of their folded fields. Looking for a word in the whole folded
// file costs a pass over all of it (10 MB for 40,000 memories) on every
// query, so the index keeps, once per version of the file, its tokens: the
// maximal runs of bytes that are not ASCII separators (anything but
// letters and digits; bytes of 0x80 and above, so every non-ASCII
// character, belong to tokens), each token once, with the memories that
// hold it.
//
// A word found in a memory's text is found there with each of its own
// runs of token bytes, and such a run, holding no separator, lies inside
// one token of that text. So the memories holding a word are among those
// holding, for each run of the word, a token that contains the run; the
// tokens are looked through instead of the text (the distinct tokens are
// a small part of it). A word that is one run (no separator at all) is
// held by exactly those memories, with no further check; any other word is
// checked in each candidate's text, as before. A word made only of
// separators narrows nothing: it is checked in every memory left.

// isSep reports whether c separates tokens.
func isSep(c byte) bool {
	return c < 0x80 && !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || 'A' <= c && c <= 'Z')
}

// eachToken calls fn with every token of b (maximal run of non-separators),
// in order.
func eachToken(b []byte, fn func(tok []byte)) {
	for i := 0; i < len(b); {
		for i < len(b) && isSep(b[i]) {
			i++
		}
		j := i
		for j < len(b) && !isSep(b[j]) {
			j++
		}
		if j > i {
			fn(b[i:j])
		}
		i = j
	}
}

// substrIndex lists the distinct tokens of the folded text and the
// memories holding each.
type substrIndex struct {
	vocab []byte  // every distinct token, each followed by a 0 byte
	vend  []int32 // vend[t]: the offset in vocab just past token t's 0 byte
	post  []int32 // post[t]: the end of token t's memories in docs (they start at post[t-1], or 0)
	docs  []int32 // the memories holding each token, ascending

	// Set by add: the memories added since, holding token t, are
	// extra[t] (after those of list), and ids[token] is t.
	extra map[int32][]int32
	ids   map[string]int32
}

// add indexes the tokens of text, the folded fields of memory i, which
// comes after every memory indexed.
func (sx *substrIndex) add(text []byte, i int32) {
	if sx.ids == nil {
		sx.ids = make(map[string]int32, len(sx.vend))
		sx.extra = map[int32][]int32{}
		from := 0
		for t, end := range sx.vend {
			sx.ids[string(sx.vocab[from:end-1])] = int32(t)
			from = int(end)
		}
	}
	eachToken(text, func(tok []byte) {
		t, ok := sx.ids[string(tok)]
		if !ok { // a new token: its list, [i], goes at the end of docs
			t = int32(len(sx.vend))
			sx.ids[string(tok)] = t
			sx.vocab = append(append(sx.vocab, tok...), 0)
			sx.vend = append(sx.vend, int32(len(sx.vocab)))
			sx.docs = append(sx.docs, i)
			sx.post = append(sx.post, int32(len(sx.docs)))
			return
		}
		last := sx.docs[sx.post[t]-1] // every token has a memory
		if more := sx.extra[t]; len(more) > 0 {
			last = more[len(more)-1]
		}
		if last != i {
			sx.extra[t] = append(sx.extra[t], i)
		}
	})
}

// newSubstrIndex indexes the tokens of text, whose memory i lies in
// text[starts[3*i]:starts[3*i+3]].
func newSubstrIndex(text []byte, starts []int, n int) substrIndex {
	ids := map[string]int32{}
	var (
		vend   []int32
		vocab  []byte
		lists  [][]int32
		last   []int32 // last[t]: the last memory listed for token t
		memory int32
	)
	for i := range n {
		memory = int32(i)
		eachToken(text[starts[3*i]:starts[3*i+3]], func(tok []byte) {
			t, ok := ids[string(tok)]
			if !ok {
				t = int32(len(lists))
				ids[string(tok)] = t
				vocab = append(append(vocab, tok...), 0)
				vend = append(vend, int32(len(vocab)))
				lists = append(lists, nil)
				last = append(last, -1)
			}
			if last[t] != memory {
				last[t] = memory
				lists[t] = append(lists[t], memory)
			}
		})
	}
	total := 0
	for _, l := range lists {
		total += len(l)
	}
	sx := substrIndex{vocab: slices.Clip(vocab), vend: slices.Clip(vend), post: make([]int32, len(lists)), docs: make([]int32, 0, total)}
	for t, l := range lists {
		sx.docs = append(sx.docs, l...)
		sx.post[t] = int32(len(sx.docs))
	}
	return sx
}

// bytes is the memory the index takes.
func (sx *substrIndex) bytes() int {
	n := len(sx.vocab) + 4*(len(sx.vend)+len(sx.post)+len(sx.docs))
	for _, l := range sx.extra {
		n += 4 * len(l)
	}
	return n
}

// holding returns the tokens containing run (which holds no separator).
func (sx *substrIndex) holding(run []byte) []int32 {
	var out []int32
	for at := 0; at < len(sx.vocab); {
		k := bytes.Index(sx.vocab[at:], run)
		if k < 0 {
			break
		}
		// The token holding the match: the first ending after it.
		t, _ := slices.BinarySearch(sx.vend, int32(at+k+1))
		out = append(out, int32(t))
		at = int(sx.vend[t])
	}
	return out
}

// list returns the memories holding token t.
func (sx *substrIndex) list(t int32) []int32 {
	from := int32(0)
	if t > 0 {
		from = sx.post[t-1]
	}
	if more := sx.extra[t]; len(more) > 0 {
		return append(slices.Clip(sx.docs[from:sx.post[t]]), more...)
	}
	return sx.docs[from:sx.post[t]]
}

// size is the number of memories listed under the tokens ts, counting a
// memory once per token.
func (sx *substrIndex) size(ts []int32) int {
	n := 0
	for _, t := range ts {
		from := int32(0)
		if t > 0 {
			from = sx.post[t-1]
		}
		n += int(sx.post[t]-from) + len(sx.extra[t])
	}
	return n
}

// union returns the memories holding any of the tokens ts, ascending.
// seen is scratch of one bit per memory, all clear, and left clear.
func (sx *substrIndex) union(ts []int32, seen []uint64) []int32 {
	if len(ts) == 1 {
		return sx.list(ts[0])
	}
	var out []int32
	for _, t := range ts {
		for _, d := range sx.list(t) {
			if seen[d>>6]&(1<<(d&63)) == 0 {
				seen[d>>6] |= 1 << (d & 63)
				out = append(out, d)
			}
		}
	}
	for _, d := range out {
		seen[d>>6] = 0
	}
	slices.Sort(out)
	return out
}

// intersect returns the memories of a also in b (both ascending), in
// place of a when a is owned.
func intersect(a, b []int32, owned bool) []int32 {
	out := a[:0]
	if !owned {
		out = make([]int32, 0, min(len(a), len(b)))
	}
	j := 0
	for _, d := range a {
		for j < len(b) && b[j] < d {
			j++
		}
		if j == len(b) {
			break
		}
		if b[j] == d {
			out = append(out, d)
		}
	}
	return out
}

// runs returns the runs of token bytes of w.
func runs(w []byte) [][]byte {
	var out [][]byte
	eachToken(w, func(tok []byte) { out = append(out, tok) })
	return out
}

// substringMatches returns the memories holding every word as a substring
// of a field, in file order.
func (ix *index) substringMatches(words []string) []int {
	n := len(ix.ms)
	if n == 0 {
		return nil
	}
	type part struct {
		word   int
		tokens []int32
		size   int
	}
	var parts []part
	verify := make([]bool, len(words))
	for k, w := range words {
		rs := runs([]byte(w))
		verify[k] = len(rs) != 1 || len(rs[0]) != len(w)
		for _, r := range rs {
			ts := ix.sub.holding(r)
			if len(ts) == 0 {
				return nil // no memory holds this run, so none holds w
			}
			parts = append(parts, part{word: k, tokens: ts, size: ix.sub.size(ts)})
		}
	}
	// The narrowest first. A part much wider than the memories left is
	// cheaper to check in their text than to list, and so is one that
	// lists more memories than there are under several tokens (a letter,
	// a piece of many words): merging its lists costs more than looking
	// for it in every memory.
	slices.SortStableFunc(parts, func(a, b part) int { return a.size - b.size })
	var (
		cands []int32
		owned bool
		seen  []uint64
		have  bool
	)
	for _, p := range parts {
		if have && p.size > 8*len(cands) || !have && len(p.tokens) > 1 && p.size > n {
			verify[p.word] = true
			continue
		}
		if seen == nil && len(p.tokens) > 1 {
			seen = make([]uint64, (n+63)/64)
		}
		set := ix.sub.union(p.tokens, seen)
		if !have {
			cands, owned, have = set, len(p.tokens) > 1, true
			continue
		}
		cands, owned = intersect(cands, set, owned), true
		if len(cands) == 0 {
			return nil
		}
	}
	var check [][]byte
	for k, w := range words {
		if verify[k] {
			check = append(check, []byte(w))
		}
	}
	var out []int
	if !have {
		out = make([]int, 0, n)
		for i := range n {
			out = append(out, i)
		}
	} else {
		out = make([]int, len(cands))
		for k, i := range cands {
			out[k] = int(i)
		}
	}
	if len(check) == 0 {
		return out
	}
	kept := out[:0]
	for _, i := range out {
		text := ix.text[ix.starts[3*i]:ix.starts[3*i+3]]
		all := true
		for _, w := range check {
			if !bytes.Contains(text, w) {
				all = false
				break
			}
		}
		if all {
			kept = append(kept, i)
		}
	}
	return kept
}
