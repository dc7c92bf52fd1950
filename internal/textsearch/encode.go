package textsearch

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"
	"sync"
)

// The stored form of an index.
//
// An index can be written out (AppendBinary) and read back (DecodeIndex),
// so that a process need not analyse again texts an earlier one indexed.
// The form holds the documents' field lengths and role weights and every
// term with its postings; not the keys, which the caller stores beside it
// in the same order, nor the texts. It begins with a fingerprint of the
// parameters and of the analysis (the terms a fixed probe text gives with
// the Analyzer), so an index written by another version of the analyzer,
// or with other weights, is refused rather than scored wrongly. Reading
// checks every count against the bytes left, so a damaged form costs an
// error, never a panic or an allocation out of proportion to the input
// (a few times its size at most). It is not
// a checksum: a caller that keeps it where it may be damaged checks its
// bytes itself.
//
// Read back, an index scores as the index it was written from (its
// collection statistics are summed again from the field lengths).

// ErrEncoding: the bytes given to DecodeIndex are not an index this
// package wrote with the same parameters and analysis.
var ErrEncoding = errors.New("textsearch: not a usable stored index")

const encodingMagic = "tsix1"

// Fingerprint identifies the scoring parameters p and the analysis of an:
// two indexes with the same fingerprint give a text the same terms and
// weigh them alike.
func Fingerprint(p Params, an Analyzer) uint64 {
	h := fnv.New64a()
	var b []byte
	b = strconv.AppendFloat(b, p.K1, 'g', -1, 64)
	for _, f := range p.Fields {
		b = append(b, '|')
		b = append(b, f.Name...)
		b = strconv.AppendFloat(append(b, ','), f.Weight, 'g', -1, 64)
		b = strconv.AppendFloat(append(b, ','), f.B, 'g', -1, 64)
	}
	roles := make([]string, 0, len(p.Roles))
	for r := range p.Roles {
		roles = append(roles, r)
	}
	slices.Sort(roles)
	for _, r := range roles {
		b = append(append(b, '|'), r...)
		b = strconv.AppendFloat(append(b, '='), p.Roles[r], 'g', -1, 64)
	}
	b = append(b, '#')
	if an.Stemmer == nil {
		b = append(b, defaultProbeTerms()...)
	} else {
		b = appendProbeTerms(b, an)
	}
	h.Write(b)
	return h.Sum64()
}

// appendProbeTerms appends the terms an gives the probe text.
func appendProbeTerms(b []byte, an Analyzer) []byte {
	an.Analyze(fingerprintProbe, func(t Token) {
		b = append(append(b, t.Term...), 0)
	})
	return b
}

// defaultProbeTerms are the probe's terms with the default analysis, which
// does not change while the program runs.
var defaultProbeTerms = sync.OnceValue(func() []byte { return appendProbeTerms(nil, Analyzer{}) })

// fingerprintProbe exercises each step of the analysis: case and width
// folding, accents, camel case, stemming, digits, the cut of long words,
// and bigrams of Chinese, Japanese and Korean.
const fingerprintProbe = "The QUICK foxes were Running; activeContext retryPolicy ＦＵＬＬwidth Straße naïve café " +
	"failing adapters queries studies happily generalization 2026-11-29 v1.2 " +
	"認証方式の期限 缓存策略 数据库迁移 エラー処理はどうしますか 한국어 검색 " +
	"Supercalifragilisticexpialidocious-and-then-some-extraordinarilylongwordthatgoesonandonforever"

// AppendBinary appends to b the stored form of the documents whose key
// keep accepts (nil: all), and returns their keys in the order written,
// which DecodeIndex takes.
func (ix *Index[K]) AppendBinary(b []byte, keep func(K) bool) ([]byte, []K) {
	ix.decodeAll()
	renum := make([]int32, len(ix.keys)) // document -> its number here, plus one
	var keys []K
	for d, k := range ix.keys {
		if ix.live[d] && (keep == nil || keep(k)) {
			keys = append(keys, k)
			renum[d] = int32(len(keys))
		}
	}
	nf := len(ix.p.Fields)
	b = append(b, encodingMagic...)
	b = binary.LittleEndian.AppendUint64(b, Fingerprint(ix.p, ix.sc.a))
	b = binary.AppendUvarint(b, uint64(len(keys)))
	for d := range ix.keys {
		if renum[d] > 0 {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(ix.weight[d]))
			for f := range nf {
				b = binary.AppendUvarint(b, uint64(ix.lens[d][f]))
			}
		}
	}
	// The terms, sorted, each with its number of postings and their bytes;
	// then the postings. Documents keep their order, so a term's postings
	// stay in increasing order of document.
	// The terms added since the index was read back are sorted, then
	// merged with the stored ones, which are sorted already.
	type term struct {
		prefix uint64 // the first 8 bytes, big-endian: most comparisons end here
		t      string
		tid    int32
	}
	mk := func(t string, tid int32) term {
		var pre [8]byte
		copy(pre[:], t)
		return term{binary.BigEndian.Uint64(pre[:]), t, tid}
	}
	cmpTerm := func(a, b term) int {
		if a.prefix != b.prefix {
			if a.prefix < b.prefix {
				return -1
			}
			return 1
		}
		return strings.Compare(a.t, b.t)
	}
	added := make([]term, 0, len(ix.termID))
	for t, tid := range ix.termID {
		added = append(added, mk(t, tid))
	}
	slices.SortFunc(added, cmpTerm)
	terms := make([]term, 0, len(added)+ix.storedLen())
	for i := range ix.storedLen() {
		st := mk(ix.stored.term(i), int32(i))
		for len(added) > 0 && cmpTerm(added[0], st) < 0 {
			terms, added = append(terms, added[0]), added[1:]
		}
		terms = append(terms, st)
	}
	terms = append(terms, added...)
	postings := 0
	for _, t := range terms {
		postings += len(ix.post[t.tid])
	}
	blob := make([]byte, 0, 8*len(terms))
	table := make([]byte, 0, 4*len(terms))
	post := make([]byte, 0, postings*(1+nf))
	n := 0
	for _, t := range terms {
		from, count, prev := len(post), 0, int32(-1)
		for _, p := range ix.post[t.tid] {
			d := renum[p.doc] - 1
			if d < 0 {
				continue
			}
			post = binary.AppendUvarint(post, uint64(d-prev))
			prev = d
			for f := range nf {
				post = binary.AppendUvarint(post, uint64(p.tf[f]))
			}
			count++
		}
		if count == 0 {
			continue
		}
		n++
		blob = append(blob, t.t...)
		table = binary.AppendUvarint(table, uint64(len(t.t)))
		table = binary.AppendUvarint(table, uint64(count))
		table = binary.AppendUvarint(table, uint64(len(post)-from))
	}
	b = binary.AppendUvarint(b, uint64(n))
	b = binary.AppendUvarint(b, uint64(len(blob)))
	b = append(b, blob...)
	b = append(b, table...)
	b = binary.AppendUvarint(b, uint64(len(post)))
	return append(b, post...), keys
}

func (ix *Index[K]) storedLen() int {
	if ix.stored == nil {
		return 0
	}
	return len(ix.stored.ends)
}

// storedTerms are the terms of an index read back, sorted, and their
// postings in stored form (checked when read), decoded term by term.
type storedTerms struct {
	mu      sync.Mutex // guards decoding, which searches may start concurrently
	blob    string     // the terms back to back
	ends    []uint32   // term i is blob[ends[i-1]:ends[i]]
	post    []byte     // the postings
	at      []uint32   // term i's postings are post[at[i]:at[i+1]]
	counts  []uint32   // how many postings term i has stored
	decoded []bool
	renum   []int32 // stored document -> document, -1 when left out
	nf      int
}

func (s *storedTerms) term(i int) string {
	from := uint32(0)
	if i > 0 {
		from = s.ends[i-1]
	}
	return s.blob[from:s.ends[i]]
}

// find returns the number of a stored term.
func (s *storedTerms) find(t []byte) (int32, bool) {
	lo, hi := 0, len(s.ends)
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if s.term(m) < string(t) {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(s.ends) && s.term(lo) == string(t) {
		return int32(lo), true
	}
	return -1, false
}

// decode returns term i's postings, of the documents kept. Its bytes were
// checked when the index was read.
func (s *storedTerms) decode(i int) []posting {
	data := s.post[s.at[i]:s.at[i+1]]
	out := make([]posting, 0, s.counts[i])
	doc := int64(-1)
	for len(data) > 0 {
		step, n := binary.Uvarint(data)
		data = data[n:]
		doc += int64(step)
		var tf [MaxFields]uint16
		for f := range s.nf {
			v, n := binary.Uvarint(data)
			data = data[n:]
			tf[f] = uint16(v)
		}
		if d := s.renum[doc]; d >= 0 {
			out = append(out, posting{doc: d, tf: tf})
		}
	}
	return out
}

// lookup returns a term's number.
func (ix *Index[K]) lookup(t string) (int32, bool) {
	if tid, ok := ix.termID[t]; ok {
		return tid, true
	}
	if ix.stored != nil {
		return ix.stored.find([]byte(t))
	}
	return -1, false
}

// postings returns a term's postings, decoding them first if they are
// still in stored form.
func (ix *Index[K]) postings(tid int32) []posting {
	s := ix.stored
	if s == nil || int(tid) >= len(s.decoded) {
		return ix.post[tid]
	}
	s.mu.Lock()
	if !s.decoded[tid] {
		ix.post[tid] = s.decode(int(tid))
		s.decoded[tid] = true
	}
	s.mu.Unlock()
	return ix.post[tid]
}

// decodeAll decodes every stored term's postings.
func (ix *Index[K]) decodeAll() {
	if ix.stored == nil {
		return
	}
	for i := range ix.stored.decoded {
		ix.postings(int32(i))
	}
}

// DecodeIndex reads an index written by AppendBinary with parameters p
// and analyzer an, whose documents had keys, in order. With keep non-nil,
// only the documents i with keep[i] are read back (the others are left out
// as if never added). It returns an error matching ErrEncoding when data
// is not such an index. Every byte is checked, but the postings are
// decoded only when a search or a change needs them; the index keeps data,
// which the caller must not modify.
func DecodeIndex[K comparable](data []byte, p Params, an Analyzer, keys []K, keep []bool) (*Index[K], error) {
	ix, err := NewIndex[K](p, an)
	if err != nil {
		return nil, err
	}
	d := decoder{data: data}
	if string(d.bytes(len(encodingMagic))) != encodingMagic {
		return nil, fmt.Errorf("%w: it does not begin with %q", ErrEncoding, encodingMagic)
	}
	if fp := d.uint64(); d.err == nil && fp != Fingerprint(ix.p, an) {
		return nil, fmt.Errorf("%w: it was written with other parameters or another analysis", ErrEncoding)
	}
	n := d.count(1)
	if d.err == nil && n != len(keys) {
		return nil, fmt.Errorf("%w: it holds %d documents, %d keys given", ErrEncoding, n, len(keys))
	}
	if keep != nil && len(keep) != len(keys) {
		return nil, fmt.Errorf("textsearch: %d keep marks for %d keys", len(keep), len(keys))
	}
	nf := len(ix.p.Fields)
	s := &storedTerms{nf: nf, renum: make([]int32, n)}
	kept := 0
	for i := 0; i < n && d.err == nil; i++ {
		w := math.Float32frombits(binary.LittleEndian.Uint32(d.bytes(4)))
		var lens [MaxFields]uint32
		for f := range nf {
			lens[f] = uint32(d.uint(math.MaxUint32))
		}
		if d.err == nil && (!(w > 0) || math.IsInf(float64(w), 0)) {
			d.fail("document %d has weight %v", i, w)
		}
		s.renum[i] = -1
		if keep != nil && !keep[i] {
			continue
		}
		if _, dup := ix.byKey[keys[i]]; dup {
			d.fail("key %v is given twice", keys[i])
			break
		}
		s.renum[i] = int32(kept)
		ix.byKey[keys[i]] = int32(kept)
		kept++
		ix.keys = append(ix.keys, keys[i])
		ix.live = append(ix.live, true)
		ix.lens = append(ix.lens, lens)
		ix.weight = append(ix.weight, w)
		for f := range MaxFields {
			ix.sumLen[f] += int64(lens[f])
			ix.spread[f].add(lens[f], 1)
		}
	}
	ix.nLive = kept
	nTerms := d.count(3)
	s.blob = string(d.bytes(d.count(1)))
	s.ends = make([]uint32, nTerms)
	s.at = make([]uint32, nTerms+1)
	s.counts = make([]uint32, nTerms)
	end, at := uint64(0), uint64(0)
	// The table is read from a local slice: the decoder's may live on the
	// heap, where each step would cost a write barrier.
	table := d.data
	read := 0
	for i := 0; i < nTerms && d.err == nil; i++ {
		tl, k1 := binary.Uvarint(table)
		if k1 <= 0 {
			break
		}
		count, k2 := binary.Uvarint(table[k1:])
		if k2 <= 0 {
			break
		}
		size, k3 := binary.Uvarint(table[k1+k2:])
		if k3 <= 0 {
			break
		}
		table = table[k1+k2+k3:]
		if tl > uint64(len(s.blob))-end || count == 0 || count > uint64(n) || size > uint64(len(table)) {
			d.fail("term %d has a bad length, number of postings or size", i)
			break
		}
		end += tl
		at += size
		s.counts[i], s.ends[i], s.at[i+1] = uint32(count), uint32(end), uint32(at)
		if tl == 0 || i > 0 && s.term(i) <= s.term(i-1) {
			d.fail("term %d (%q) is empty or out of order", i, s.term(i))
		}
		read++
	}
	d.data = table
	if read != nTerms {
		d.fail("it ends early")
	}
	if d.err == nil && end != uint64(len(s.blob)) {
		d.fail("%d bytes of terms are left over", uint64(len(s.blob))-end)
	}
	s.post = d.bytes(d.count(1))
	if d.err == nil && (at != uint64(len(s.post)) || len(d.data) != 0) {
		d.fail("the postings take %d bytes, not %d, or bytes are left at the end", at, len(s.post))
	}
	for i := 0; i < nTerms && d.err == nil; i++ {
		if err := s.check(i, n); err != "" {
			d.fail("term %q: %s", s.term(i), err)
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	s.decoded = make([]bool, nTerms)
	ix.post = make([][]posting, nTerms)
	ix.stored = s
	return ix, nil
}

// check says what is wrong with term i's stored postings for n documents,
// if anything. Most numbers are one byte, read without a call.
func (s *storedTerms) check(i, n int) string {
	data := s.post[s.at[i]:s.at[i+1]]
	doc, count := int64(-1), uint32(0)
	for p := 0; p < len(data); {
		var step uint64
		if c := data[p]; c < 0x80 {
			step, p = uint64(c), p+1
		} else if step, p = uvarintAt(data, p); p < 0 {
			return "a bad document number"
		}
		if step == 0 || step > uint64(n) {
			return "a bad document number"
		}
		if doc += int64(step); doc >= int64(n) {
			return "a document past the last"
		}
		for range s.nf {
			if p < len(data) && data[p] < 0x80 {
				p++
				continue
			}
			var v uint64
			if v, p = uvarintAt(data, p); p < 0 || v > math.MaxUint16 {
				return "a bad count"
			}
		}
		count++
	}
	if count != s.counts[i] {
		return fmt.Sprintf("%d postings, not %d", count, s.counts[i])
	}
	return ""
}

// uvarintAt reads the varint at data[p:] and returns it and the offset
// after it, or -1.
func uvarintAt(data []byte, p int) (uint64, int) {
	v, k := binary.Uvarint(data[p:])
	if k <= 0 {
		return 0, -1
	}
	return v, p + k
}

// decoder reads the stored form, recording its first error.
type decoder struct {
	data []byte
	err  error
}

func (d *decoder) fail(format string, args ...any) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: "+format, append([]any{ErrEncoding}, args...)...)
	}
}

func (d *decoder) bytes(n int) []byte {
	if d.err != nil {
		return make([]byte, n)
	}
	if n > len(d.data) {
		d.fail("it ends early")
		return make([]byte, n)
	}
	b := d.data[:n]
	d.data = d.data[n:]
	return b
}

func (d *decoder) uint64() uint64 { return binary.LittleEndian.Uint64(d.bytes(8)) }

// uint reads a varint of at most limit.
func (d *decoder) uint(limit uint64) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := binary.Uvarint(d.data)
	if n <= 0 {
		d.fail("it ends early or holds a bad number")
		return 0
	}
	d.data = d.data[n:]
	if v > limit {
		d.fail("a number is %d, more than %d", v, limit)
		return 0
	}
	return v
}

// count reads a number of items each taking at least minBytes bytes of
// what is left, so that no count announces more than the data can hold.
func (d *decoder) count(minBytes int) int {
	return int(d.uint(uint64(len(d.data) / minBytes)))
}
