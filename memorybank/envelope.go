package memorybank

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
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
)

// timeLayout is the format of lastModified and createdAt: UTC, millisecond
// precision, as existing banks write them.
const timeLayout = "2006-01-02T15:04:05.000Z"

// Metadata fields the Bank maintains; patches may not touch them.
var maintainedPointers = []string{"/schema", "/metadata/id", "/metadata/path", "/metadata/createdAt", "/metadata/version", "/metadata/lastModified"}

// Canonical key order of metadata; other keys follow in byte order.
var metaOrder = []string{"id", "title", "documentType", "path", "tags", "lastModified", "createdAt", "version"}

// envelope is the one model of a document: the memory_document_v2 envelope
// {"schema", "metadata", "content", ...} of a JSON document, or the front
// matter and text of a text document (whose content is a JSON string).
// Values are kept as raw JSON, so fields the Bank does not know (agents
// enrich documents) survive unchanged, and the content, the only large
// part, is never decoded except once, for validation.
//
// Its invariants, all kept by the methods below: after normalize, schema,
// metadata title, documentType, tags, version and path are present and
// documentType lives in metadata; stamp sets the maintained fields (id,
// createdAt, lastModified, version) of a write; canonical is the compact
// form patches apply to and Read shows, with metadata keys in metaOrder;
// encode is the stored form.
type envelope struct {
	format  Format
	path    string
	schema  json.RawMessage            // nil when absent
	meta    map[string]json.RawMessage // never nil
	content json.RawMessage            // as found, possibly indented; nil when absent
	extra   map[string]json.RawMessage // other top-level members (JSON documents)
	// badMeta: "metadata" was there but not an object (and was dropped).
	badMeta bool
	// bare: a text document stored without front matter; its metadata is
	// what its text says (see decodeText).
	bare bool
	// dup is the pointer and name of a member of the envelope or of its
	// metadata that occurs twice (the last copy was kept), or "".
	dup, dupName string
	// deep: dup was judged at every depth (decodeForPatch), so the
	// document needs no other pass for repeated names.
	deep bool
}

func newEnvelope(format Format, p string) *envelope {
	return &envelope{format: format, path: p, meta: map[string]json.RawMessage{}}
}

// formatOf: .json paths are JSON documents, everything else is text.
func formatOf(p string) Format {
	if strings.HasSuffix(strings.ToLower(p), ".json") {
		return FormatJSON
	}
	return FormatText
}

// defaultTitle is the file name without its extension.
func defaultTitle(p string) string {
	base := path.Base(p)
	return strings.TrimSuffix(base, path.Ext(base))
}

// inferDocumentType gives the documentType of a file from its name, for
// documents that do not say.
func inferDocumentType(p string) string {
	switch defaultTitle(p) {
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

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

// decodeStored decodes a stored document, normalized. Only the metadata is
// decoded; the content stays raw.
func decodeStored(format Format, p string, data []byte) (*envelope, error) {
	var e *envelope
	if format == FormatJSON {
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 BOM some editors add
		var ok bool
		e, ok = splitEnvelope(format, p, data)
		switch {
		case ok && e.badMeta:
			return nil, fmt.Errorf("%w: %q: metadata is not an object; overwrite it with a full content write", ErrCorrupt, p)
		case !ok && json.Valid(data):
			// A JSON value that is not an object: show it as the content.
			e = newEnvelope(format, p)
			e.content = bytes.Clone(data)
		case !ok:
			return nil, fmt.Errorf("%w: %q is not valid JSON; overwrite it with a full content write", ErrCorrupt, p)
		}
	} else {
		var err error
		if e, err = decodeText(p, data); err != nil {
			return nil, fmt.Errorf("%w: %q: %v; overwrite it with a full write (text or content) to repair it", ErrCorrupt, p, err)
		}
	}
	e.normalize()
	return e, nil
}

// decodeForPatch is decodeStored for a JSON document a write is about to
// patch: the one pass that splits it also finds a member name repeated at
// any depth (dup), which the patch refuses, so the document is not walked
// again for it (see applyPatches).
func decodeForPatch(format Format, p string, data []byte) (*envelope, error) {
	if format != FormatJSON {
		return decodeStored(format, p, data)
	}
	body := bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	e, ok := splitDeep(format, p, body)
	if !ok {
		return decodeStored(format, p, data) // judged, and reported, as before
	}
	if e.badMeta {
		return nil, fmt.Errorf("%w: %q: metadata is not an object; overwrite it with a full content write", ErrCorrupt, p)
	}
	e.normalize()
	return e, nil
}

// splitDeep is splitEnvelope with repeated names judged at every depth in
// the same pass (codec.Members).
func splitDeep(format Format, p string, data []byte) (*envelope, bool) {
	e := newEnvelope(format, p)
	var meta json.RawMessage
	hasMeta := false
	ok, dup := codec.Members(data, func(k string, v []byte) { e.member(k, v, &meta, &hasMeta) })
	if !ok {
		return nil, false
	}
	e.deep = true
	if e.schema == nil && !(hasMeta && e.content != nil) {
		bare := newEnvelope(format, p)
		bare.content, bare.deep = data, true
		if dup != nil {
			bare.dup, bare.dupName = "/content"+dup.Pointer, dup.Name
		}
		return bare, true
	}
	if dup != nil {
		e.dup, e.dupName = dup.Pointer, dup.Name
	}
	if hasMeta && (json.Unmarshal(meta, &e.meta) != nil || e.meta == nil) {
		e.meta = map[string]json.RawMessage{}
		e.badMeta = true
	}
	return e, true
}

// member files one top-level member of a JSON document.
func (e *envelope) member(k string, v []byte, meta *json.RawMessage, hasMeta *bool) {
	switch k {
	case "schema":
		e.schema = v
	case "metadata":
		*meta, *hasMeta = v, true
	case "content":
		e.content = v
	default:
		if e.extra == nil {
			e.extra = map[string]json.RawMessage{}
		}
		e.extra[k] = v
	}
}

// splitEnvelope splits a JSON object into an envelope. An object that is
// not an envelope (no "schema", and not both "metadata" and "content") is
// the bare content of a new envelope. ok is false when data is not a JSON
// object. Values other than the metadata are not decoded (nor validated:
// canonical, validate and encode do that).
func splitEnvelope(format Format, p string, data []byte) (e *envelope, ok bool) {
	e = newEnvelope(format, p)
	var meta json.RawMessage
	hasMeta := false
	seen := make(map[string]struct{}, 4)
	ok = jsontext.ObjectMembers(data, func(k string, v []byte) {
		if _, d := seen[k]; d && e.dup == "" {
			e.dup, e.dupName = "/"+escapePointer(k), k
		}
		seen[k] = struct{}{}
		e.member(k, v, &meta, &hasMeta)
	})
	if !ok {
		return nil, false
	}
	if e.schema == nil && !(hasMeta && e.content != nil) {
		bare := newEnvelope(format, p)
		bare.content = data
		return bare, true
	}
	if hasMeta && (json.Unmarshal(meta, &e.meta) != nil || e.meta == nil) {
		e.meta = map[string]json.RawMessage{}
		e.badMeta = true
	}
	if hasMeta && e.dup == "" && !e.badMeta {
		names := make(map[string]struct{}, len(e.meta))
		jsontext.ObjectMembers(meta, func(k string, _ []byte) {
			if _, d := names[k]; d && e.dup == "" {
				e.dup, e.dupName = "/metadata/"+escapePointer(k), k
			}
			names[k] = struct{}{}
		})
	}
	return e, true
}

// normalize fills what a stored document may lack and moves a top-level
// documentType (written by later versions of some servers) into metadata,
// giving the canonical form.
func (e *envelope) normalize() {
	if dt, ok := e.extra["documentType"]; ok {
		if _, has := e.meta["documentType"]; !has {
			e.meta["documentType"] = dt
		}
		delete(e.extra, "documentType")
	}
	if e.schema == nil {
		e.schema = codec.RawString(SchemaV2)
	}
	if _, ok := e.meta["title"]; !ok {
		e.meta["title"] = codec.RawString(defaultTitle(e.path))
	}
	if _, ok := e.meta["documentType"]; !ok {
		e.meta["documentType"] = codec.RawString(inferDocumentType(e.path))
	}
	if _, ok := e.meta["tags"]; !ok {
		e.meta["tags"] = json.RawMessage(`[]`)
	}
	if _, ok := e.meta["version"]; !ok {
		e.meta["version"] = codec.RawInt(1)
	}
	e.meta["path"] = codec.RawString(e.path)
}

// stamp sets the metadata the Bank maintains on the document a write is
// about to store, given the stored document (nil for a new one) and the
// version before this write (the stored one's, or the version a delete
// consumed, so versions of a path never repeat). keepStored
// is true for a full content write: title, documentType and tags it does not
// give fall back to the stored document. A patch starts from the stored
// document, so a field missing after it was removed on purpose: it gets the
// default of normalize (title from the file name, documentType from it, tags
// []), never the stored value back. tags, when non-nil, replace the tags.
func (e *envelope) stamp(old *envelope, prev int64, now string, newID func() string, tags []string, keepStored bool) {
	if old != nil && keepStored {
		for _, k := range []string{"title", "documentType", "tags"} {
			if _, ok := e.meta[k]; !ok {
				if _, top := e.extra[k]; k == "documentType" && top {
					continue // normalize moves it into metadata
				}
				if v, ok := old.meta[k]; ok {
					e.meta[k] = v
				}
			}
		}
	}
	e.normalize()
	id, _ := e.str("id")
	created, _ := e.str("createdAt")
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
		id = newID()
	}
	if created == "" {
		created = now
	}
	version := prev + 1
	e.schema = codec.RawString(SchemaV2)
	e.meta["id"] = codec.RawString(id)
	e.meta["createdAt"] = codec.RawString(created)
	e.meta["lastModified"] = codec.RawString(now)
	e.meta["version"] = codec.RawInt(version)
	if tags == nil {
		var ts []string
		if json.Unmarshal(e.meta["tags"], &ts) == nil && ts != nil {
			tags = ts
		}
	}
	if tags != nil {
		e.meta["tags"], _ = json.Marshal(codec.Dedupe(tags))
	}
	if e.format == FormatText {
		if body, ok := e.text(); ok {
			e.content = codec.RawString(codec.SetLegacyTags(body, e.tags()))
		}
		// A text file stored without front matter keeps none while its
		// metadata is what its text says: only the text a write changes
		// changes, and its version is derived from the text. A new file
		// gets front matter.
		e.bare = false
		if old != nil && old.bare && e.derivable() {
			body, _ := e.text()
			e.bare = true
			e.meta["version"] = codec.RawInt(codec.TextVersion(body))
		}
	}
}

// derivable reports whether the metadata of a text envelope is exactly what
// a read of its text alone would derive (title from the first heading or
// the file name, tags from a "tags: #a" line, default documentType, nothing
// else), so the file needs no front matter. Fields only front matter holds
// (id, createdAt, lastModified, version) do not count: such a file has none.
func (e *envelope) derivable() bool {
	body, ok := e.text()
	if !ok || len(e.extra) > 0 {
		return false
	}
	d, err := decodeText(e.path, []byte(body))
	if err != nil || !d.bare {
		return false // the text itself starts with front matter
	}
	d.normalize()
	for _, m := range []map[string]json.RawMessage{e.meta, d.meta} {
		for k := range m {
			switch k {
			case "id", "createdAt", "lastModified", "version", "path":
			case "tags":
				if !slices.Equal(e.tags(), d.tags()) || !json.Valid(e.meta[k]) || e.meta[k][0] != '[' {
					return false
				}
			default:
				if !bytes.Equal(codec.CompactRaw(e.meta[k]), codec.CompactRaw(d.meta[k])) {
					return false
				}
			}
		}
	}
	return true
}

func (e *envelope) str(key string) (string, bool) {
	v, ok := e.meta[key]
	if !ok {
		return "", false
	}
	var s string
	if json.Unmarshal(v, &s) != nil {
		return "", false
	}
	return s, true
}

// text returns the text of a text document.
func (e *envelope) text() (string, bool) {
	var s string
	if len(e.content) == 0 || e.content[0] != '"' || json.Unmarshal(e.content, &s) != nil {
		return "", false
	}
	return s, true
}

// tags returns metadata.tags when it is an array of strings, without
// duplicates: reads show tags as a write would store them, so reading a
// document and writing it back changes nothing.
func (e *envelope) tags() []string {
	var t []string
	if v, ok := e.meta["tags"]; ok && json.Unmarshal(v, &t) == nil && t != nil {
		return codec.Dedupe(t)
	}
	return []string{}
}

// version returns metadata.version: an integer, or a string holding one
// (as some existing banks store it), read exactly whatever its size; an
// integer too large for an int64 reads as math.MaxInt64 (which a write
// cannot increment: see maxVersionProblem). A missing or unusable version
// reads as 1.
func (e *envelope) version() int64 {
	v, ok := e.meta["version"]
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

// maxVersionProblem refuses a write of a document whose version, edited by
// hand, is the largest there is: it cannot be incremented.
func maxVersionProblem(p string) error {
	return &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/metadata/version",
		Message: fmt.Sprintf("the stored version is %d, the largest a version can be, so a write cannot increment it; "+
			"edit metadata.version of the stored document to a smaller number, or delete the document (its versions then start again)", int64(math.MaxInt64))}}}
}

func (e *envelope) time(key string) time.Time {
	s, _ := e.str(key)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// canonical encodes the envelope in canonical member order: schema,
// metadata (compact, keys in metaOrder), content, then other members by
// name. With compact, every value is compacted (and so checked), as Read
// shows it; without, the content is copied as found, which is all a patch
// needs and spares a pass over a large document.
func (e *envelope) canonical(compact bool) ([]byte, error) {
	b := bytes.NewBuffer(make([]byte, 0, len(e.content)+256))
	b.WriteString(`{"schema":`)
	if err := json.Compact(b, e.schema); err != nil {
		return nil, err
	}
	b.WriteString(`,"metadata":`)
	if err := e.writeMeta(b); err != nil {
		return nil, err
	}
	if e.content != nil {
		b.WriteString(`,"content":`)
		if compact {
			if err := json.Compact(b, e.content); err != nil {
				return nil, err
			}
		} else {
			b.Write(bytes.TrimSpace(e.content))
		}
	}
	for _, k := range sortedKeys(e.extra) {
		b.WriteByte(',')
		b.Write(codec.RawString(k))
		b.WriteByte(':')
		if err := json.Compact(b, e.extra[k]); err != nil {
			return nil, err
		}
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}

// writeMeta writes the metadata compactly in canonical key order.
func (e *envelope) writeMeta(b *bytes.Buffer) error {
	b.WriteByte('{')
	for i, k := range orderedKeys(e.meta, metaOrder) {
		if i > 0 {
			b.WriteByte(',')
		}
		b.Write(codec.RawString(k))
		b.WriteByte(':')
		if err := json.Compact(b, e.meta[k]); err != nil {
			return err
		}
	}
	b.WriteByte('}')
	return nil
}

func (e *envelope) canonicalMeta() json.RawMessage {
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

// document converts the envelope to a Document.
func (e *envelope) document(scope Scope, branch string, modTime time.Time) (*Document, error) {
	d := &Document{
		Scope: scope, Branch: branch, Path: e.path, Format: e.format,
		Tags: e.tags(), Version: e.version(),
		LastModified: e.time("lastModified"), CreatedAt: e.time("createdAt"),
	}
	d.ID, _ = e.str("id")
	d.Title, _ = e.str("title")
	d.DocumentType, _ = e.str("documentType")
	if d.LastModified.IsZero() {
		d.LastModified = modTime.UTC()
	}
	if e.format == FormatJSON {
		c, err := e.canonical(true)
		if err != nil {
			return nil, fmt.Errorf("%w: %q is not valid JSON: %v; overwrite it with a full content write", ErrCorrupt, e.path, err)
		}
		d.Content = c
	} else {
		d.Metadata = e.canonicalMeta()
		d.Content = codec.CompactRaw(e.content)
	}
	return d, nil
}

// entry describes the document for List and the index.
func (e *envelope) entry(size int, modTime time.Time) ListEntry {
	le := ListEntry{Path: e.path, Tags: e.tags(), LastModified: e.time("lastModified"), Version: e.version(), Size: size}
	le.Title, _ = e.str("title")
	le.DocumentType, _ = e.str("documentType")
	if le.LastModified.IsZero() {
		le.LastModified = modTime.UTC()
	}
	return le
}
