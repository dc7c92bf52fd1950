package memories

import (
	"cmp"
	"math"
	"slices"
	"strings"

	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// Relevance.
//
// Agents ask in sentences, so any query word may match. A memory holding
// every word of the query (the folded query split at white space) as a
// substring of its title, a tag or its content, which is what a plain
// substring search finds, comes first: those answers are never lost nor
// pushed down. The other memories sharing a term with the query follow.
// Both groups are ranked by BM25F over the terms of internal/textsearch
// (folded, stemmed, function words dropped, CJK bigrams): each term weighs
// by how rare it is among the memories, and by how often it occurs in each
// field, with the field weights and length normalisation of searchParams.
// Ties go to the newer memory, then the later one in the file.

// searchParams weigh the fields of a memory: title, tags, content. They
// were chosen on two judged evaluations, a conversation stored one remark
// a memory under a heading of a speaker and a date (testdata/dialogue),
// and design documents and progress notes (memorybank's evaluation read as
// memories); TestFieldWeightsAreNearBest keeps them within 0.02 of the
// best of a grid on both. Every field weighs 1: a title weight of 3 gains
// nothing on the documents and one question in 178 on the conversation,
// and would let a heading that is mostly a name and a date, or the first
// line of the content repeated (MakeTitle), outweigh the body; tags
// weighed double lose a rank on the documents. Memories are short, and the
// longer ones tend to say more, so content length is normalised lightly
// (B 0.3: 0.83 recall@5 on the conversation against 0.79 at 0.75); when
// the memories' lengths spread widely (short notes beside long answers)
// the engine raises that B towards 1 itself. A memory tagged "user" or
// "assistant" (a chat kept a message a memory) weighs by its author's role,
// as the bank's documents do (textsearch.ChatRoles).
var searchParams = textsearch.Params{
	Fields: []textsearch.Field{
		{Name: "title", Weight: 1, B: 0.5},
		{Name: "tags", Weight: 1, B: 0.3},
		{Name: "content", Weight: 1, B: 0.3},
	},
	K1:    1.2,
	Roles: textsearch.ChatRoles(),
}

// index is the folded text and the BM25F index of a file's memories,
// built once per version of the file (or extended with a memory appended
// to it; see extend), so a search does not parse and fold the file again.
// The fields of every memory are laid end to end in one
// buffer (each followed by a zero byte), so a memory's text is one slice;
// the distinct tokens of the buffer say which memories may hold a
// substring (substr.go), so a search does not read all of it.
type index struct {
	version string // the store's version ("" for a file that does not exist)
	ms      []Memory
	text    []byte
	starts  []int // starts[3*i+f]: offset of field f (title, tags, body) of memory i
	terms   *textsearch.Index[int]
	sub     substrIndex // the tokens of text, for substring matches
	recency []int32     // recency[i]: memory i's place oldest first (by date, then position)

	// Set by Manager.indexed, for extend.
	ralph bool // the file is in ralph-orchestrator's format
	added int  // memories taken in by extend since the index was built

	dupsState // near-duplicates, computed on first use
}

// maxExtend bounds the memories extend takes in before the index is built
// again: the substring lists of the memories taken in are kept apart
// (substrIndex.extra), and searches merge them.
const maxExtend = 1024

// extend takes in mem, appended at the end of the file, which is now at
// version: the index becomes the one newIndex builds from the memories
// and mem (the same tokens, postings, text and recency; the textsearch
// index's documents in the same order). The caller checks that the file
// parses as the old memories followed by mem.
func (ix *index) extend(version string, mem Memory) {
	i := len(ix.ms)
	ix.ms = append(ix.ms, mem)
	ix.starts = ix.starts[:len(ix.starts)-1] // the end of the text, again below
	var f textsearch.Folder
	tags := strings.Join(mem.Tags, "\n")
	for _, s := range [3]string{mem.Title, tags, mem.Content} {
		ix.starts = append(ix.starts, len(ix.text))
		ix.text = append(f.AppendFold(ix.text, s), 0)
	}
	ix.starts = append(ix.starts, len(ix.text))
	_ = ix.terms.AddAs(i, ix.terms.RoleOf(mem.Tags), mem.Title, tags, mem.Content) // three texts for three fields: no error
	ix.sub.add(ix.text[ix.starts[3*i]:ix.starts[3*i+3]], int32(i))
	// newestFirst puts mem first if no memory is newer: the others keep
	// their places, counted from the oldest.
	newest := true
	for k, r := range ix.recency {
		if int(r) == i && ix.ms[k].Date > mem.Date {
			newest = false
		}
	}
	if newest {
		ix.recency = append(ix.recency, int32(i+1))
	} else {
		ix.recency = make([]int32, len(ix.ms))
		for k, j := range newestFirst(ix.ms) {
			ix.recency[j] = int32(len(ix.ms) - k)
		}
	}
	ix.version = version
	ix.added++
	ix.dupsOf = nil
}

func newIndex(version string, ms []Memory) *index {
	return newIndexWith(version, ms, searchParams, textsearch.Analyzer{})
}

func newIndexWith(version string, ms []Memory, p textsearch.Params, an textsearch.Analyzer) *index {
	ts, err := textsearch.NewIndex[int](p, an)
	if err != nil {
		panic(err) // the parameters are constants, checked by the tests
	}
	ix := &index{version: version, ms: ms, starts: make([]int, 0, 3*len(ms)+1), terms: ts}
	var f textsearch.Folder
	for i := range ms {
		m := &ms[i]
		tags := strings.Join(m.Tags, "\n")
		for _, s := range [3]string{m.Title, tags, m.Content} {
			ix.starts = append(ix.starts, len(ix.text))
			ix.text = append(f.AppendFold(ix.text, s), 0)
		}
		_ = ts.AddAs(i, p.RoleOf(m.Tags), m.Title, tags, m.Content) // three texts for three fields: no error
	}
	ix.starts = append(ix.starts, len(ix.text))
	ix.sub = newSubstrIndex(ix.text, ix.starts, len(ms))
	ix.recency = make([]int32, len(ms))
	for k, i := range newestFirst(ms) {
		ix.recency[i] = int32(len(ms) - k)
	}
	return ix
}

// scored is a match and its relevance.
type scored struct {
	i         int
	score     float64
	substring bool // holds every query word as a substring

	numbersDiffer bool // similarities: the two texts state different numbers
}

// better orders matches: substring matches first, then by score, then
// newer, then later in the file.
func (ix *index) better(a, b scored) bool {
	if a.substring != b.substring {
		return a.substring
	}
	if a.score != b.score {
		return a.score > b.score
	}
	return ix.recency[a.i] > ix.recency[b.i]
}

// rank returns the best limit (<= 0: all) memories matching query, best
// first, and how many match in all. An empty query matches every memory,
// newest first.
func (ix *index) rank(query string, limit int) (out []scored, total int) {
	words := queryWords(query)
	if len(words) == 0 {
		order := newestFirst(ix.ms)
		if limit > 0 {
			order = order[:min(limit, len(order))]
		}
		out = make([]scored, len(order))
		for k, i := range order {
			out[k] = scored{i: i}
		}
		return out, len(ix.ms)
	}
	sub := ix.substringMatches(words)
	var isSub []bool
	if len(sub) > 0 {
		isSub = make([]bool, len(ix.ms))
		for _, i := range sub {
			isSub[i] = true
		}
	}
	// With a limit, the best are kept in a heap of that size; without,
	// every match is kept and sorted once.
	top := textsearch.Top[scored]{Limit: limit, Better: ix.better}
	push := top.Push
	if limit <= 0 {
		if len(sub) > 0 {
			out = make([]scored, 0, len(sub)) // at least the substring matches
		}
		push = func(s scored) { out = append(out, s) }
	}
	scoredSub := 0
	ix.terms.Each(textsearch.QueryTerms(query), nil, func(i int, s float64) {
		hit := isSub != nil && isSub[i]
		if hit {
			scoredSub++
			isSub[i] = false // counted: not pushed again below
		}
		push(scored{i: i, score: s, substring: hit})
		total++
	})
	if scoredSub < len(sub) {
		for _, i := range sub {
			if isSub[i] {
				push(scored{i: i, substring: true})
				total++
			}
		}
	}
	if limit > 0 {
		return top.Sorted(), total
	}
	ix.sortAll(out)
	return out, total
}

// sortAll sorts r by better. Every memory has its own recency, so no two
// matches compare equal and the order is one whatever the sort: here a
// radix sort of a 96-bit key, substring matches first, then the score
// descending (a score is a finite float >= 0, whose bits order as the
// floats do), then the recency descending, in as many byte passes as the
// keys differ in.
func (ix *index) sortAll(r []scored) {
	type key struct {
		hi uint64 // not a substring match (1 bit), then the score, reversed
		lo uint32 // the recency, reversed
		i  int32
	}
	keys := make([]key, len(r))
	for k, s := range r {
		hi := math.MaxInt64 - math.Float64bits(s.score)
		if !s.substring {
			hi |= 1 << 63
		}
		keys[k] = key{hi, math.MaxUint32 - uint32(ix.recency[s.i]), int32(s.i)}
	}
	tmp := make([]key, len(keys))
	for pass := range 12 { // the least significant byte first
		var count [257]int
		digit := func(k *key) int {
			if pass < 4 {
				return int(k.lo >> (8 * pass) & 0xff)
			}
			return int(k.hi >> (8 * (pass - 4)) & 0xff)
		}
		for k := range keys {
			count[digit(&keys[k])+1]++
		}
		if slices.Contains(count[:], len(keys)) {
			continue // every key has the same byte here
		}
		for b := 1; b < len(count); b++ {
			count[b] += count[b-1]
		}
		for k := range keys {
			d := digit(&keys[k])
			tmp[count[d]] = keys[k]
			count[d]++
		}
		keys, tmp = tmp, keys
	}
	for k, key := range keys {
		r[k] = scored{i: int(key.i), score: math.Float64frombits(math.MaxInt64 - key.hi&math.MaxInt64), substring: key.hi>>63 == 0}
	}
}

// queryWords are the distinct words of the folded query, longest first
// (a longer substring is rarer: checked first, it leaves fewer memories to
// check the others in).
func queryWords(query string) []string {
	words := strings.Fields(Fold(query))
	slices.SortStableFunc(words, func(a, b string) int { return cmp.Compare(len(b), len(a)) })
	return slices.Compact(words)
}

// hits returns the memories of r as Hits, with snippets of their content.
func (ix *index) hits(r []scored, query string) []Hit {
	terms := textsearch.QueryTerms(query)
	words := queryWords(query)
	out := make([]Hit, len(r))
	for k, s := range r {
		m := ix.ms[s.i]
		m.Tags = slices.Clone(m.Tags)
		at := -1
		if len(words) > 0 {
			if f := Fold(m.Content); len(f) == len(m.Content) {
				at = strings.Index(f, words[0])
			}
		}
		out[k] = Hit{Memory: m, Score: s.score, Substring: s.substring, Snippet: textsearch.Snippet(m.Content, terms, snippetBytes, at)}
	}
	return out
}

// snippetBytes is about the length of a Hit's snippet.
const snippetBytes = 160

// memories returns copies of the memories at the given ranks.
func (ix *index) memories(r []scored) []Memory {
	out := make([]Memory, len(r))
	for k, s := range r {
		out[k] = ix.ms[s.i]
		out[k].Tags = slices.Clone(out[k].Tags)
	}
	return out
}

// maxPromptTerms bounds the terms of a prompt used to rank memories for an
// injection, the rarest first: enough to find what a prompt is about.
const maxPromptTerms = 32

// relevantFirst orders every memory for an injection: those sharing a
// term with prompt first (function words aside), by BM25F over its rarest
// maxPromptTerms terms, then the rest newest first. ranked is false when
// no memory shares a term, so the order is newest first throughout.
func (ix *index) relevantFirst(prompt string) (order []int, ranked bool) {
	terms := textsearch.QueryTerms(prompt)
	if len(terms) > maxPromptTerms {
		st := ix.terms.Stats(terms)
		k := make([]int, len(terms))
		for i := range k {
			k[i] = i
		}
		// Rarest first; terms no memory holds are useless here.
		slices.SortStableFunc(k, func(a, b int) int {
			da, db := st.DF[a], st.DF[b]
			if (da == 0) != (db == 0) {
				return cmp.Compare(da, db) * -1
			}
			return cmp.Compare(da, db)
		})
		kept := make([]string, 0, maxPromptTerms)
		for _, i := range k[:maxPromptTerms] {
			kept = append(kept, terms[i])
		}
		terms = kept
	}
	score := make([]float64, len(ix.ms))
	ix.terms.Each(terms, nil, func(i int, s float64) {
		score[i] = s
		ranked = true
	})
	order = newestFirst(ix.ms)
	if ranked {
		slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(score[b], score[a]) })
	}
	return order, ranked
}
