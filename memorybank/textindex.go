package memorybank

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"github.com/mnemobank/mnemobank/screen"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/mnemobank/mnemobank/internal/jsontext"
	"github.com/mnemobank/mnemobank/internal/textsearch"
)

// The full-text index.
//
// Each bank index holds, once a full-text search has asked for it, a
// textsearch.Index of its documents (the engine the memories file uses
// too), with the fields of textsearch.DocumentParams: title and path,
// tags, and the text (a text document's text, or the string values of a
// JSON document's content). It lives beside the entries and follows them:
// a document whose entry is re-read from the store is re-indexed from the
// same bytes; a document the Bank wrote itself is re-read by the next
// search (one Get, proportional to that document); a document removed
// from the entries is removed here. So it is derived from the Store and
// keyed by its store versions like the rest of the index: it is never a
// second source of truth, and a fresh process builds it on its first
// search from the bank's text index snapshot and the documents changed
// since it was written, or, without one, by reading each document once,
// in parallel.

type textIndex struct {
	ix      *textsearch.Index[string]
	pending map[string]struct{} // documents with an entry but no terms yet
}

func newTextIndex() *textIndex {
	ix, err := textsearch.NewIndex[string](textsearch.DocumentParams, textsearch.Analyzer{})
	if err != nil {
		panic(err) // DocumentParams are valid: textsearch's tests say so
	}
	return &textIndex{ix: ix, pending: map[string]struct{}{}}
}

// place indexes document p.
func (t *textIndex) place(p string, d docText) {
	delete(t.pending, p)
	// Add fails only for more field texts than fields: three is right.
	_ = t.ix.AddAs(p, textsearch.DocumentParams.RoleOf(d.tags), d.title+"\n"+p, strings.Join(d.tags, "\n"), d.body)
}

// forget removes a document's terms.
func (t *textIndex) forget(p string) { t.ix.Remove(p) }

type docScore struct {
	path  string
	score float64
}

// score returns the limit best documents for the terms (limit <= 0: all),
// by BM25F with the statistics st, ties by path; allowed, when non-nil,
// holds the paths that may match.
func (t *textIndex) score(terms []string, st *textsearch.Stats, allowed map[string]struct{}, limit int) (best []docScore, matched int) {
	top := textsearch.Top[docScore]{Limit: limit, Better: func(a, b docScore) bool {
		return a.score > b.score || a.score == b.score && a.path < b.path
	}}
	t.ix.Each(terms, st, func(p string, s float64) {
		if allowed != nil {
			if _, ok := allowed[p]; !ok {
				return
			}
		}
		matched++
		top.Push(docScore{path: p, score: s})
	})
	return top.Sorted(), matched
}

// docText is what the index reads of a document.
type docText struct {
	title string
	tags  []string
	body  string
}

// decodeForSearch decodes a stored document for its metadata and
// searchable text (bodyText), without quoting a text document's text into
// JSON and back; the envelope of a text document has no Content.
func decodeForSearch(p string, data []byte) (*codec.Envelope, string, error) {
	format := codec.FormatOf(p)
	if format != codec.FormatText {
		e, err := decodeStored(format, p, data)
		if err != nil {
			return nil, "", err
		}
		return e, bodyText(e), nil
	}
	e, text, err := codec.DecodeTextMeta(p, data)
	if err != nil {
		return nil, "", fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return e, searchable(text), nil
}

// searchable is a text as bodyText gives it from the JSON string a text
// document's content is: each byte that is not UTF-8 a U+FFFD, as JSON
// encoding makes it, and the control characters spaces (unquote).
func searchable(s string) string {
	if !utf8.ValidString(s) {
		var b strings.Builder
		b.Grow(len(s) + 16)
		for _, r := range s {
			b.WriteRune(r)
		}
		s = b.String()
	}
	return spaceControls(s)
}

// bodyText is the searchable text of a document: the text of a text
// document, the strings of a JSON document's content (one per line).
func bodyText(e *codec.Envelope) string {
	if e.Format == codec.FormatText {
		c := bytes.TrimSpace(e.Content)
		if len(c) < 2 || c[0] != '"' {
			return ""
		}
		return unquote(c[1 : len(c)-1])
	}
	var b strings.Builder
	b.Grow(len(e.Content))
	jsonStrings(e.Content, func(s string) {
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
// separates words); a backspace an escape gives becomes a space, as the
// other control characters already are to the analyzer and to snippets.
func unquote(s []byte) string {
	out, _ := jsontext.DecodeString(s)
	return spaceControls(out)
}

// spaceControls makes a backspace a space, as it does the other control
// characters a JSON escape gives (\n, \t, \r, \f): those are white space
// already to the analyzer and to snippets (strings.Fields), \b is not.
func spaceControls(s string) string {
	if strings.IndexByte(s, '\b') < 0 {
		return s
	}
	return strings.Map(func(r rune) rune {
		switch r {
		case '\n', '\t', '\r', '\b', '\f':
			return ' '
		}
		return r
	}, s)
}

// readResult is one document read for the index.
type readResult struct {
	version  string
	entry    ListEntry
	notFound bool
	err      error
}

// readEntries reads the documents whose entries are stale, and when the
// bank has a full-text index those whose terms are pending, in parallel,
// and puts them in the index. It returns how many it read. idx.mu is held.
//
// The workers index the text of what they read as they go (one at a time:
// the analysis is the index's), so no more than one document's text per
// worker is held. On an error the entries are left alone, stale for the
// next call; documents already indexed stay indexed at the version read,
// and pending, so the next call reads them again.
func (b *Bank) readEntries(ctx context.Context, idx *catalog) (int, error) {
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
	var textMu sync.Mutex
	work := func(i int) {
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
			var d docText
			r.entry, d = readDocument(p, obj, withText)
			if withText {
				textMu.Lock()
				idx.text.place(p, d)
				textMu.Unlock()
			}
		}
	}
	workers := min(runtime.GOMAXPROCS(0), (len(todo)+31)/32)
	if workers <= 1 {
		for i := range todo {
			work(i)
		}
	} else {
		var next atomic.Int64
		var failed atomic.Bool
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1) - 1); i < len(todo) && !failed.Load(); i = int(next.Add(1) - 1) {
					work(i)
					if results[i].err != nil {
						failed.Store(true)
					}
				}
			})
		}
		wg.Wait()
	}
	for _, r := range results {
		if r.err != nil {
			if withText {
				for _, p := range todo {
					idx.text.pending[p] = struct{}{}
				}
			}
			return 0, r.err
		}
	}
	read := 0
	for i, r := range results {
		p := todo[i]
		if withText {
			idx.changedText(p)
		}
		if r.notFound {
			// Deleted by someone else since the List: the next check sees it.
			idx.fresh.dirty = true
			delete(idx.stale, p)
			if withText {
				delete(idx.text.pending, p)
				idx.text.forget(p)
			}
			continue
		}
		read++
		idx.putEntry(p, r.version, r.entry)
		if withText {
			delete(idx.text.pending, p) // putEntry marked it; its terms are in
		}
		if idx.paths[p] != r.version {
			idx.fresh.dirty = true // changed again since the List
		}
	}
	return read, nil
}

// readDocument decodes a stored document once for its entry and, with
// withText, its text. Undecodable documents are listed (so they can be
// found and repaired) with no tags, and found by their path only.
func readDocument(p string, obj Object, withText bool) (ListEntry, docText) {
	var e *codec.Envelope
	var text string
	var err error
	if withText {
		e, text, err = decodeForSearch(p, obj.Data)
	} else {
		e, err = decodeStored(codec.FormatOf(p), p, obj.Data)
	}
	if err != nil {
		le := ListEntry{Path: p, Title: codec.DefaultTitle(p), DocumentType: codec.InferDocumentType(p), Tags: []string{}, LastModified: obj.ModTime.UTC(), Version: 1, Size: len(obj.Data)}
		return le, docText{title: le.Title}
	}
	le := entryOf(e, len(obj.Data), obj.ModTime)
	if !withText {
		return le, docText{}
	}
	return le, docText{title: le.Title, tags: le.Tags, body: text}
}

// textIndexOf returns the index of a bank with its paths, entries and
// full-text index current, locked: the caller unlocks idx.mu.
func (b *Bank) textIndexOf(ctx context.Context, prefix string) (*catalog, error) {
	idx, err := b.pathIndex(ctx, prefix)
	if err != nil {
		return nil, err
	}
	if idx.text == nil && !b.loadTextSnapshot(ctx, idx) {
		idx.text = newTextIndex()
		for p := range idx.entries {
			idx.text.pending[p] = struct{}{}
		}
	}
	if _, err := b.readEntries(ctx, idx); err != nil {
		idx.mu.Unlock()
		return nil, err
	}
	b.maybeSaveTextSnapshot(ctx, idx)
	return idx, nil
}

// snippetBytes is about the length of a snippet.
const snippetBytes = 160

// snippet reads a document and returns the passage of its text with the
// most distinct query terms, or its beginning, and the document's flags.
func (b *Bank) snippet(ctx context.Context, key, p string, terms []string) (string, []screen.Flag, error) {
	obj, err := b.store.Get(ctx, key)
	if err != nil {
		return "", nil, err
	}
	e, text, err := decodeForSearch(p, obj.Data)
	if err != nil {
		return "", nil, nil
	}
	return textsearch.Snippet(text, terms, snippetBytes, -1), flagsOf(e), nil
}
