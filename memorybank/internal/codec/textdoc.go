package codec

import (
	"bytes"
	"encoding/json"
	"fmt"
)

// Text documents (every path not ending in .json) are stored as their text
// preceded by a YAML front matter block holding the same metadata as a JSON
// document, in the layout existing banks use:
//
//	---
//	schema: memory_document_v2
//	metadata:
//	  id: 6f1c...
//	  title: Architecture
//	  tags:
//	    - core
//	  version: 3
//	---
//	# Architecture
//
// Front matter is read with a YAML parser (go.yaml.in/yaml/v3), so any YAML
// a person writes works: the metadata keys at the top level or under
// "metadata:", flow or block lists, block scalars, nested maps, comments.
// Front matter that does not parse is an error (the Bank's ErrCorrupt), like a .json file that is
// not JSON. Files without front matter are described by their text: see
// DecodeText.

// DecodeText parses a stored text document into an envelope whose content
// is a JSON string. Front matter that is not valid YAML, or holds a key
// twice, is an error (ErrCorrupt for a stored document): guessing would
// silently reset its id, tags and version. A block between "---" lines that
// is YAML but not a mapping (a Markdown thematic break around a paragraph)
// is not front matter: it stays part of the text.
func DecodeText(p string, data []byte) (*Envelope, error) {
	e, body, err := decodeText(p, data)
	if err != nil {
		return nil, err
	}
	e.Content = RawString(body)
	return e, nil
}

// DecodeTextMeta is DecodeStored for a text document whose metadata and
// text are wanted but not its content as JSON (a search reading it): the
// envelope it returns, normalized, has no Content, and the text is
// returned as it is stored after the front matter.
func DecodeTextMeta(p string, data []byte) (*Envelope, string, error) {
	e, body, err := decodeText(p, data)
	if err != nil {
		return nil, "", fmt.Errorf("%q: %v; overwrite it with a full write (text or content) to repair it", p, err)
	}
	e.Normalize()
	return e, body, nil
}

// decodeText is DecodeText without the content: the text is returned.
func decodeText(p string, data []byte) (*Envelope, string, error) {
	e := NewEnvelope(FormatText, p)
	body := string(data)
	parsed := false
	if fm, rest, ok := SplitFrontMatter(body); ok {
		top, meta, isMap, err := ParseFrontMatter(fm)
		if err != nil {
			return nil, "", err
		}
		if isMap {
			e.Schema = top["schema"]
			e.Meta = meta
			body = rest
			parsed = true
		}
	}
	if !parsed {
		e.Bare = true
		if tags := LegacyTags(body); tags != nil {
			e.Meta["tags"], _ = json.Marshal(tags)
		}
		e.Meta["version"] = RawInt(TextVersion(body))
	}
	if _, ok := e.Meta["title"]; !ok {
		if t := FirstHeading(body); t != "" {
			e.Meta["title"] = RawString(t)
		}
	}
	return e, body, nil
}

// EncodeText writes the front matter and the text of a text envelope.
func EncodeText(e *Envelope) []byte {
	if e.Bare {
		body, _ := e.Text()
		return []byte(body)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	schema := SchemaV2
	if e.Schema != nil {
		_ = json.Unmarshal(e.Schema, &schema)
	}
	b.WriteString("schema: " + YAMLString(schema) + "\n")
	b.WriteString("metadata:\n")
	for _, k := range orderedKeys(e.Meta, metaOrder) {
		v := e.Meta[k]
		var list []json.RawMessage
		if json.Unmarshal(v, &list) == nil && list != nil {
			if len(list) == 0 {
				b.WriteString("  " + YAMLString(k) + ": []\n")
				continue
			}
			b.WriteString("  " + YAMLString(k) + ":\n")
			for _, it := range list {
				b.WriteString("    - " + YAMLValue(it) + "\n")
			}
			continue
		}
		b.WriteString("  " + YAMLString(k) + ": " + YAMLValue(v) + "\n")
	}
	b.WriteString("---\n")
	body, _ := e.Text()
	b.WriteString(body)
	return b.Bytes()
}
