package codec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/internal/jsontext"
	"github.com/mnemobank/mnemobank/memorybank/internal/pointer"
)

// timeLayout is the format of lastModified and createdAt: UTC, millisecond
// precision, as existing banks write them.
const timeLayout = "2006-01-02T15:04:05.000Z"

// Canonical key order of metadata; other keys follow in byte order.
var metaOrder = []string{"id", "title", "documentType", "path", "tags", "lastModified", "createdAt", "version"}

// Envelope is the one model of a document: the memory_document_v2 envelope
// {"schema", "metadata", "content", ...} of a JSON document, or the front
// matter and text of a text document (whose content is a JSON string).
// Values are kept as raw JSON, so fields the Bank does not know (agents
// enrich documents) survive unchanged, and the content, the only large
// part, is never decoded except once, for validation.
//
// Its invariants, all kept by the methods below: after Normalize, schema,
// metadata title, documentType, tags, version and path are present and
// documentType lives in metadata; Stamp sets the maintained fields (id,
// createdAt, lastModified, version) of a write; Canonical is the compact
// form patches apply to and reads show, with metadata keys in metaOrder;
// SealKeeping gives the stored form.
type Envelope struct {
	Format  Format
	Path    string
	Schema  json.RawMessage            // nil when absent
	Meta    map[string]json.RawMessage // never nil
	Content json.RawMessage            // as found, possibly indented; nil when absent
	Extra   map[string]json.RawMessage // other top-level members (JSON documents)
	// BadMeta: "metadata" was there but not an object (and was dropped).
	BadMeta bool
	// Bare: a text document stored without front matter; its metadata is
	// what its text says (see DecodeText).
	Bare bool
	// Dup is the pointer and name of a member of the envelope or of its
	// metadata that occurs twice (the last copy was kept), or "".
	Dup, DupName string
	// Deep: Dup was judged at every depth (DecodeForPatch), so the
	// document needs no other pass for repeated names.
	Deep bool
}

func NewEnvelope(format Format, p string) *Envelope {
	return &Envelope{Format: format, Path: p, Meta: map[string]json.RawMessage{}}
}

// Format is how a document is stored (memorybank.Format has the same values).
type Format string

const (
	FormatJSON Format = "json"
	FormatText Format = "text"
)

// FormatOf: .json paths are JSON documents, everything else is text.
func FormatOf(p string) Format {
	if strings.HasSuffix(strings.ToLower(p), ".json") {
		return FormatJSON
	}
	return FormatText
}

// DefaultTitle is the file name without its extension.
func DefaultTitle(p string) string {
	base := path.Base(p)
	return strings.TrimSuffix(base, path.Ext(base))
}

// InferDocumentType gives the documentType of a file from its name, for
// documents that do not say.
func InferDocumentType(p string) string {
	switch DefaultTitle(p) {
	case "branchContext":
		return "branch_context"
	case "activeContext":
		return "active_context"
	case "progress":
		return "progress"
	case "systemPatterns":
		return "system_patterns"
	}
	return "generic"
}

func FormatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// DecodeStored decodes a stored document, normalized. Only the metadata is
// decoded; the content stays raw.
func DecodeStored(format Format, p string, data []byte) (*Envelope, error) {
	var e *Envelope
	if format == FormatJSON {
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 BOM some editors add
		var ok bool
		e, ok = SplitEnvelope(format, p, data)
		switch {
		case ok && e.BadMeta:
			return nil, fmt.Errorf("%q: metadata is not an object; overwrite it with a full content write", p)
		case !ok && json.Valid(data):
			// A JSON value that is not an object: show it as the content.
			e = NewEnvelope(format, p)
			e.Content = bytes.Clone(data)
		case !ok:
			return nil, fmt.Errorf("%q is not valid JSON; overwrite it with a full content write", p)
		}
	} else {
		var err error
		if e, err = DecodeText(p, data); err != nil {
			return nil, fmt.Errorf("%q: %v; overwrite it with a full write (text or content) to repair it", p, err)
		}
	}
	e.Normalize()
	return e, nil
}

// DecodeForPatch is DecodeStored for a JSON document a write is about to
// patch: the one pass that splits it also finds a member name repeated at
// any depth (dup), which the patch refuses, so the document is not walked
// again for it (the patch refuses it).
func DecodeForPatch(format Format, p string, data []byte) (*Envelope, error) {
	if format != FormatJSON {
		return DecodeStored(format, p, data)
	}
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	e, ok := splitDeep(format, p, body)
	if !ok {
		return DecodeStored(format, p, data) // judged, and reported, as before
	}
	if e.BadMeta {
		return nil, fmt.Errorf("%q: metadata is not an object; overwrite it with a full content write", p)
	}
	e.Normalize()
	return e, nil
}

// splitDeep is SplitEnvelope with repeated names judged at every depth in
// the same pass (Members).
func splitDeep(format Format, p string, data []byte) (*Envelope, bool) {
	e := NewEnvelope(format, p)
	var meta json.RawMessage
	hasMeta := false
	ok, dup := Members(data, func(k string, v []byte) { e.member(k, v, &meta, &hasMeta) })
	if !ok {
		return nil, false
	}
	e.Deep = true
	if e.Schema == nil && !(hasMeta && e.Content != nil) {
		bare := NewEnvelope(format, p)
		bare.Content, bare.Deep = data, true
		if dup != nil {
			bare.Dup, bare.DupName = "/content"+dup.Pointer, dup.Name
		}
		return bare, true
	}
	if dup != nil {
		e.Dup, e.DupName = dup.Pointer, dup.Name
	}
	if hasMeta && (json.Unmarshal(meta, &e.Meta) != nil || e.Meta == nil) {
		e.Meta = map[string]json.RawMessage{}
		e.BadMeta = true
	}
	return e, true
}

// member files one top-level member of a JSON document.
func (e *Envelope) member(k string, v []byte, meta *json.RawMessage, hasMeta *bool) {
	switch k {
	case "schema":
		e.Schema = v
	case "metadata":
		*meta, *hasMeta = v, true
	case "content":
		e.Content = v
	default:
		if e.Extra == nil {
			e.Extra = map[string]json.RawMessage{}
		}
		e.Extra[k] = v
	}
}

// SplitEnvelope splits a JSON object into an envelope. An object that is
// not an envelope (no "schema", and not both "metadata" and "content") is
// the bare content of a new envelope. ok is false when data is not a JSON
// object. Values other than the metadata are not decoded (nor validated:
// canonical, validate and encode do that).
func SplitEnvelope(format Format, p string, data []byte) (e *Envelope, ok bool) {
	e = NewEnvelope(format, p)
	var meta json.RawMessage
	hasMeta := false
	seen := make(map[string]struct{}, 4)
	ok = jsontext.ObjectMembers(data, func(k string, v []byte) {
		if _, d := seen[k]; d && e.Dup == "" {
			e.Dup, e.DupName = "/"+pointer.Escape(k), k
		}
		seen[k] = struct{}{}
		e.member(k, v, &meta, &hasMeta)
	})
	if !ok {
		return nil, false
	}
	if e.Schema == nil && !(hasMeta && e.Content != nil) {
		bare := NewEnvelope(format, p)
		bare.Content = data
		return bare, true
	}
	if hasMeta && (json.Unmarshal(meta, &e.Meta) != nil || e.Meta == nil) {
		e.Meta = map[string]json.RawMessage{}
		e.BadMeta = true
	}
	if hasMeta && e.Dup == "" && !e.BadMeta {
		names := make(map[string]struct{}, len(e.Meta))
		jsontext.ObjectMembers(meta, func(k string, _ []byte) {
			if _, d := names[k]; d && e.Dup == "" {
				e.Dup, e.DupName = "/metadata/"+pointer.Escape(k), k
			}
			names[k] = struct{}{}
		})
	}
	return e, true
}

// Normalize fills what a stored document may lack and moves a top-level
// documentType (written by later versions of some servers) into metadata,
// giving the canonical form.
func (e *Envelope) Normalize() {
	if dt, ok := e.Extra["documentType"]; ok {
		if _, has := e.Meta["documentType"]; !has {
			e.Meta["documentType"] = dt
		}
		delete(e.Extra, "documentType")
	}
	if e.Schema == nil {
		e.Schema = RawString(SchemaV2)
	}
	if _, ok := e.Meta["title"]; !ok {
		e.Meta["title"] = RawString(DefaultTitle(e.Path))
	}
	if _, ok := e.Meta["documentType"]; !ok {
		e.Meta["documentType"] = RawString(InferDocumentType(e.Path))
	}
	if _, ok := e.Meta["tags"]; !ok {
		e.Meta["tags"] = json.RawMessage(`[]`)
	}
	if _, ok := e.Meta["version"]; !ok {
		e.Meta["version"] = RawInt(1)
	}
	e.Meta["path"] = RawString(e.Path)
}

// Stamp sets the metadata the Bank maintains on the document a write is
// about to store, given the stored document (nil for a new one) and the
// version before this write (the stored one's, or the version a delete
// consumed, so versions of a path never repeat). keepStored
// is true for a full content write: title, documentType and tags it does not
// give fall back to the stored document. A patch starts from the stored
// document, so a field missing after it was removed on purpose: it gets the
// default of Normalize (title from the file name, documentType from it, tags
// []), never the stored value back. tags, when non-nil, replace the tags.
func (e *Envelope) Stamp(old *Envelope, prev int64, now string, newID func() string, tags []string, keepStored bool) {
	if old != nil && keepStored {
		for _, k := range []string{"title", "documentType", "tags"} {
			if _, ok := e.Meta[k]; !ok {
				if _, top := e.Extra[k]; k == "documentType" && top {
					continue // Normalize moves it into metadata
				}
				if v, ok := old.Meta[k]; ok {
					e.Meta[k] = v
				}
			}
		}
	}
	e.Normalize()
	id, _ := e.Str("id")
	created, _ := e.Str("createdAt")
	if old != nil {
		if oid, ok := old.Str("id"); ok && oid != "" {
			id = oid
		} else if v, ok := old.Meta["id"]; ok && len(v) > 0 && v[0] != '"' && v[0] != 'n' {
			id = string(v) // a numeric id of an existing bank, kept as a string
		}
		if oc, ok := old.Str("createdAt"); ok && oc != "" {
			created = oc
		}
	}
	if id == "" {
		id = newID()
	}
	if created == "" {
		created = now
	}
	version := prev + 1
	e.Schema = RawString(SchemaV2)
	e.Meta["id"] = RawString(id)
	e.Meta["createdAt"] = RawString(created)
	e.Meta["lastModified"] = RawString(now)
	e.Meta["version"] = RawInt(version)
	if tags == nil {
		var ts []string
		if json.Unmarshal(e.Meta["tags"], &ts) == nil && ts != nil {
			tags = ts
		}
	}
	if tags != nil {
		e.Meta["tags"], _ = json.Marshal(Dedupe(tags))
	}
	if e.Format == FormatText {
		if body, ok := e.Text(); ok {
			e.Content = RawString(SetLegacyTags(body, e.Tags()))
		}
		// A text file stored without front matter keeps none while its
		// metadata is what its text says: only the text a write changes
		// changes, and its version is derived from the text. A new file
		// gets front matter.
		e.Bare = false
		if old != nil && old.Bare && e.derivable() {
			body, _ := e.Text()
			e.Bare = true
			e.Meta["version"] = RawInt(TextVersion(body))
		}
	}
}

// derivable reports whether the metadata of a text envelope is exactly what
// a read of its text alone would derive (title from the first heading or
// the file name, tags from a "tags: #a" line, default documentType, nothing
// else), so the file needs no front matter. Fields only front matter holds
// (id, createdAt, lastModified, version) do not count: such a file has none.
func (e *Envelope) derivable() bool {
	body, ok := e.Text()
	if !ok || len(e.Extra) > 0 {
		return false
	}
	d, err := DecodeText(e.Path, []byte(body))
	if err != nil || !d.Bare {
		return false // the text itself starts with front matter
	}
	d.Normalize()
	for _, m := range []map[string]json.RawMessage{e.Meta, d.Meta} {
		for k := range m {
			switch k {
			case "id", "createdAt", "lastModified", "version", "path":
			case "tags":
				if !slices.Equal(e.Tags(), d.Tags()) || !json.Valid(e.Meta[k]) || e.Meta[k][0] != '[' {
					return false
				}
			default:
				if !bytes.Equal(CompactRaw(e.Meta[k]), CompactRaw(d.Meta[k])) {
					return false
				}
			}
		}
	}
	return true
}

func (e *Envelope) Str(key string) (string, bool) {
	v, ok := e.Meta[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// Text returns the text of a text document.
func (e *Envelope) Text() (string, bool) {
	var s string
	if len(e.Content) == 0 || e.Content[0] != '"' || json.Unmarshal(e.Content, &s) != nil {
		return "", false
	}
	return s, true
}

// Tags returns metadata.tags when it is an array of strings, without
// duplicates: reads show tags as a write would store them, so reading a
// document and writing it back changes nothing.
func (e *Envelope) Tags() []string {
	var t []string
	if v, ok := e.Meta["tags"]; ok && json.Unmarshal(v, &t) == nil && t != nil {
		return Dedupe(t)
	}
	return []string{}
}

// Version returns metadata.version: an integer, or a string holding one
// (as some existing banks store it), read exactly whatever its size; an
// integer too large for an int64 reads as math.MaxInt64 (which a write
// cannot increment: the Bank refuses such a write). A missing or unusable version
// reads as 1.
func (e *Envelope) Version() int64 {
	v, ok := e.Meta["version"]
	if !ok {
		return 1
	}
	s := string(bytes.TrimSpace(v))
	if len(s) > 0 && s[0] == '"' && json.Unmarshal(v, &s) != nil {
		return 1
	}
	s = strings.TrimSpace(s)
	n, err := strconv.ParseInt(s, 10, 64)
	switch {
	case err == nil && n >= 1:
		return n
	case errors.Is(err, strconv.ErrRange) && s[0] != '-':
		return math.MaxInt64
	}
	// A number spelled with a fraction or exponent ("3.0", "1e2"): exact
	// only below 2^53, as JSON readers hold it in a float64.
	f, err := strconv.ParseFloat(s, 64)
	if err == nil && f >= 1 && f < 1<<53 && f == math.Trunc(f) {
		return int64(f)
	}
	return 1
}

func (e *Envelope) Time(key string) time.Time {
	s, _ := e.Str(key)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// Canonical encodes the envelope in canonical member order: schema,
// metadata (compact, keys in metaOrder), content, then other members by
// name. With compact, every value is compacted (and so checked), as Read
// shows it; without, the content is copied as found, which is all a patch
// needs and spares a pass over a large document.
func (e *Envelope) Canonical(compact bool) ([]byte, error) {
	b := bytes.NewBuffer(make([]byte, 0, len(e.Content)+256))
	b.WriteString(`{"schema":`)
	if err := json.Compact(b, e.Schema); err != nil {
		return nil, err
	}
	b.WriteString(`,"metadata":`)
	if err := e.writeMeta(b); err != nil {
		return nil, err
	}
	if e.Content != nil {
		b.WriteString(`,"content":`)
		if compact {
			if err := json.Compact(b, e.Content); err != nil {
				return nil, err
			}
		} else {
			b.Write(bytes.TrimSpace(e.Content))
		}
	}
	for _, k := range sortedKeys(e.Extra) {
		b.WriteByte(',')
		b.Write(RawString(k))
		b.WriteByte(':')
		if err := json.Compact(b, e.Extra[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeMeta writes the metadata compactly in canonical key order.
func (e *Envelope) writeMeta(b *bytes.Buffer) error {
	b.WriteByte('{')
	for i, k := range orderedKeys(e.Meta, metaOrder) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(RawString(k))
		b.WriteByte(':')
		if err := json.Compact(b, e.Meta[k]); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func (e *Envelope) CanonicalMeta() json.RawMessage {
	var b bytes.Buffer
	if e.writeMeta(&b) != nil {
		return json.RawMessage(`{}`)
	}
	return b.Bytes()
}

// orderedKeys returns the keys of m: those in first, in that order, then the
// others sorted.
func orderedKeys(m map[string]json.RawMessage, first []string) []string {
	keys := make([]string, 0, len(m))
	for _, k := range first {
		if _, ok := m[k]; ok {
			keys = append(keys, k)
		}
	}
	for _, k := range sortedKeys(m) {
		if !slices.Contains(first, k) {
			keys = append(keys, k)
		}
	}
	return keys
}

func sortedKeys(m map[string]json.RawMessage) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// ValueAt returns the value at JSON Pointer ptr in the canonical form of
// the envelope, looking only at the member it names.
func (e *Envelope) ValueAt(ptr string) (json.RawMessage, bool) {
	if ptr == "" {
		c, err := e.Canonical(true)
		return c, err == nil
	}
	first, rest, _ := strings.Cut(ptr[1:], "/")
	first, _ = jsontext.UnescapeToken(first)
	var member json.RawMessage
	switch first {
	case "schema":
		member = e.Schema
	case "metadata":
		member = e.CanonicalMeta()
	case "content":
		member = e.Content
	default:
		member = e.Extra[first]
	}
	if member == nil {
		return nil, false
	}
	if rest == "" && !strings.HasSuffix(ptr, "/") {
		return member, true
	}
	return jsontext.At(member, "/"+rest)
}
