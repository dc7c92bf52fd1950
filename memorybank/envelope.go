package memorybank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path"
	"slices"
	"strconv"
	"strings"
	"time"
)

// SchemaV2 is the value of "schema" in every document the Bank writes.
const SchemaV2 = "memory_document_v2"

// timeLayout is the format of lastModified and createdAt: UTC, millisecond
// precision, as existing banks write them.
const timeLayout = "2006-01-02T15:04:05.000Z"

// Metadata fields the Bank maintains; patches may not touch them.
var maintainedPointers = []string{"/schema", "/metadata/id", "/metadata/path", "/metadata/createdAt", "/metadata/version", "/metadata/lastModified"}

// Canonical key order of metadata; other keys follow in byte order.
var metaOrder = []string{"id", "title", "documentType", "path", "tags", "lastModified", "createdAt", "version"}

// envelope is a memory_document_v2 document held as raw JSON values, so that
// fields the Bank does not know (agents enrich documents) survive unchanged
// and schema validation sees the values as they are.
type envelope struct {
	top  map[string]json.RawMessage // every top-level field except "metadata"
	meta map[string]json.RawMessage
	// badMeta: the parsed "metadata" was not an object (and was dropped).
	badMeta bool
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

func rawString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
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

// tags returns metadata.tags when it is an array of strings, without
// duplicates: reads show tags as a write would store them, so reading a
// document and writing it back changes nothing.
func (e *envelope) tags() []string {
	var t []string
	if v, ok := e.meta["tags"]; ok && json.Unmarshal(v, &t) == nil && t != nil {
		return dedupe(t)
	}
	return []string{}
}

// version returns metadata.version: a number, or a string holding an
// integer (as some existing banks store it); a missing or unusable version
// reads as 1.
func (e *envelope) version() int64 {
	v, ok := e.meta["version"]
	if !ok {
		return 1
	}
	var f float64
	if json.Unmarshal(v, &f) == nil && f >= 1 && f == float64(int64(f)) {
		return int64(f)
	}
	var s string
	if json.Unmarshal(v, &s) == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(s), 10, 64); err == nil && n >= 1 {
			return n
		}
	}
	return 1
}

func (e *envelope) time(key string) time.Time {
	s, _ := e.str(key)
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return time.Time{}
	}
	return t
}

// normalize fills what a stored document may lack and moves a top-level
// documentType (written by later versions of the origin server) into
// metadata, giving the canonical form.
func (e *envelope) normalize(p string) {
	if dt, ok := e.top["documentType"]; ok {
		if _, has := e.meta["documentType"]; !has {
			e.meta["documentType"] = dt
		}
		delete(e.top, "documentType")
	}
	if _, ok := e.top["schema"]; !ok {
		e.top["schema"] = rawString(SchemaV2)
	}
	if _, ok := e.meta["title"]; !ok {
		e.meta["title"] = rawString(defaultTitle(p))
	}
	if _, ok := e.meta["documentType"]; !ok {
		e.meta["documentType"] = rawString(inferDocumentType(p))
	}
	if _, ok := e.meta["tags"]; !ok {
		e.meta["tags"] = json.RawMessage(`[]`)
	}
	if _, ok := e.meta["version"]; !ok {
		e.meta["version"] = rawInt(1)
	}
	e.meta["path"] = rawString(p)
}

// canonical encodes the envelope compactly in canonical key order.
func (e *envelope) canonical() []byte {
	var b bytes.Buffer
	b.WriteByte('{')
	n := 0
	field := func(k string, v []byte) {
		if n > 0 {
			b.WriteByte(',')
		}
		n++
		b.Write(rawString(k))
		b.WriteByte(':')
		if err := json.Compact(&b, v); err != nil {
			b.WriteString("null") // unreachable: values come from parsed JSON
		}
	}
	if v, ok := e.top["schema"]; ok {
		field("schema", v)
	}
	field("metadata", e.canonicalMeta())
	if v, ok := e.top["content"]; ok {
		field("content", v)
	}
	for _, k := range orderedKeys(e.top, []string{"schema", "content"}) {
		if k == "schema" || k == "content" || k == "metadata" {
			continue
		}
		field(k, e.top[k])
	}
	b.WriteByte('}')
	return b.Bytes()
}

// canonicalMeta encodes the metadata compactly in canonical key order.
func (e *envelope) canonicalMeta() []byte {
	var m bytes.Buffer
	m.WriteByte('{')
	for i, k := range orderedKeys(e.meta, metaOrder) {
		if i > 0 {
			m.WriteByte(',')
		}
		m.Write(rawString(k))
		m.WriteByte(':')
		if err := json.Compact(&m, e.meta[k]); err != nil {
			m.WriteString("null")
		}
	}
	m.WriteByte('}')
	return m.Bytes()
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
	var rest []string
	for k := range m {
		if !slices.Contains(first, k) {
			rest = append(rest, k)
		}
	}
	slices.Sort(rest)
	return append(keys, rest...)
}

// parseEnvelopeJSON splits a JSON object into an envelope. An object that is
// not an envelope (no "schema", and not both "metadata" and "content") is
// taken as the bare content of a new envelope. ok is false when data is not
// a JSON object.
func parseEnvelopeJSON(data []byte) (e *envelope, ok bool) {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil || top == nil {
		return nil, false
	}
	_, hasSchema := top["schema"]
	_, hasMeta := top["metadata"]
	_, hasContent := top["content"]
	if !hasSchema && !(hasMeta && hasContent) {
		return &envelope{top: map[string]json.RawMessage{"content": bytes.Clone(data)}, meta: map[string]json.RawMessage{}}, true
	}
	e = &envelope{top: top, meta: map[string]json.RawMessage{}}
	if m, ok := top["metadata"]; ok {
		if json.Unmarshal(m, &e.meta) != nil || e.meta == nil {
			e.meta = map[string]json.RawMessage{}
			e.badMeta = true
		}
	}
	delete(e.top, "metadata")
	return e, true
}

// decodeStored decodes a stored document into its canonical envelope.
func decodeStored(format Format, p string, data []byte) (*envelope, error) {
	var e *envelope
	if format == FormatJSON {
		data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf")) // a UTF-8 BOM some editors add
		var ok bool
		e, ok = parseEnvelopeJSON(data)
		if !ok {
			if !json.Valid(data) {
				return nil, fmt.Errorf("%w: %q is not valid JSON; overwrite it with a full content write", ErrCorrupt, p)
			}
			// A JSON value that is not an object: show it as the content.
			e = &envelope{top: map[string]json.RawMessage{"content": bytes.Clone(data)}, meta: map[string]json.RawMessage{}}
		}
	} else {
		e = decodeText(data)
	}
	e.normalize(p)
	return e, nil
}

// encode returns the bytes to store: indented JSON for JSON documents, front
// matter plus text for text documents.
func (e *envelope) encode(format Format, c []byte) []byte {
	if format == FormatJSON {
		var b bytes.Buffer
		_ = json.Indent(&b, c, "", "  ")
		b.WriteByte('\n')
		return b.Bytes()
	}
	return encodeText(e)
}

// document converts a canonical envelope to a Document.
// canonical may be nil, or e.canonical() when the caller has it already.
func (e *envelope) document(format Format, scope Scope, branch, p string, modTime time.Time, canonical []byte) *Document {
	d := &Document{
		Scope: scope, Branch: branch, Path: p, Format: format,
		Tags: e.tags(), Version: e.version(),
		LastModified: e.time("lastModified"), CreatedAt: e.time("createdAt"),
	}
	d.ID, _ = e.str("id")
	d.Title, _ = e.str("title")
	d.DocumentType, _ = e.str("documentType")
	if d.LastModified.IsZero() {
		d.LastModified = modTime.UTC()
	}
	if format == FormatJSON {
		if canonical == nil {
			canonical = e.canonical()
		}
		d.Content = canonical
	} else {
		d.Metadata = e.canonicalMeta()
		d.Content = compactRaw(e.top["content"])
	}
	return d
}

func compactRaw(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

func formatTime(t time.Time) string { return t.UTC().Format(timeLayout) }

func rawInt(n int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(n, 10)) }
