package memorybank

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"math"
	"strconv"
	"strings"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/mnemobank/mnemobank/jsonpatch"
)

// WriteRequest writes one document: a full write with Content (or, for a
// text document, Text), or a partial write with Patches.
type WriteRequest struct {
	Scope  Scope  `json:"scope"`            // ScopeBranch or ScopeGlobal
	Branch string `json:"branch,omitempty"` // required for ScopeBranch
	Path   string `json:"path"`             // e.g. "activeContext.json", "notes/db.md"

	// Content replaces the whole document with a JSON object. For a .json
	// path it is a memory_document_v2 envelope (an object with "schema", or
	// with both "metadata" and "content") or the bare content object. For a
	// text document it is an envelope whose content is the text.
	Content json.RawMessage `json:"content,omitempty"`
	// Text is the whole text of a text document (every path not ending in
	// .json), written when neither Content nor Patches is given ("" writes
	// an empty document). A front matter block at its start is read as
	// metadata and removed.
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
	// Actor and Reason, optional, say who wrote and why; the document's
	// history records them.
	Actor  string `json:"actor,omitempty"`
	Reason string `json:"reason,omitempty"`
	// Provenance, when given, is recorded in the document's metadata
	// (ProvenanceMember) and in its history entry: the tool and the source
	// of the write, with Actor.
	Provenance *Provenance `json:"provenance,omitempty"`
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
	// Problems lists the schema problems the stored document already had
	// and this write kept (a write may keep them, never add one); empty
	// when the document matches its schema.
	Problems []Problem `json:"problems,omitempty"`

	env     *codec.Envelope
	modTime time.Time
}

// Document returns the document the write stored, as Read would return it
// then, without reading it back.
func (r *WriteResult) Document() (*Document, error) {
	if r == nil || r.env == nil {
		return nil, invalidRequest("the write result carries no document")
	}
	return documentOf(r.env, r.Scope, r.Branch, r.modTime)
}

// Write stores one document: a full write with Content or Text, or a
// partial write with Patches, validated against its schema, with its
// metadata maintained, atomically (compare-and-swap on the Store): one Get
// and one Put, plus the branch marker on the first write to a branch bank.
// See WriteRequest for the request.
//
// Write takes content (a JSON object), text (text documents) or
// patches, exactly one (else [ErrInvalidRequest]); patches on a missing
// document are [ErrNotFound]; patches apply to the whole canonical
// envelope, atomically. The Bank owns schema, id (kept; generated when
// absent), path, createdAt (kept), version (+1 per write) and lastModified
// (from Options.Clock); patch operations that write them, move them away,
// or replace an ancestor with different values are [*ForbiddenPatchError].
// Decisions: /metadata/path is maintained too (move a document by writing
// the new path and deleting the old one); tags are deduplicated;
// WriteRequest.Tags, when given, win over tags in content or patches; a
// full write without tags keeps the stored tags; a full write of bare
// content keeps the stored title and documentType; a patch that removes
// /metadata/tags, /metadata/title or /metadata/documentType removes them
// (tags become [], title and documentType the defaults a read fills in),
// never restoring the stored value; a patch that puts documentType at the
// top level is a [*ValidationError] pointing to /metadata/documentType; a
// version stored as a numeric string ("3") counts as that number; versions
// are int64, read exactly however large, and a stored version of 2^63-1 (or
// beyond) cannot be incremented, so a write of it is a [*ValidationError] on
// /metadata/version; a corrupt stored document can be replaced by a full
// write but not patched ([ErrCorrupt]). An object holds each member name
// once: content or a patch result repeating a name, at any depth, is a
// [*ValidationError] naming it, and a stored document repeating one
// (written by another tool) is never handed to the patch engine: patching
// it is refused the same way, and a full write repairs it. Tags are
// non-empty single-line strings (no control characters, no U+2028 or
// U+2029), so a tag cannot add lines to a text. A path that differs from a
// document of the same bank only by letter case or Unicode normalisation,
// or that is a folder of a document or a document inside one, is
// [ErrPathConflict] naming the existing path (they would be one file on
// macOS or Windows); branch directories likewise are [ErrBranchCollision].
// A stored document that already breaks its schema stays writable: a write
// may keep the problems it had ([WriteResult.Problems] lists them) but not
// add one. [Bank.CheckWrite] runs every check of a write without storing
// anything. A Bank without a Store (nil, zero, or New(nil, nil)) returns
// [ErrNotInitialised] from every method.
//
// Every write validates the result against the embedded draft-07 schemas
// ([Schema]): the envelope, then the content by documentType
// (branch_context, active_context, progress, system_patterns, else generic:
// any non-empty object); extra fields are allowed. Failures list every
// problem by JSON Pointer in a [*ValidationError].
//
// A write does each piece of work once: one Store.Get, the stored bytes
// split into their members without decoding the content, the patch or
// content applied, the content decoded once (for validation, and in the
// same pass written in its stored form), one Store.Put. A first write to a
// branch bank also writes its marker. [WriteResult.Document] gives the
// stored document without reading it back.
//
// Concurrency: each write is a read, a recomputation and a compare-and-swap
// on the store version. With IfVersion, a stale metadata.version is a
// [*ConflictError] carrying the current version. Without it, a lost swap
// recomputes the write on the latest version (patches re-applied, full
// content re-stamped), so concurrent agents never lose updates and versions
// increase by exactly one per write. Goroutines of one Bank writing the
// same document queue on a per-key lock (striped, so memory stays bounded)
// instead of racing; writers in other Banks or processes race through the
// store, and the loser retries after a jittered pause growing from 1 ms to
// 50 ms, up to Options.MaxRetries (default 32, about a second of
// contention) before giving up with [ErrConflict]. A first write to a
// branch that fails in the store after validation may leave the branch's
// marker behind (it names that branch, so it is harmless).
func (b *Bank) Write(ctx context.Context, req WriteRequest) (*WriteResult, error) {
	if err := b.ready(); err != nil {
		return nil, err
	}
	if err := ValidateActor(req.Actor); err != nil {
		return nil, err
	}
	if err := b.check(req); err != nil {
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
	unlock, err := b.lockDocument(ctx, l.key) // spellings of one name queue together
	if err != nil {
		return nil, err
	}
	defer unlock()
	for attempt := 0; ; attempt++ {
		res, err := b.writeOnce(ctx, l, req, false)
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

// check refuses a malformed request before any I/O.
func (b *Bank) check(req WriteRequest) error {
	text := codec.FormatOf(req.Path) == codec.FormatText
	hasContent, hasPatches := req.Content != nil, req.Patches != nil
	switch {
	case hasContent && hasPatches:
		return invalidRequest("write %q: give either content (full overwrite) or patches (partial update), not both", req.Path)
	case req.Text != "" && (hasContent || hasPatches):
		return invalidRequest("write %q: give text alone, without content or patches", req.Path)
	case req.Text != "" && !text:
		return invalidRequest("write %q: text is for text documents; a .json document takes content (a JSON object) or patches", req.Path)
	case !text && !hasContent && !hasPatches:
		return invalidRequest("write %q: give content (full overwrite) or patches (partial update)", req.Path)
	}
	switch req.Mode {
	case "", ModeUpsert, ModeCreate, ModeUpdate:
	default:
		return invalidRequest("write %q: mode %q is not one of upsert, create, update", req.Path, req.Mode)
	}
	if req.IfVersion < 0 {
		return invalidRequest("write %q: ifVersion %d must be a positive version, or 0 for none", req.Path, req.IfVersion)
	}
	if hasPatches && len(req.Patches) == 0 {
		return invalidRequest("write %q: patches is empty; give at least one operation", req.Path)
	}
	if n := len(req.Patches); n > b.opts.MaxPatchOps {
		return &LimitError{Limit: "patch operations", Max: b.opts.MaxPatchOps, Got: n, Path: req.Path}
	}
	if n := len(req.Tags); n > b.opts.MaxTags {
		return &LimitError{Limit: "tags", Max: b.opts.MaxTags, Got: n, Path: req.Path}
	}
	if n := max(len(req.Content), len(req.Text)); n > b.opts.MaxDocumentBytes {
		return &LimitError{Limit: "document size", Max: b.opts.MaxDocumentBytes, Got: n, Path: req.Path}
	}
	// The whole object sent may nest one deeper than its values: its
	// content (or, bare, the content itself) is judged by the codec.
	if d := codec.Depth(req.Content); d > MaxNestingDepth+1 {
		return &LimitError{Limit: "nesting depth", Max: MaxNestingDepth, Got: d - 1, Path: req.Path}
	}
	for i, t := range req.Tags {
		if strings.TrimSpace(t) == "" {
			return invalidRequest("write %q: tag %d is empty; tags are non-empty strings such as \"core\"", req.Path, i)
		}
	}
	return nil
}

// errRetry: the store's compare-and-swap failed; recompute on the latest version.
var errRetry = errors.New("memorybank: retry")

// writeOnce is one attempt of a write: it decodes the stored document once,
// applies the content or the patches, stamps, validates (decoding the
// content once), encodes once and swaps it in.
func (b *Bank) writeOnce(ctx context.Context, l loc, req WriteRequest, dry bool) (*WriteResult, error) {
	if err := checkHistoryKeys(l); err != nil {
		return nil, err
	}
	format := codec.FormatOf(l.path)
	obj, err := b.store.Get(ctx, l.key)
	exists := err == nil
	if err != nil && !errors.Is(err, ErrNotFound) {
		return nil, err
	}
	var old *codec.Envelope
	if exists {
		if req.Patches != nil {
			old, err = decodeForPatch(format, l.path, obj.Data)
		} else {
			old, err = decodeStored(format, l.path, obj.Data)
		}
		if err != nil && req.Patches != nil {
			return nil, err
		}
		// A corrupt document can be replaced by a full content write.
	}
	oldVersion := int64(0)
	switch {
	case old != nil:
		oldVersion = old.Version()
	case !exists:
		// A document deleted before continues after the version its
		// delete consumed, so a version never names two documents.
		if oldVersion, err = b.lastDeleted(ctx, l); err != nil {
			return nil, err
		}
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
	case oldVersion == math.MaxInt64:
		return nil, maxVersionProblem(l.path)
	}
	// The write's time, read once: the path check may need it first.
	var now time.Time
	clock := func() time.Time {
		if now.IsZero() {
			now = b.now()
		}
		return now
	}
	if !exists {
		if err := b.pathCollision(ctx, l, clock); err != nil {
			return nil, err
		}
	}

	var next *codec.Envelope
	switch {
	case req.Patches != nil:
		next, err = b.applyPatches(old, req.Patches)
	case req.Content != nil:
		next, err = contentEnvelope(format, l.path, req.Content)
	default:
		next, err = textEnvelope(l.path, req.Text)
	}
	if err != nil {
		return nil, err
	}
	b.flagDocument(next)
	stampProvenance(next, old, req)
	clock()
	next.Stamp(old, oldVersion, codec.FormatTime(now), b.opts.NewID, req.Tags, req.Patches == nil)
	if n := len(next.Tags()); n > b.opts.MaxTags {
		return nil, &LimitError{Limit: "tags", Max: b.opts.MaxTags, Got: n, Path: l.path}
	}
	data, kept, err := next.SealKeeping(old, b.opts.MaxDocumentBytes)
	var se *codec.SchemaError
	if errors.As(err, &se) {
		return nil, validationError(l.path, se)
	}
	if err != nil {
		return nil, limitOf(l.path, err)
	}
	problems := problemsOf(kept)
	if data, next, err = b.screenSecrets(l, data, next); err != nil {
		return nil, err
	}
	if len(data) > b.opts.MaxDocumentBytes {
		return nil, &LimitError{Limit: "document size", Max: b.opts.MaxDocumentBytes, Got: len(data), Path: l.path}
	}
	if dry {
		return dryResult(l, next, exists, problems, len(data)), nil
	}
	if l.unclaimed {
		if _, err := b.branchDir(ctx, l.branch, true); err != nil {
			return nil, err
		}
	}
	cond := Condition{IfAbsent: true}
	prev := ""
	if exists {
		cond = Condition{IfVersion: obj.Version}
		prev = obj.Version
	}
	put, err := b.store.Put(ctx, l.key, data, cond)
	if errors.Is(err, ErrConflict) {
		return nil, errRetry
	}
	if err != nil {
		return nil, err
	}
	le := entryOf(next, len(data), put.ModTime)
	b.wrote(l, prev, put.Version, &le)
	if !next.Bare { // a file without front matter has no numbered versions to record
		b.recordWrite(ctx, l, req, old, next, now)
	}
	id, _ := next.Str("id")
	return &WriteResult{
		Scope: l.scope, Branch: l.branch, Path: l.path, ID: id, Version: le.Version,
		LastModified: le.LastModified, Tags: le.Tags, Created: !exists, Problems: problems,
		env: next, modTime: put.ModTime,
	}, nil
}

// contentEnvelope builds the envelope of a full write from its content: a
// JSON object.
func contentEnvelope(format codec.Format, p string, content json.RawMessage) (*codec.Envelope, error) {
	e, ok := codec.SplitEnvelope(format, p, content)
	if !ok {
		if json.Valid(content) {
			return nil, invalidRequest("write %q: content must be a JSON object (a memory_document_v2 envelope or the bare content object), got %.40s", p, content)
		}
		return nil, invalidRequest("write %q: content is not valid JSON: %.60s", p, content)
	}
	if e.Dup != "" {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{duplicateProblem(e.Dup, e.DupName, "keep the value you mean and resend")}}
	}
	if e.BadMeta {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/metadata", Message: "must be an object such as {\"title\": \"...\", \"documentType\": \"...\", \"tags\": []}"}}}
	}
	if format == codec.FormatText {
		if e.Schema == nil && e.Extra == nil && len(e.Meta) == 0 && bytes.Equal(e.Content, content) {
			return nil, invalidRequest("write %q: content of a text document is an envelope whose content is the text; to write the text alone, use text", p)
		}
		if _, isText := e.Text(); !isText {
			return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/content", Message: "must be a string: the text of a " + p + " document"}}}
		}
	}
	// The envelope outlives the request (WriteResult.Document): own its bytes.
	e.Schema, e.Content = bytes.Clone(e.Schema), bytes.Clone(e.Content)
	for k, v := range e.Extra {
		e.Extra[k] = bytes.Clone(v)
	}
	return e, nil
}

// ValidateActor reports whether actor can be recorded in a document's
// history: at most MaxActorBytes of UTF-8 text without control characters
// (C0, DEL, C1, tab and line breaks included) or the line and paragraph
// separators U+2028 and U+2029, so that an actor can never forge or garble
// a line of the history. An error wraps ErrInvalidRequest and quotes at
// most a short prefix of actor. Write, Delete and Revert check their Actor
// this way before any I/O.
func ValidateActor(actor string) error {
	if len(actor) > MaxActorBytes {
		return invalidRequest("the actor is %d bytes, over the limit of %d (it starts %s); give a short name, such as the client's",
			len(actor), MaxActorBytes, quotePrefix(actor, 64))
	}
	for i, r := range actor {
		switch {
		case r == utf8.RuneError:
			if _, size := utf8.DecodeRuneInString(actor[i:]); size == 1 { // not a U+FFFD written out
				return invalidRequest("the actor %s is not UTF-8 (byte %#x at byte %d); an actor is one line of UTF-8 text, such as \"Claude Code\"",
					quotePrefix(actor, 64), actor[i], i)
			}
		case unicode.IsControl(r), r == '\u2028', r == '\u2029':
			return invalidRequest("the actor %s has the control character %U at byte %d; an actor is one line of printable text, such as \"Claude Code\"",
				quotePrefix(actor, 64), r, i)
		}
	}
	return nil
}

// quotePrefix quotes at most n bytes of s, cut at a character boundary,
// with "..." after the quote when cut.
func quotePrefix(s string, n int) string {
	if len(s) <= n {
		return strconv.Quote(s)
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return strconv.Quote(s[:n]) + "..."
}

// textEnvelope builds the envelope of a write of text: its front matter, if
// any, is metadata.
func textEnvelope(p, text string) (*codec.Envelope, error) {
	e, err := codec.DecodeText(p, []byte(text))
	var de *codec.DepthError
	if errors.As(err, &de) {
		return nil, limitOf(p, err)
	}
	if err != nil {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/metadata", Message: err.Error() + "; fix the front matter, or send the text without it"}}}
	}
	return e, nil
}

// limitOf is the *LimitError of a codec limit error, or err itself.
func limitOf(p string, err error) error {
	var de *codec.DepthError
	var se *codec.SizeError
	switch {
	case errors.As(err, &de):
		return &LimitError{Limit: "nesting depth", Max: de.Max, Got: de.Depth, Path: p}
	case errors.As(err, &se):
		return &LimitError{Limit: "document size", Max: se.Max, Got: se.Size, Path: p}
	}
	return err
}
