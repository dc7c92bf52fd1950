package memorybank

import (
	"fmt"
	"github.com/mnemobank/mnemobank/screen"

	"encoding/json"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"time"
)

// Format is how a document is stored: JSON documents (path ending in .json)
// use the memory_document_v2 envelope; every other path is a text document
// (usually Markdown) whose metadata lives in a front matter block.
//
// A path ending in ".json" holds a memory_document_v2 envelope
// {"schema", "metadata", "content"}; reading also accepts documentType at
// the top level (moved into metadata), missing metadata fields (filled:
// title from the file name, documentType from it for the four core names,
// else "generic", tags [], version 1) and plain JSON objects (taken as
// content). Writes store the canonical form: indented by two spaces,
// metadata keys in a fixed order, unknown fields kept, member order and
// number spellings of the content as given. Every other path is a text
// document: its text after a YAML front matter block holding the same
// metadata, read with a YAML parser (any YAML a person writes: block
// scalars, nested maps, comments; title, id and dates are read as text, so
// "title: 2024" is "2024"); front matter that does not parse, or holds a key
// twice, is [ErrCorrupt], never guessed at.
//
// A text file without front matter (a MEMORY.md, notes another tool wrote)
// stays without: its metadata is what its text says, derived on every read
// and stored nowhere: title from the first "# " heading (else the file
// name), tags from a "tags: #a #b" line among the first lines, documentType
// from the file name, no id or createdAt, lastModified from the store, and
// a version derived from the text (a number from 1 to 2^52 that changes
// whenever the text does, so IfVersion guards it like any version, though
// it does not count writes, and such a file keeps no history). A write to
// such a file changes only the text it asks to change, and its tags line
// when tags change; only metadata the text cannot carry (another title,
// tags without a tags line, extra fields) gives it front matter, and its
// versions then count on from the derived one. New text documents get
// front matter.
type Format string

const (
	FormatJSON Format = "json"
	FormatText Format = "text"
)

// Document is a document as Read returns it.
type Document struct {
	Scope  Scope  `json:"scope"`
	Branch string `json:"branch,omitempty"`
	Path   string `json:"path"` // relative to its bank, e.g. "activeContext.json"
	Format Format `json:"format"`

	ID           string    `json:"id"`
	Title        string    `json:"title"`
	DocumentType string    `json:"documentType"`
	Tags         []string  `json:"tags"`
	LastModified time.Time `json:"lastModified"`
	CreatedAt    time.Time `json:"createdAt,omitzero"`
	// Version is metadata.version: 1 for a new document, +1 on every write.
	// A stored document without a version reads as version 1.
	Version int64 `json:"version"`

	// Metadata is, for a text document, its whole canonical metadata object,
	// including fields the Bank does not know. It is nil for a JSON document,
	// whose metadata is inside Content.
	Metadata json.RawMessage `json:"metadata,omitempty"`

	// Content is the document as parsed JSON, never a JSON string holding
	// JSON. For a JSON document it is the whole canonical envelope
	// {"schema":"memory_document_v2","metadata":{...},"content":{...}}, the
	// value patches apply to. For a text document it is a JSON string holding
	// the text without its front matter.
	Content json.RawMessage `json:"content"`

	// Flags are the poisoning flags the last write recorded (see
	// Options.Flagger): why an agent should not trust the document.
	Flags []screen.Flag `json:"flags,omitempty"`
}

// Text returns the text of a text document, or "" for a JSON document.
func (d *Document) Text() string {
	if d.Format != FormatText {
		return ""
	}
	var s string
	_ = json.Unmarshal(d.Content, &s)
	return s
}

// ReadRequest names one document.
type ReadRequest struct {
	Scope  Scope  `json:"scope"`            // ScopeBranch or ScopeGlobal
	Branch string `json:"branch,omitempty"` // required for ScopeBranch
	Path   string `json:"path"`
}

// DeleteRequest names a document to delete, optionally only at a version.
type DeleteRequest struct {
	Scope     Scope  `json:"scope"`
	Branch    string `json:"branch,omitempty"`
	Path      string `json:"path"`
	IfVersion int64  `json:"ifVersion,omitempty"` // 0: unconditional
	Actor     string `json:"actor,omitempty"`     // recorded in the history
	Reason    string `json:"reason,omitempty"`
}

// ListRequest selects the documents of one bank whose path starts with
// Prefix ("" for all). List and ListPage skip the first Offset of them
// and return at most Limit (0: all the rest); Paths ignores both.
type ListRequest struct {
	Scope  Scope  `json:"scope"`
	Branch string `json:"branch,omitempty"`
	Prefix string `json:"prefix,omitempty"`
	Offset int    `json:"offset,omitempty"`
	Limit  int    `json:"limit,omitempty"`
}

// Page is one page of a listing or a search: the items its request's
// Offset and Limit select, and Total, how many there are in all (Total
// minus Offset minus len(Items) follow the page).
type Page[T any] struct {
	Items []T `json:"items"`
	Total int `json:"total"`
}

// ListEntry describes a document without its content.
type ListEntry struct {
	Path         string    `json:"path"`
	Title        string    `json:"title"`
	DocumentType string    `json:"documentType"`
	Tags         []string  `json:"tags"`
	LastModified time.Time `json:"lastModified"`
	Version      int64     `json:"version"`
	Size         int       `json:"size"` // stored bytes
}

// decodeStored decodes a stored document, normalized; a document that
// cannot be read is ErrCorrupt.
func decodeStored(format codec.Format, p string, data []byte) (*codec.Envelope, error) {
	e, err := codec.DecodeStored(format, p, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return e, nil
}

// decodeForPatch is decodeStored for a JSON document a write is about to
// patch: its one pass also finds a member name repeated at any depth.
func decodeForPatch(format codec.Format, p string, data []byte) (*codec.Envelope, error) {
	e, err := codec.DecodeForPatch(format, p, data)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCorrupt, err)
	}
	return e, nil
}

// documentOf converts an envelope to a Document.
func documentOf(e *codec.Envelope, scope Scope, branch string, modTime time.Time) (*Document, error) {
	d := &Document{
		Scope: scope, Branch: branch, Path: e.Path, Format: Format(e.Format),
		Tags: e.Tags(), Version: e.Version(),
		LastModified: e.Time("lastModified"), CreatedAt: e.Time("createdAt"),
	}
	d.ID, _ = e.Str("id")
	d.Title, _ = e.Str("title")
	d.DocumentType, _ = e.Str("documentType")
	d.Flags = flagsOf(e)
	if d.LastModified.IsZero() {
		d.LastModified = modTime.UTC()
	}
	if e.Format == codec.FormatJSON {
		c, err := e.Canonical(true)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not valid JSON: %v; overwrite it with a full content write", ErrCorrupt, e.Path, err)
		}
		d.Content = c
	} else {
		d.Metadata = e.CanonicalMeta()
		d.Content = codec.CompactRaw(e.Content)
	}
	return d, nil
}

// entryOf describes the document for List and the index.
func entryOf(e *codec.Envelope, size int, modTime time.Time) ListEntry {
	le := ListEntry{Path: e.Path, Tags: e.Tags(), LastModified: e.Time("lastModified"), Version: e.Version(), Size: size}
	le.Title, _ = e.Str("title")
	le.DocumentType, _ = e.Str("documentType")
	if le.LastModified.IsZero() {
		le.LastModified = modTime.UTC()
	}
	return le
}
