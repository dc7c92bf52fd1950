package memorybank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
)

// ReadContext returns the same few core files on every call, and decoding
// one (its front matter is YAML), encoding it and counting its tokens cost
// far more than reading it. So each bank's catalog keeps what ReadContext
// made of each document it included, by store key and stored version. The
// catalog already knows each document's store version, as current as the
// listing ReadContext returns beside it (every change through a Store at
// once, changes behind every Store's back within IndexMaxAge): when the
// cached version is the catalog's, a warm call reads nothing; otherwise it
// reads the document (the Get tells its version) and decodes, encodes and
// counts only what changed. The cache of each bank is bounded; past a
// bound it starts again empty.
const (
	ctxCacheMaxEntries = 1024
	ctxCacheMaxBytes   = 8 << 20 // of cached content
)

type ctxCache struct {
	mu    sync.Mutex
	m     map[string]ctxEntry
	bytes int
}

type ctxEntry struct {
	version string
	cf      ContextFile // never handed out: copies are
	// tokens is the token count of the file's entry in the result, or -1
	// when no call has counted it yet.
	tokens int
}

// contextFile returns the ContextFile of the document at path p of a
// section and, when the budget is limited, the tokens of its entry in a
// ReadContext result ("path":{...}); ErrNotFound and ErrCorrupt as Read.
// indexed is the document's store version as the bank's index knows it
// ("" when unknown): a cached entry of that version is used without
// reading the store.
func (b *Bank) contextFile(ctx context.Context, scope Scope, branch, p, indexed string, tb *tokenBudget) (ContextFile, int, error) {
	l, err := b.locate(ctx, scope, branch, p, false)
	if err != nil {
		return ContextFile{}, 0, err
	}
	c := &b.catalogFor(l.prefix).ctx
	if indexed != "" {
		c.mu.Lock()
		e, ok := c.m[l.key]
		c.mu.Unlock()
		if ok && e.version == indexed && (e.tokens >= 0 || !tb.limited()) {
			return e.handOut(), e.tokens, nil
		}
	}
	obj, err := b.store.Get(ctx, l.key)
	if errors.Is(err, ErrNotFound) {
		return ContextFile{}, 0, fmt.Errorf("%w: %q in the %s; list the bank to see which documents exist", ErrNotFound, l.path, l.describe())
	}
	if err != nil {
		return ContextFile{}, 0, err
	}
	c.mu.Lock()
	e, ok := c.m[l.key]
	c.mu.Unlock()
	if !ok || e.version != obj.Version || obj.Version == "" {
		d, err := decodeStored(codec.FormatOf(l.path), l.path, obj.Data)
		if err != nil {
			return ContextFile{}, 0, err
		}
		doc, err := documentOf(d, l.scope, l.branch, obj.ModTime)
		if err != nil {
			return ContextFile{}, 0, err
		}
		e = ctxEntry{version: obj.Version, cf: ContextFile{Path: p, Content: doc.Content, Tags: doc.Tags, LastModified: doc.LastModified, Flags: doc.Flags}, tokens: -1}
	}
	if tb.limited() && e.tokens < 0 {
		enc, _ := json.Marshal(e.cf)
		e.tokens = tb.count(string(codec.RawString(p)) + ":" + string(enc)) // "path":{...}
	}
	if obj.Version != "" {
		c.put(l.key, e)
	}
	return e.handOut(), e.tokens, nil
}

// handOut returns a copy of the entry's ContextFile that the caller may
// keep and modify.
func (e ctxEntry) handOut() ContextFile {
	cf := e.cf
	cf.Content, cf.Tags, cf.Flags = bytes.Clone(cf.Content), slices.Clone(cf.Tags), slices.Clone(cf.Flags)
	return cf
}

func (c *ctxCache) put(key string, e ctxEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if old, ok := c.m[key]; ok {
		c.bytes -= len(old.cf.Content)
	} else if len(c.m) >= ctxCacheMaxEntries {
		c.m = nil
	}
	if c.bytes+len(e.cf.Content) > ctxCacheMaxBytes {
		c.m = nil
	}
	if c.m == nil {
		c.m, c.bytes = map[string]ctxEntry{}, 0
	}
	if len(e.cf.Content) > ctxCacheMaxBytes {
		return
	}
	c.m[key] = e
	c.bytes += len(e.cf.Content)
}
