package memorybank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/agentmemory/agentmemory/jsonpatch"
)

// WriteRequest writes one document, with either Content or Patches.
type WriteRequest struct {
	Scope  Scope  `json:"scope"`            // ScopeBranch or ScopeGlobal
	Branch string `json:"branch,omitempty"` // required for ScopeBranch
	Path   string `json:"path"`             // e.g. "activeContext.json", "notes/db.md"

	// Content replaces the whole document (JSON null counts as absent). For a .json path it is either a
	// memory_document_v2 envelope (an object with "schema", or with both
	// "metadata" and "content") or the bare content object; a JSON string
	// holding such JSON is accepted too. For any other path it is a JSON
	// string holding the text (see TextContent); a front matter block at the
	// start of the text is read as metadata and removed.
	Content json.RawMessage `json:"content,omitempty"`
	// Text is the whole text of a text document (every path not ending in
	// .json), written when neither Content nor Patches is given. A front
	// matter block at its start is read as metadata and removed.
	Text string `json:"text,omitempty"`
	// Patches is an RFC 6902 patch applied to the canonical envelope (the
	// Content of Read). Text documents are patched as
	// {"schema":...,"metadata":{...},"content":"<text>"}.
	Patches jsonpatch.Patch `json:"patches,omitempty"`
	// Tags, when non-nil, replace the document's tags (after Patches). When
	// nil, tags come from Content's metadata or patches, else stay as stored.
	Tags []string `json:"tags,omitempty"`
	// Mode is ModeUpsert (default), ModeCreate or ModeUpdate.
	Mode Mode `json:"mode,omitempty"`
	// IfVersion, when non-zero, makes the write succeed only if the stored
	// metadata.version equals it; otherwise the error is a *ConflictError.
	IfVersion int64 `json:"ifVersion,omitempty"`
}

// WriteResult describes the document a Write stored.
type WriteResult struct {
	Scope        Scope     `json:"scope"`
	Branch       string    `json:"branch,omitempty"`
	Path         string    `json:"path"`
	ID           string    `json:"id"`
	Version      int64     `json:"version"`
	LastModified time.Time `json:"lastModified"`
	Tags         []string  `json:"tags"`
	Created      bool      `json:"created"` // the document did not exist before
}

// TextContent returns s as WriteRequest.Content for a text document.
func TextContent(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// Write stores one document: a full write with Content or a partial write
// with Patches, validated against its schema, with its metadata maintained,
// atomically (compare-and-swap on the Store). See WriteRequest and the
// package documentation for the rules.
func (b *Bank) Write(ctx context.Context, req WriteRequest) (*WriteResult, error) {
	if c := bytes.TrimSpace(req.Content); len(c) == 0 || string(c) == "null" {
		req.Content = nil // JSON null, as tool layers send for "absent"
	}
	if req.Content == nil && req.Patches == nil && formatOf(req.Path) == FormatText {
		req.Content = TextContent(req.Text)
	} else if req.Text != "" {
		return nil, invalidRequest("write %q: text is only for text documents written without content or patches", req.Path)
	}
	if req.Content != nil && len(req.Patches) == 0 {
		req.Patches = nil // "patches": [] beside content means no patches
	}
	hasContent, hasPatches := req.Content != nil, req.Patches != nil
	switch {
	case hasContent && hasPatches:
		return nil, invalidRequest("write %q: give either content (full overwrite) or patches (partial update), not both", req.Path)
	case !hasContent && !hasPatches:
		return nil, invalidRequest("write %q: give content (full overwrite) or patches (partial update)", req.Path)
	}
	switch req.Mode {
	case "", ModeUpsert, ModeCreate, ModeUpdate:
	default:
		return nil, invalidRequest("write %q: mode %q is not one of upsert, create, update", req.Path, req.Mode)
	}
	if req.IfVersion < 0 {
		return nil, invalidRequest("write %q: ifVersion %d must be a positive version, or 0 for none", req.Path, req.IfVersion)
	}
	if hasPatches && len(req.Patches) == 0 {
		return nil, invalidRequest("write %q: patches is empty; give at least one operation", req.Path)
	}
	if n := len(req.Patches); n > b.opts.MaxPatchOps {
		return nil, &LimitError{Limit: "patch operations", Max: b.opts.MaxPatchOps, Got: n, Path: req.Path}
	}
	if n := len(req.Tags); n > b.opts.MaxTags {
		return nil, &LimitError{Limit: "tags", Max: b.opts.MaxTags, Got: n, Path: req.Path}
	}
	if n := len(req.Content); n > b.opts.MaxDocumentBytes {
		return nil, &LimitError{Limit: "document size", Max: b.opts.MaxDocumentBytes, Got: n, Path: req.Path}
	}
	if err := validateTags(req.Path, req.Tags); err != nil {
		return nil, err
	}
	// The branch is checked now but claimed only once the document is
	// valid, so a first write refused for its input leaves no trace. A first
	// write whose document Put then fails in the store (I/O, cancellation)
	// may leave the branch marker: it names the branch that wrote it, so it
	// is correct, only premature.
	l, err := b.locate(ctx, req.Scope, req.Branch, req.Path, false)
	if err != nil {
		return nil, err
	}
	unlock, err := b.locks.lock(ctx, l.key)
	if err != nil {
		return nil, err
	}
	defer unlock()
	for attempt := 0; ; attempt++ {
		res, err := b.writeOnce(ctx, l, req)
		if err == nil || !errors.Is(err, errRetry) {
			return res, err
		}
		if attempt >= b.opts.MaxRetries {
			return nil, fmt.Errorf("%w: %q: gave up after %d attempts because other writers kept changing the document; retry later",
				ErrConflict, req.Path, attempt+1)
		}
		b.opts.Logger.DebugContext(ctx, "memorybank: write conflict, retrying on the latest version", "key", l.key, "attempt", attempt+1)
		if err := backoff(ctx, attempt); err != nil {
			return nil, err
		}
	}
}

// errRetry: the store's compare-and-swap failed; recompute on the latest version.
var errRetry = errors.New("memorybank: retry")

func (b *Bank) writeOnce(ctx context.Context, l loc, req WriteRequest) (*WriteResult, error) {
	format := formatOf(l.path)
	obj, err := b.store.Get(ctx, l.key)
	exists := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	var old *envelope
	if exists {
		old, err = decodeStored(format, l.path, obj.Data)
		if err != nil && req.Patches != nil {
			return nil, err
		}
		// A corrupt document can be replaced by a full content write.
	}
	oldVersion := int64(0)
	if old != nil {
		oldVersion = old.version()
	}
	switch {
	case req.Mode == ModeCreate && exists:
		return nil, fmt.Errorf("%w: %q (version %d) exists; write it without mode \"create\" to overwrite it, or patch it",
			ErrExists, l.path, oldVersion)
	case req.IfVersion != 0 && req.IfVersion != oldVersion:
		return nil, &ConflictError{Path: l.path, IfVersion: req.IfVersion, CurrentVersion: oldVersion}
	case !exists && (req.Mode == ModeUpdate || req.Patches != nil):
		what := "update"
		if req.Patches != nil {
			what = "patch"
		}
		return nil, fmt.Errorf("%w: %q does not exist in the %s; cannot %s it: create it first with content",
			ErrNotFound, l.path, l.describe(), what)
	}

	var next *envelope
	if req.Patches != nil {
		next, err = b.applyPatches(l.path, old, req.Patches)
	} else {
		next, err = contentEnvelope(format, l.path, req.Content)
	}
	if err != nil {
		return nil, err
	}
	b.maintain(next, old, l.path, req.Tags, req.Patches == nil)
	if n := len(next.tags()); n > b.opts.MaxTags {
		return nil, &LimitError{Limit: "tags", Max: b.opts.MaxTags, Got: n, Path: l.path}
	}
	canonical := next.canonical()
	if err := validateDocument(l.path, format, next); err != nil {
		return nil, err
	}
	data := next.encode(format, canonical)
	if len(data) > b.opts.MaxDocumentBytes {
		return nil, &LimitError{Limit: "document size", Max: b.opts.MaxDocumentBytes, Got: len(data), Path: l.path}
	}
	if l.scope == ScopeBranch {
		if _, err := b.branchDir(ctx, l.branch, true); err != nil {
			return nil, err
		}
	}
	cond := Condition{IfAbsent: true}
	if exists {
		cond = Condition{IfVersion: obj.Version}
	}
	put, err := b.store.Put(ctx, l.key, data, cond)
	if errors.Is(err, ErrConflict) {
		return nil, errRetry
	}
	if err != nil {
		return nil, err
	}
	prev := ""
	if exists {
		prev = obj.Version
	}
	doc := next.document(format, l.scope, l.branch, l.path, put.ModTime, canonical)
	b.indexed(ctx, l, prev, put.Version, entryOf(doc, len(data)))
	return &WriteResult{
		Scope: l.scope, Branch: l.branch, Path: l.path, ID: doc.ID, Version: doc.Version,
		LastModified: doc.LastModified, Tags: doc.Tags, Created: !exists,
	}, nil
}

// contentEnvelope builds the envelope of a full write from its content.
func contentEnvelope(format Format, p string, content json.RawMessage) (*envelope, error) {
	content = bytes.TrimSpace(content)
	var s string
	isString := json.Unmarshal(content, &s) == nil
	if format == FormatText {
		if isString {
			return decodeText([]byte(s)), nil
		}
		if e, ok := parseEnvelopeJSON(content); ok && !isBare(e, content) {
			if e.badMeta {
				return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/metadata", Message: "must be an object"}}}
			}
			return e, nil
		}
		return nil, invalidRequest("write %q: content of a text document must be a JSON string holding the text (or an envelope whose content is that string)", p)
	}
	if isString {
		var inner string // also "\"\"": an empty string sent as a JSON string
		if strings.TrimSpace(s) == "" || json.Unmarshal([]byte(s), &inner) == nil && strings.TrimSpace(inner) == "" {
			return nil, invalidRequest("write %q: content is an empty string; give a JSON object (a memory_document_v2 envelope or the bare content object)", p)
		}
		content = []byte(s) // JSON sent as a string, as agents often do
	}
	e, ok := parseEnvelopeJSON(content)
	if ok && e.badMeta {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/metadata", Message: "must be an object such as {\"title\": \"...\", \"documentType\": \"...\", \"tags\": []}"}}}
	}
	if ok {
		// Content sent as a string holding a JSON object, inside an envelope.
		var inner string
		if c := e.top["content"]; len(c) > 0 && c[0] == '"' && json.Unmarshal(c, &inner) == nil {
			if t := bytes.TrimSpace([]byte(inner)); len(t) > 0 && t[0] == '{' && json.Valid(t) {
				e.top["content"] = t
			}
		}
	}
	if !ok {
		if json.Valid(content) {
			return nil, invalidRequest("write %q: content must be a JSON object (a memory_document_v2 envelope or the bare content object), got %.40s", p, content)
		}
		return nil, invalidRequest("write %q: content is not valid JSON: %.60s", p, content)
	}
	return e, nil
}

// isBare reports whether parseEnvelopeJSON wrapped data as bare content.
func isBare(e *envelope, data []byte) bool {
	c, ok := e.top["content"]
	return ok && len(e.top) == 1 && len(e.meta) == 0 && bytes.Equal(c, data)
}

// maintain sets the metadata the Bank owns and fills what is missing.
// keepStored is true for a full content write: title, documentType and tags
// it does not give fall back to the stored document. A patch starts from the
// stored document, so a field missing after it was removed on purpose: it
// gets the default of normalize (title from the file name, documentType
// from it, tags []), never the stored value back (the origin server's bug).
func (b *Bank) maintain(next, old *envelope, p string, tags []string, keepStored bool) {
	if old != nil && keepStored {
		for _, k := range []string{"title", "documentType", "tags"} {
			if _, ok := next.meta[k]; !ok {
				if _, top := next.top[k]; k == "documentType" && top {
					continue // normalize moves it into metadata
				}
				if v, ok := old.meta[k]; ok {
					next.meta[k] = v
				}
			}
		}
	}
	next.normalize(p)
	now := formatTime(b.now())
	id, _ := next.str("id")
	created, _ := next.str("createdAt")
	if old != nil {
		if oid, ok := old.str("id"); ok && oid != "" {
			id = oid
		} else if v, ok := old.meta["id"]; ok && len(v) > 0 && v[0] != '"' && v[0] != 'n' {
			id = string(v) // a numeric id of an existing bank, kept as a string
		}
		if oc, ok := old.str("createdAt"); ok && oc != "" {
			created = oc
		}
	}
	if id == "" {
		id = b.opts.NewID()
	}
	if created == "" {
		created = now
	}
	version := int64(1)
	if old != nil {
		version = old.version() + 1
	}
	next.top["schema"] = rawString(SchemaV2)
	next.meta["id"] = rawString(id)
	next.meta["createdAt"] = rawString(created)
	next.meta["lastModified"] = rawString(now)
	next.meta["version"] = rawInt(version)
	if tags != nil {
		next.meta["tags"], _ = json.Marshal(dedupe(tags))
	} else if t, ok := next.meta["tags"]; ok {
		var ts []string
		if json.Unmarshal(t, &ts) == nil && ts != nil {
			next.meta["tags"], _ = json.Marshal(dedupe(ts))
		}
	}
	if s, ok := next.top["content"]; ok && s[0] == '"' {
		var body string
		if json.Unmarshal(s, &body) == nil {
			next.top["content"] = rawString(setLegacyTags(body, next.tags()))
		}
	}
}

// dedupe keeps the first occurrence of each tag, in order. A map keeps it
// linear: a stored document may carry any number of tags.
func dedupe(tags []string) []string {
	out := make([]string, 0, len(tags))
	seen := make(map[string]struct{}, len(tags))
	for _, t := range tags {
		if _, dup := seen[t]; !dup {
			seen[t] = struct{}{}
			out = append(out, t)
		}
	}
	return out
}

func validateTags(p string, tags []string) error {
	for i, t := range tags {
		if strings.TrimSpace(t) == "" {
			return invalidRequest("write %q: tag %d is empty; tags are non-empty strings such as \"core\"", p, i)
		}
	}
	return nil
}
