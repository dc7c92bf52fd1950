package memorybank

import (
	"bytes"
	"encoding/json"

	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
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
// Front matter that does not parse is ErrCorrupt, like a .json file that is
// not JSON. Files without front matter are described by their text: see
// decodeText.

// decodeText parses a stored text document into an envelope whose content
// is a JSON string. Front matter that is not valid YAML, or holds a key
// twice, is an error (ErrCorrupt for a stored document): guessing would
// silently reset its id, tags and version. A block between "---" lines that
// is YAML but not a mapping (a Markdown thematic break around a paragraph)
// is not front matter: it stays part of the text.
func decodeText(p string, data []byte) (*envelope, error) {
	e := newEnvelope(FormatText, p)
	body := string(data)
	parsed := false
	if fm, rest, ok := codec.SplitFrontMatter(body); ok {
		top, meta, isMap, err := codec.ParseFrontMatter(fm)
		if err != nil {
			return nil, err
		}
		if isMap {
			e.schema = top["schema"]
			e.meta = meta
			body = rest
			parsed = true
		}
	}
	if !parsed {
		e.bare = true
		if tags := codec.LegacyTags(body); tags != nil {
			e.meta["tags"], _ = json.Marshal(tags)
		}
		e.meta["version"] = codec.RawInt(codec.TextVersion(body))
	}
	if _, ok := e.meta["title"]; !ok {
		if t := codec.FirstHeading(body); t != "" {
			e.meta["title"] = codec.RawString(t)
		}
	}
	e.content = codec.RawString(body)
	return e, nil
}

// encodeText writes the front matter and the text of a text envelope.
func encodeText(e *envelope) []byte {
	if e.bare {
		body, _ := e.text()
		return []byte(body)
	}
	var b bytes.Buffer
	b.WriteString("---\n")
	schema := SchemaV2
	if e.schema != nil {
		_ = json.Unmarshal(e.schema, &schema)
	}
	b.WriteString("schema: " + codec.YAMLString(schema) + "\n")
	b.WriteString("metadata:\n")
	for _, k := range orderedKeys(e.meta, metaOrder) {
		v := e.meta[k]
		var list []json.RawMessage
		if json.Unmarshal(v, &list) == nil && list != nil {
			if len(list) == 0 {
				b.WriteString("  " + codec.YAMLString(k) + ": []\n")
				continue
			}
			b.WriteString("  " + codec.YAMLString(k) + ":\n")
			for _, it := range list {
				b.WriteString("    - " + codec.YAMLValue(it) + "\n")
			}
			continue
		}
		b.WriteString("  " + codec.YAMLString(k) + ": " + codec.YAMLValue(v) + "\n")
	}
	b.WriteString("---\n")
	body, _ := e.text()
	b.WriteString(body)
	return b.Bytes()
}

// textEnvelope builds the envelope of a write of text: its front matter, if
// any, is metadata.
func textEnvelope(p, text string) (*envelope, error) {
	e, err := decodeText(p, []byte(text))
	if err != nil {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/metadata", Message: err.Error() + "; fix the front matter, or send the text without it"}}}
	}
	return e, nil
}
