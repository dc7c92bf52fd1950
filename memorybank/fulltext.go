package memorybank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"maps"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mnemobank/mnemobank/internal/jsontext"
)

// The full-text index.
//
// Over 600 lines, on purpose for now: this engine (index, BM25F scoring,
// snippets) is about to be replaced by internal/textsearch, so it is kept
// whole rather than split, to leave that replacement one file to remove.
//
// Each bank index holds, once a full-text search has asked for it, an
// inverted index of its documents: for every term, the documents holding
// it with the term's count in each field (title and path, tags, and the
// text: a text document's text, or the string values of a JSON document's
// content). It lives beside the entries and follows them: a document whose
// entry is re-read from the store is re-indexed from the same bytes; a
// document the Bank wrote itself is re-read by the next search (one Get,
// proportional to that document); a document removed from the entries is
// removed here. So it is derived from the Store and keyed by its store
// versions like the rest of the index: it is never a second source of
// truth, and a fresh process builds it on its first search by reading each
// document once, in parallel.
//
// Removing a document only marks its number dead; the postings are
// compacted when dead documents outnumber live ones, so the work of a
// write stays proportional to the written document.

const (
	fieldTitle = iota // title and path
	fieldTags
	fieldBody
	numFields
)

// BM25F parameters: a title or tag match counts for more than a match in
// the text, and long texts are normalised more than titles.
var (
	fieldWeight = [numFields]float64{3.0, 2.0, 1.0}
	fieldB      = [numFields]float64{0.4, 0.3, 0.75}
)

const bm25K1 = 1.2

type textIndex struct {
	docs    []textDoc
	byPath  map[string]int32
	termID  map[string]int32 // term -> index into post
	post    [][]posting
	live    int
	dead    int
	sumLen  [numFields]int64
	pending map[string]struct{} // documents with an entry but no terms yet
}

type textDoc struct {
	path string // "" once removed
	len  [numFields]uint32
}

type posting struct {
	doc int32
	tf  [numFields]uint16
}

func newTextIndex() *textIndex {
	return &textIndex{byPath: map[string]int32{}, termID: map[string]int32{}, pending: map[string]struct{}{}}
}

// place records document p under the next number, which the postings of
// its partial index already use.
func (t *textIndex) place(p string, lens [numFields]uint32) {
	t.forget(p)
	delete(t.pending, p)
	t.byPath[p] = int32(len(t.docs))
	t.docs = append(t.docs, textDoc{path: p, len: lens})
	t.live++
	for f := range numFields {
		t.sumLen[f] += int64(lens[f])
	}
}

// skip takes the next number for a document that was not indexed.
func (t *textIndex) skip() {
	t.docs = append(t.docs, textDoc{})
	t.dead++
}

// merge adds the postings of a partial index.
func (t *textIndex) merge(pi *partialIndex) {
	for i, term := range pi.terms {
		tid, ok := t.termID[term]
		if !ok {
			tid = int32(len(t.post))
			t.termID[term] = tid
			t.post = append(t.post, nil)
		}
		t.post[tid] = append(t.post[tid], pi.post[i]...)
	}
}

// partialIndex holds the postings of the documents one goroutine read,
// numbered as they will be in the bank's index, so that goroutines build
// them in parallel and merge adds each term's postings at once.
type partialIndex struct {
	termID map[string]int32
	terms  []string
	post   [][]posting
}

// postings returns the postings of a term.
func (t *textIndex) postings(term string) []posting {
	if tid, ok := t.termID[term]; ok {
		return t.post[tid]
	}
	return nil
}

// forget removes a document's terms (marking its number dead).
func (t *textIndex) forget(p string) {
	id, ok := t.byPath[p]
	if !ok {
		return
	}
	d := &t.docs[id]
	for f := range numFields {
		t.sumLen[f] -= int64(d.len[f])
	}
	d.path = ""
	delete(t.byPath, p)
	t.live--
	t.dead++
}

// maybeCompact compacts when dead documents outnumber live ones, so the
// work of removals stays proportional to what was removed.
func (t *textIndex) maybeCompact() {
	if t.dead > 1024 && t.dead > t.live {
		t.compact()
	}
}

// compact renumbers the live documents and drops dead postings.
func (t *textIndex) compact() {
	renum := make([]int32, len(t.docs))
	docs := make([]textDoc, 0, t.live)
	for i, d := range t.docs {
		renum[i] = -1
		if d.path != "" {
			renum[i] = int32(len(docs))
			t.byPath[d.path] = renum[i]
			docs = append(docs, d)
		}
	}
	// Terms no live document holds keep their (empty) slot.
	for tid, ps := range t.post {
		var kept []posting
		for _, p := range ps {
			if n := renum[p.doc]; n >= 0 {
				kept = append(kept, posting{doc: n, tf: p.tf})
			}
		}
		t.post[tid] = kept
	}
	t.docs, t.dead = docs, 0
}

// analyzer counts the terms of documents into a partialIndex; one per
// goroutine. Terms are looked up once per occurrence, and a term string is
// allocated once per goroutine, not once per document.
type analyzer struct {
	part partialIndex
	doc  int32
	cur  []int32             // terms of the current document
	tf   [][numFields]uint16 // by term: counts in the current document
	last []int32             // by term: the document that counted it last, +1
	lens [numFields]uint32
}

// analyze adds the terms of document doc to the partial index and returns
// its length in terms per field.
func (a *analyzer) analyze(doc int32, p, title string, tags []string, body string) [numFields]uint32 {
	if a.part.termID == nil {
		a.part.termID = map[string]int32{}
	}
	a.doc, a.cur, a.lens = doc, a.cur[:0], [numFields]uint32{}
	a.field(fieldTitle, title)
	a.field(fieldTitle, p)
	for _, t := range tags {
		a.field(fieldTags, t)
	}
	a.field(fieldBody, body)
	for _, tid := range a.cur {
		a.part.post[tid] = append(a.part.post[tid], posting{doc: doc, tf: a.tf[tid]})
	}
	return a.lens
}

func (a *analyzer) field(f int, s string) {
	scanTerms(s, func(term []byte, _, _ int) {
		tid, ok := a.part.termID[string(term)]
		if !ok {
			k := string(term)
			tid = int32(len(a.part.terms))
			a.part.termID[k] = tid
			a.part.terms = append(a.part.terms, k)
			a.part.post = append(a.part.post, nil)
			a.tf = append(a.tf, [numFields]uint16{})
			a.last = append(a.last, 0)
		}
		if a.last[tid] != a.doc+1 {
			a.last[tid] = a.doc + 1
			a.tf[tid] = [numFields]uint16{}
			a.cur = append(a.cur, tid)
		}
		if a.tf[tid][f] < 1<<16-1 {
			a.tf[tid][f]++
		}
		a.lens[f]++
	})
}

// bodyText is the searchable text of a document: the text of a text
// document, the strings of a JSON document's content (one per line).
func bodyText(e *envelope) string {
	if e.format == FormatText {
		c := bytes.TrimSpace(e.content)
		if len(c) < 2 || c[0] != '"' {
			return ""
		}
		return unquote(c[1 : len(c)-1])
	}
	var b strings.Builder
	b.Grow(len(e.content))
	jsonStrings(e.content, func(s string) {
		b.WriteString(s)
		b.WriteByte('\n')
	})
	return b.String()
}

// jsonStrings calls fn with each string in the JSON text data, member
// names included (glossaries and maps key their entries by name), found
// by one pass over its bytes.
func jsonStrings(data []byte, fn func(string)) {
	for i := 0; i < len(data); {
		if data[i] != '"' {
			i++
			continue
		}
		end := jsontext.SkipString(data, i)
		if end < 0 {
			return
		}
		fn(unquote(data[i+1 : end-1]))
		i = end
	}
}

// unquote decodes the inside of a JSON string for searching, with the
// toolkit's decoder (a stored document edited by hand may hold a bad
// escape: it decodes as far as it goes, a bad \u as U+FFFD, which only
// separates words); the control characters an escape gives become spaces.
func unquote(s []byte) string {
	out, _ := jsontext.DecodeString(s)
	if strings.ContainsAny(out, "\n\t\r\b\f") {
		out = strings.Map(func(r rune) rune {
			switch r {
			case '\n', '\t', '\r', '\b', '\f':
				return ' '
			}
			return r
		}, out)
	}
	return out
}

// readResult is one document read for the index.
type readResult struct {
	version  string
	entry    ListEntry
	lens     [numFields]uint32 // terms per field (its postings are in a partialIndex)
	notFound bool
	err      error
}

// readEntries reads the documents whose entries are stale, and when the
// bank has a full-text index those whose terms are pending, in parallel,
// and puts them in the index. It returns how many it read. idx.mu is held.
func (b *Bank) readEntries(ctx context.Context, idx *bankIndex) (int, error) {
	todo := make([]string, 0, len(idx.stale))
	for p := range idx.stale {
		todo = append(todo, p)
	}
	withText := idx.text != nil
	if withText {
		for p := range idx.text.pending {
			if _, st := idx.stale[p]; !st {
				todo = append(todo, p)
			}
		}
	}
	if len(todo) == 0 {
		return 0, nil
	}
	results := make([]readResult, len(todo))
	base := int32(0) // the number the first document will get
	if withText {
		base = int32(len(idx.text.docs))
	}
	work := func(a *analyzer, i int) {
		p := todo[i]
		obj, err := b.store.Get(ctx, idx.prefix+p)
		r := &results[i]
		switch {
		case errors.Is(err, ErrNotFound):
			r.notFound = true
		case err != nil:
			r.err = err
		default:
			r.version = obj.Version
			r.entry, r.lens = readDocument(a, base+int32(i), p, obj, withText)
		}
	}
	workers := min(runtime.GOMAXPROCS(0), (len(todo)+31)/32)
	analyzers := make([]analyzer, max(workers, 1))
	if workers <= 1 {
		for i := range todo {
			work(&analyzers[0], i)
		}
	} else {
		var next atomic.Int64
		var failed atomic.Bool
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(todo) && !failed.Load(); i = int(next.Add(1) - 1) {
					work(&analyzers[w], i)
					if results[i].err != nil {
						failed.Store(true)
					}
				}
			})
		}
		wg.Wait()
	}
	// On any error nothing is applied: the entries stay stale for the
	// next call.
	for _, r := range results {
		if r.err != nil {
			return 0, r.err
		}
	}
	read := 0
	for i, r := range results {
		p := todo[i]
		if r.notFound {
			// Deleted by someone else since the List: the next check sees it.
			idx.dirty = true
			delete(idx.stale, p)
			if withText {
				delete(idx.text.pending, p)
				idx.text.skip()
			}
			continue
		}
		read++
		idx.putEntry(p, r.version, r.entry)
		if withText {
			idx.text.place(p, r.lens)
		}
		if idx.paths[p] != r.version {
			idx.dirty = true // changed again since the List
		}
	}
	if withText {
		for i := range analyzers {
			idx.text.merge(&analyzers[i].part)
		}
		idx.text.maybeCompact()
	}
	return read, nil
}

// readDocument decodes a stored document once for its entry and, with
// withText, its terms. Undecodable documents are listed (so they can be
// found and repaired) with no tags, and found by their path only.
func readDocument(a *analyzer, doc int32, p string, obj Object, withText bool) (ListEntry, [numFields]uint32) {
	e, err := decodeStored(formatOf(p), p, obj.Data)
	if err != nil {
		le := ListEntry{Path: p, Title: defaultTitle(p), DocumentType: inferDocumentType(p), Tags: []string{}, LastModified: obj.ModTime.UTC(), Version: 1, Size: len(obj.Data)}
		if !withText {
			return le, [numFields]uint32{}
		}
		return le, a.analyze(doc, p, le.Title, nil, "")
	}
	le := e.entry(len(obj.Data), obj.ModTime)
	if !withText {
		return le, [numFields]uint32{}
	}
	return le, a.analyze(doc, p, le.Title, le.Tags, bodyText(e))
}

// textIndexOf returns the index of a bank with its paths, entries and
// full-text index current, locked: the caller unlocks idx.mu.
func (b *Bank) textIndexOf(ctx context.Context, prefix string) (*bankIndex, error) {
	idx, err := b.pathIndex(ctx, prefix)
	if err != nil {
		return nil, err
	}
	if idx.text == nil {
		idx.text = newTextIndex()
		for p := range idx.entries {
			idx.text.pending[p] = struct{}{}
		}
	}
	if _, err := b.readEntries(ctx, idx); err != nil {
		idx.mu.Unlock()
		return nil, err
	}
	return idx, nil
}

// corpusStats are the collection statistics of one search, summed over
// the banks it covers.
type corpusStats struct {
	n      int
	sumLen [numFields]int64
	df     []int // per query term: live documents holding it
}

func (t *textIndex) stats(terms []string, st *corpusStats) {
	st.n += t.live
	for f := range numFields {
		st.sumLen[f] += t.sumLen[f]
	}
	for i, term := range terms {
		ps := t.postings(term)
		if t.dead == 0 {
			st.df[i] += len(ps)
			continue
		}
		for _, p := range ps {
			if t.docs[p.doc].path != "" {
				st.df[i]++
			}
		}
	}
}

type docScore struct {
	path  string
	score float64
}

// score returns the limit best documents for the terms, by BM25F with the
// statistics st; allowed, when non-nil, holds the paths that may match.
func (t *textIndex) score(terms []string, st *corpusStats, allowed map[string]struct{}, limit int) []docScore {
	var avg [numFields]float64
	for f := range numFields {
		avg[f] = max(float64(st.sumLen[f])/float64(st.n), 1)
	}
	scores := make([]float64, len(t.docs))
	var touched []int32
	for i, term := range terms {
		df := float64(st.df[i])
		if df == 0 {
			continue
		}
		idf := math.Log(1 + (float64(st.n)-df+0.5)/(df+0.5))
		for _, p := range t.postings(term) {
			d := &t.docs[p.doc]
			if d.path == "" {
				continue
			}
			w := 0.0
			for f := range numFields {
				if p.tf[f] > 0 {
					norm := 1 - fieldB[f] + fieldB[f]*float64(d.len[f])/avg[f]
					w += fieldWeight[f] * float64(p.tf[f]) / norm
				}
			}
			if scores[p.doc] == 0 {
				touched = append(touched, p.doc)
			}
			scores[p.doc] += idf * w * (bm25K1 + 1) / (w + bm25K1)
		}
	}
	// Keep the limit best in a min-heap, then sort them.
	better := func(a, b docScore) bool {
		return a.score > b.score || a.score == b.score && a.path < b.path
	}
	top := make([]docScore, 0, min(len(touched), limit))
	for _, id := range touched {
		ds := docScore{path: t.docs[id].path, score: scores[id]}
		if allowed != nil {
			if _, ok := allowed[ds.path]; !ok {
				continue
			}
		}
		switch {
		case len(top) < limit:
			top = append(top, ds)
			siftUp(top, len(top)-1, better)
		case better(ds, top[0]):
			top[0] = ds
			siftDown(top, 0, better)
		}
	}
	slices.SortFunc(top, func(a, b docScore) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return 0
	})
	return top
}

// siftUp and siftDown keep h a heap whose root is the worst element.
func siftUp(h []docScore, i int, better func(a, b docScore) bool) {
	for i > 0 {
		parent := (i - 1) / 2
		if !better(h[parent], h[i]) {
			return
		}
		h[parent], h[i] = h[i], h[parent]
		i = parent
	}
}

func siftDown(h []docScore, i int, better func(a, b docScore) bool) {
	for {
		worst, l, r := i, 2*i+1, 2*i+2
		if l < len(h) && better(h[worst], h[l]) {
			worst = l
		}
		if r < len(h) && better(h[worst], h[r]) {
			worst = r
		}
		if worst == i {
			return
		}
		h[i], h[worst] = h[worst], h[i]
		i = worst
	}
}

// snippetBytes is about the length of a snippet.
const snippetBytes = 160

// snippet reads a document and returns the passage of its text with the
// most distinct query terms, or its beginning.
func (b *Bank) snippet(ctx context.Context, key, p string, terms []string) (string, error) {
	obj, err := b.store.Get(ctx, key)
	if err != nil {
		return "", err
	}
	e, err := decodeStored(formatOf(p), p, obj.Data)
	if err != nil {
		return "", nil
	}
	return makeSnippet(bodyText(e), terms), nil
}

// makeSnippet picks the window of about snippetBytes of text holding the
// most distinct terms, cut at character boundaries, with "…" where text
// was cut.
func makeSnippet(text string, terms []string) string {
	want := make(map[string]int, len(terms))
	for i, t := range terms {
		want[t] = i
	}
	type hit struct{ start, end, term int }
	var hits []hit
	scanTerms(text, func(term []byte, start, end int) {
		if i, ok := want[string(term)]; ok && len(hits) < 10000 {
			hits = append(hits, hit{start, end, i})
		}
	})
	from := 0
	if len(hits) > 0 {
		best, bestN := 0, 0
		seen := make([]int, len(terms))
		for i := range hits {
			// Distinct terms in the window starting at hits[i].
			n := 0
			for j := i; j < len(hits) && hits[j].end-hits[i].start <= snippetBytes; j++ {
				if seen[hits[j].term] != i+1 {
					seen[hits[j].term] = i + 1
					n++
				}
			}
			if n > bestN {
				best, bestN = i, n
			}
		}
		from = max(hits[best].start-snippetBytes/4, 0)
	}
	to := min(from+snippetBytes, len(text))
	for from > 0 && !utf8.RuneStart(text[from]) {
		from--
	}
	for to < len(text) && !utf8.RuneStart(text[to]) {
		to++
	}
	s := strings.Join(strings.Fields(text[from:to]), " ")
	if from > 0 {
		s = "…" + s
	}
	if to < len(text) {
		s += "…"
	}
	return s
}

// branchDir is a branch bank's directory and its branch name.
type branchDirName struct{ dir, name string }

// branchListing caches the directories of the branch banks, checked like
// the bank indexes: by the store's change count, else listed again.
type branchListing struct {
	mu       sync.Mutex
	listed   bool
	counted  bool
	seen     ChangeCount
	own      uint64
	lastFull time.Time
	dirs     map[string]struct{}
}

// branchDirs returns the branch banks, sorted by directory: those listed
// in the store (listed again only when someone else changed the store, or
// the listing is older than Options.IndexMaxAge) and those this Bank wrote
// since.
func (b *Bank) branchDirs(ctx context.Context) ([]branchDirName, error) {
	l := &b.branchList
	l.mu.Lock()
	defer l.mu.Unlock()
	own := b.own.Load()
	cur, counted, err := b.changes(ctx)
	if err != nil {
		return nil, err
	}
	fresh := l.listed && counted && l.counted && cur.Epoch == l.seen.Epoch && cur.N-l.seen.N == own-l.own &&
		b.opts.IndexMaxAge >= 0 && b.opts.Clock().Sub(l.lastFull) < b.opts.IndexMaxAge
	if !fresh {
		dirs := map[string]struct{}{}
		for obj, err := range b.store.List(ctx, BranchPrefix) {
			if err != nil {
				return nil, err
			}
			dir, rest, ok := strings.Cut(strings.TrimPrefix(obj.Key, BranchPrefix), "/")
			if ok && !reserved(rest) {
				dirs[dir] = struct{}{}
			}
		}
		l.dirs, l.listed, l.lastFull = dirs, true, b.opts.Clock()
	}
	l.seen, l.counted, l.own = cur, counted, own
	all := maps.Clone(l.dirs)
	b.mu.Lock()
	for prefix := range b.indexes {
		if dir, ok := strings.CutPrefix(prefix, BranchPrefix); ok {
			all[strings.TrimSuffix(dir, "/")] = struct{}{}
		}
	}
	b.mu.Unlock()
	out := make([]branchDirName, 0, len(all))
	for _, dir := range slices.Sorted(maps.Keys(all)) {
		name, err := b.branchName(ctx, dir)
		if err != nil {
			return nil, err
		}
		out = append(out, branchDirName{dir: dir, name: name})
	}
	return out, nil
}

// branchName is the branch a directory records in its marker, else the
// directory's name.
func (b *Bank) branchName(ctx context.Context, dir string) (string, error) {
	b.mu.Lock()
	name, ok := b.branches[dir]
	b.mu.Unlock()
	if ok {
		return name, nil
	}
	obj, err := b.store.Get(ctx, BranchPrefix+dir+"/"+branchMarker)
	if errors.Is(err, ErrNotFound) {
		return dir, nil
	}
	if err != nil {
		return "", err
	}
	var rec branchRecord
	if json.Unmarshal(obj.Data, &rec) != nil || rec.Branch == "" {
		return dir, nil
	}
	b.mu.Lock()
	b.branches[dir] = rec.Branch
	b.mu.Unlock()
	return rec.Branch, nil
}
