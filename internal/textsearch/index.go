package textsearch

import (
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
)

// BM25F.
//
// A document has up to MaxFields fields (for the memories file: title,
// tags, content; for a bank: title and path, tags, text). A term's weight
// in a document is the sum over fields of the field's weight times the
// term's count in it, each count normalised by the field's length relative
// to that field's average (parameter B of the field: 0 ignores length, 1
// normalises fully); the weight is saturated with K1 and multiplied by the
// term's inverse document frequency. A document's score is the sum over
// the query's terms (Robertson and Zaragoza's BM25F).
//
// Two things adapt the formula to the collection. A field's B rises
// towards 1 when the field's lengths spread widely (adaptiveB), so a
// collection mixing short notes and long answers normalises fully while
// one of like documents keeps its B. And a document whose author's role is
// known (AddAs) has its term weights multiplied by the role's weight
// (Params.Roles), as if its text were in a field of that role.

// MaxFields is the most fields a document may have.
const MaxFields = 4

// Field weights a field of the documents.
type Field struct {
	Name   string
	Weight float64 // how much an occurrence here counts, relative to others
	B      float64 // length normalisation, 0 (none) to 1 (full)
}

// Params are an index's fields and saturation.
type Params struct {
	Fields []Field
	K1     float64 // term frequency saturation; 0 means 1.2
	// Roles weigh a document by its author's role (AddAs): an occurrence
	// in a document of role r counts Roles[r] times (> 0). A role not
	// listed, or none, weighs 1.
	Roles map[string]float64
}

// ErrParams: the Params given to NewIndex are unusable.
var ErrParams = errors.New("textsearch: invalid parameters")

// Index is a BM25F inverted index of documents keyed by K. Documents are
// added, replaced and removed one at a time, so an index can follow the
// versions of what it indexes. It is not safe for concurrent writes;
// concurrent reads (Stats, Each, Top) are safe when no write runs.
type Index[K comparable] struct {
	p      Params
	sc     scanner // with a memo of the words seen
	keys   []K
	live   []bool
	lens   [][MaxFields]uint32
	weight []float32 // per document: its role's weight
	byKey  map[K]int32
	termID map[string]int32
	post   [][]posting
	nLive  int
	sumLen [MaxFields]int64
	spread [MaxFields]Spread
	// stored holds, for an index read back (DecodeIndex), the terms it was
	// read with and their postings in stored form, decoded when a search
	// or a change first needs them; termID holds only the terms added
	// since.
	stored *storedTerms

	// per-Add scratch
	tf   [][MaxFields]uint16
	last []int32
	cur  []int32
}

type posting struct {
	doc int32
	tf  [MaxFields]uint16
}

// NewIndex returns an empty index with parameters p, analysing text with
// an.
func NewIndex[K comparable](p Params, an Analyzer) (*Index[K], error) {
	if len(p.Fields) == 0 || len(p.Fields) > MaxFields {
		return nil, fmt.Errorf("%w: %d fields, want 1 to %d", ErrParams, len(p.Fields), MaxFields)
	}
	for _, f := range p.Fields {
		if f.Weight < 0 || f.B < 0 || f.B > 1 || math.IsNaN(f.Weight) || math.IsNaN(f.B) {
			return nil, fmt.Errorf("%w: field %q has weight %v and B %v; want a weight >= 0 and B in [0, 1]", ErrParams, f.Name, f.Weight, f.B)
		}
	}
	if p.K1 == 0 {
		p.K1 = 1.2
	}
	if p.K1 < 0 || math.IsNaN(p.K1) {
		return nil, fmt.Errorf("%w: K1 is %v; want > 0", ErrParams, p.K1)
	}
	for r, w := range p.Roles {
		if !(w > 0) || math.IsInf(w, 0) {
			return nil, fmt.Errorf("%w: role %q has weight %v; want a finite weight > 0 (a role weighs documents, it does not filter them out)", ErrParams, r, w)
		}
	}
	p.Roles = maps.Clone(p.Roles)
	p.Fields = slices.Clone(p.Fields)
	ix := &Index[K]{p: p, byKey: map[K]int32{}, termID: map[string]int32{}}
	ix.sc.a, ix.sc.memo = an, map[string]*memoWord{}
	return ix, nil
}

// Params returns a copy of the index's parameters.
func (ix *Index[K]) Params() Params {
	p := ix.p
	p.Fields, p.Roles = slices.Clone(p.Fields), maps.Clone(p.Roles)
	return p
}

// Len is the number of documents.
func (ix *Index[K]) Len() int { return ix.nLive }

// Has reports whether a document is indexed under key.
func (ix *Index[K]) Has(key K) bool {
	_, ok := ix.byKey[key]
	return ok
}

// Add indexes a document under key, replacing any document it had; fields
// are its fields' texts, in the order of Params.Fields (missing ones are
// empty, extra ones are an error).
func (ix *Index[K]) Add(key K, fields ...string) error { return ix.AddAs(key, "", fields...) }

// AddAs is Add for a document whose author has the given role (a user's
// remark or an assistant's answer, a person's note or an imported page),
// which Params.Roles weighs; "" is no role.
func (ix *Index[K]) AddAs(key K, role string, fields ...string) error {
	if len(fields) > len(ix.p.Fields) {
		return fmt.Errorf("%w: %d field texts for %d fields", ErrParams, len(fields), len(ix.p.Fields))
	}
	ix.Remove(key)
	doc := int32(len(ix.keys))
	var lens [MaxFields]uint32
	ix.cur = ix.cur[:0]
	for f, text := range fields {
		ix.sc.fn = func(t Token) {
			tid := int32(-1)
			if t.word != nil {
				tid = t.word.id
			}
			if tid < 0 {
				var ok bool
				tid, ok = ix.termID[string(t.Term)]
				if !ok && ix.stored != nil {
					tid, ok = ix.stored.find(t.Term)
				}
				if !ok {
					tid = int32(len(ix.post))
					ix.termID[string(t.Term)] = tid
					ix.post = append(ix.post, nil)
				}
				if t.word != nil {
					t.word.id = tid
				}
			}
			for int(tid) >= len(ix.last) {
				ix.last = append(ix.last, -1)
				ix.tf = append(ix.tf, [MaxFields]uint16{})
			}
			if ix.last[tid] != doc {
				ix.last[tid] = doc
				ix.tf[tid] = [MaxFields]uint16{}
				ix.cur = append(ix.cur, tid)
			}
			if ix.tf[tid][f] < math.MaxUint16 {
				ix.tf[tid][f]++
			}
			lens[f]++
		}
		ix.sc.scan(text)
	}
	ix.sc.fn = nil
	for _, tid := range ix.cur {
		ix.post[tid] = append(ix.postings(tid), posting{doc: doc, tf: ix.tf[tid]})
	}
	ix.keys = append(ix.keys, key)
	ix.live = append(ix.live, true)
	ix.lens = append(ix.lens, lens)
	w, ok := ix.p.Roles[role]
	if !ok {
		w = 1
	}
	ix.weight = append(ix.weight, float32(w))
	ix.byKey[key] = doc
	ix.nLive++
	for f := range MaxFields {
		ix.sumLen[f] += int64(lens[f])
		ix.spread[f].add(lens[f], 1)
	}
	return nil
}

// Remove removes the document under key, if any. Its postings are dropped
// when removed documents outnumber the others.
func (ix *Index[K]) Remove(key K) {
	doc, ok := ix.byKey[key]
	if !ok {
		return
	}
	delete(ix.byKey, key)
	ix.live[doc] = false
	ix.nLive--
	for f := range MaxFields {
		ix.sumLen[f] -= int64(ix.lens[doc][f])
		ix.spread[f].add(ix.lens[doc][f], -1)
	}
	if dead := len(ix.keys) - ix.nLive; dead > 1024 && dead > ix.nLive {
		ix.compact()
	}
}

// compact renumbers the live documents and drops the postings of the
// others.
func (ix *Index[K]) compact() {
	ix.decodeAll()
	renum := make([]int32, len(ix.keys))
	keys, live, lens, weight := ix.keys[:0:0], ix.live[:0:0], ix.lens[:0:0], ix.weight[:0:0]
	ix.spread = [MaxFields]Spread{} // summed again, without the drift of subtractions
	for i := range ix.keys {
		renum[i] = -1
		if ix.live[i] {
			renum[i] = int32(len(keys))
			ix.byKey[ix.keys[i]] = renum[i]
			keys, live, lens, weight = append(keys, ix.keys[i]), append(live, true), append(lens, ix.lens[i]), append(weight, ix.weight[i])
			for f := range MaxFields {
				ix.spread[f].add(ix.lens[i][f], 1)
			}
		}
	}
	for tid, ps := range ix.post {
		kept := ps[:0]
		for _, p := range ps {
			if n := renum[p.doc]; n >= 0 {
				kept = append(kept, posting{doc: n, tf: p.tf})
			}
		}
		ix.post[tid] = kept
	}
	ix.keys, ix.live, ix.lens, ix.weight = keys, live, lens, weight
	ix.last = ix.last[:0]
	ix.tf = ix.tf[:0]
}

// Stats are the collection statistics a score needs: documents, summed
// field lengths, the spread of field lengths and, per query term, the
// documents holding it. A search over several indexes (a bank's branches)
// adds theirs up with Merge, so every index scores alike.
type Stats struct {
	N      int
	SumLen [MaxFields]int64
	Spread [MaxFields]Spread
	DF     []int
}

// Merge adds o, computed for the same terms, to s.
func (s *Stats) Merge(o Stats) {
	s.N += o.N
	for f := range MaxFields {
		s.SumLen[f] += o.SumLen[f]
		s.Spread[f].merge(o.Spread[f])
	}
	if s.DF == nil {
		s.DF = make([]int, len(o.DF))
	}
	for i := range o.DF {
		s.DF[i] += o.DF[i]
	}
}

// Stats returns this index's statistics for terms.
func (ix *Index[K]) Stats(terms []string) Stats {
	st := Stats{N: ix.nLive, SumLen: ix.sumLen, Spread: ix.spread, DF: make([]int, len(terms))}
	dead := len(ix.keys) != ix.nLive
	for i, t := range terms {
		tid, ok := ix.lookup(t)
		if !ok {
			continue
		}
		ps := ix.postings(tid)
		if !dead {
			st.DF[i] = len(ps)
			continue
		}
		for _, p := range ps {
			if ix.live[p.doc] {
				st.DF[i]++
			}
		}
	}
	return st
}

// IDF is the inverse document frequency of a term held by df of n
// documents (BM25's, kept positive).
func IDF(df, n int) float64 {
	return math.Log(1 + (float64(n)-float64(df)+0.5)/(float64(df)+0.5))
}

// Each calls fn once with every document holding any of terms and its
// score, scored with the statistics st (nil: this index's own), in no
// particular order.
func (ix *Index[K]) Each(terms []string, st *Stats, fn func(key K, score float64)) {
	if st == nil {
		own := ix.Stats(terms)
		st = &own
	}
	if st.N == 0 {
		return
	}
	var avg, b [MaxFields]float64
	for f, fd := range ix.p.Fields {
		avg[f] = max(float64(st.SumLen[f])/float64(st.N), 1)
		b[f] = adaptiveB(fd.B, st.Spread[f].Sigma())
	}
	scores := make([]float64, len(ix.keys))
	var touched []int32
	k1 := ix.p.K1
	for i, t := range terms {
		tid, ok := ix.lookup(t)
		if !ok || st.DF[i] == 0 {
			continue
		}
		idf := IDF(st.DF[i], st.N)
		for _, p := range ix.postings(tid) {
			if !ix.live[p.doc] {
				continue
			}
			w := 0.0
			lens := &ix.lens[p.doc]
			for f, fd := range ix.p.Fields {
				if p.tf[f] > 0 {
					norm := 1 - b[f] + b[f]*float64(lens[f])/avg[f]
					w += fd.Weight * float64(p.tf[f]) / norm
				}
			}
			w *= float64(ix.weight[p.doc])
			if w == 0 {
				continue
			}
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * w * (k1 + 1) / (w + k1)
		}
	}
	for _, d := range touched {
		fn(ix.keys[d], scores[d])
	}
}

// Hit is a document and its score.
type Hit[K comparable] struct {
	Key   K
	Score float64
}

// Top returns the limit best documents for terms by score, ties broken by
// less (nil: in no set order); limit <= 0 means all of them.
func (ix *Index[K]) Top(terms []string, limit int, less func(a, b K) bool) []Hit[K] {
	var all []Hit[K]
	ix.Each(terms, nil, func(k K, s float64) { all = append(all, Hit[K]{k, s}) })
	better := func(a, b Hit[K]) bool {
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		return less != nil && less(a.Key, b.Key)
	}
	return TopN(all, limit, better)
}

// DocumentParams weigh a bank document's fields, in this order: its title
// and path, its tags, its text. A tag, a word chosen to find the
// document by, counts double; a title word counts as a word of the text
// (its short length still gives it more weight): on memorybank's judged
// evaluation a title weight of 1 ranks best (MRR 0.986 against 0.967 for
// 2 to 5, the bank's 3 included; TestBankQuality), and a heading that is
// mostly a name and a date does not outweigh the body. A document tagged
// with its author's role weighs by ChatRoles.
var DocumentParams = Params{
	Fields: []Field{
		{Name: "title", Weight: 1, B: 0.4},
		{Name: "tags", Weight: 2, B: 0.3},
		{Name: "text", Weight: 1, B: 0.75},
	},
	K1:    1.2,
	Roles: ChatRoles(),
}

// ChatRoles returns the weights of the messages of a chat stored a
// message a document (or a memory), tagged "user" or "assistant": the
// user's words count double,
// the assistant's 0.7. Most of what is later asked about was said by the
// user, in a short message, while the assistant's long answers repeat the
// subject's words. Chosen on textsearchtest's mixed messages (155
// questions, a fifth of them answered by the assistant) among user 1 to 5
// and assistant 0.5 to 1: it is best or within a question of the best on
// recall_any@5 and evidence recall@10 for both the bank and the memories
// (0.671 and 0.691 against 0.652 and 0.685 unweighted, bank), and within
// 0.011 of the best MRR; heavier weights gain nothing more. Other roles
// weigh 1: no set here says how to weigh them.
func ChatRoles() map[string]float64 { return map[string]float64{"user": 2, "assistant": 0.7} }
