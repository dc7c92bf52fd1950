package memorybank

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"math"
	"slices"
	"strconv"
	"strings"

	"go.yaml.in/yaml/v3"
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
	if fm, rest, ok := splitFrontMatter(body); ok {
		top, meta, isMap, err := parseFrontMatter(fm)
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
		if tags := legacyTags(body); tags != nil {
			e.meta["tags"], _ = json.Marshal(tags)
		}
		e.meta["version"] = rawInt(textVersion(body))
	}
	if _, ok := e.meta["title"]; !ok {
		if t := firstHeading(body); t != "" {
			e.meta["title"] = rawString(t)
		}
	}
	e.content = rawString(body)
	return e, nil
}

// splitFrontMatter splits "---\n...\n---\n" from the start of s.
func splitFrontMatter(s string) (fm, rest string, ok bool) {
	s2 := strings.TrimPrefix(s, "\ufeff")
	if !strings.HasPrefix(s2, "---\n") && !strings.HasPrefix(s2, "---\r\n") {
		return "", s, false
	}
	_, after, _ := strings.Cut(s2, "\n")
	for i := 0; i < len(after); {
		j := strings.IndexByte(after[i:], '\n')
		line := after[i:]
		next := len(after)
		if j >= 0 {
			line = after[i : i+j]
			next = i + j + 1
		}
		if strings.TrimRight(line, "\r ") == "---" {
			return after[:i], after[next:], true
		}
		i = next
	}
	return "", s, false
}

// frontMatterError reports front matter that cannot be read.
type frontMatterError struct{ reason string }

func (e *frontMatterError) Error() string { return "front matter is not valid YAML: " + e.reason }

// maxFrontMatterNodes bounds the values front matter may expand to, so that
// YAML aliases cannot make a small block huge.
const maxFrontMatterNodes = 10000

// stringFields are the metadata fields that are strings whatever their YAML
// spelling: "title: 2024" is the title "2024", and an unquoted date stays
// the text it is.
var stringFields = map[string]bool{"id": true, "title": true, "documentType": true, "path": true, "createdAt": true, "lastModified": true}

// parseFrontMatter reads front matter with a YAML parser: "schema" at the
// top level, the metadata under "metadata:" or, as some banks write it,
// at the top level. isMap is false when the block is YAML but not a mapping.
func parseFrontMatter(fm string) (top, meta map[string]json.RawMessage, isMap bool, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(fm), &doc); err != nil {
		return nil, nil, false, &frontMatterError{reason: strings.TrimPrefix(err.Error(), "yaml: ")}
	}
	top = map[string]json.RawMessage{}
	meta = map[string]json.RawMessage{}
	if doc.Kind == 0 { // empty: "---\n---\n"
		return top, meta, true, nil
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode {
		return nil, nil, false, nil
	}
	budget := maxFrontMatterNodes
	members := func(n *yaml.Node, into map[string]json.RawMessage, skip func(string) bool) error {
		for i := 0; i+1 < len(n.Content); i += 2 {
			k, v := n.Content[i], n.Content[i+1]
			if k.Kind != yaml.ScalarNode {
				return &frontMatterError{reason: fmt.Sprintf("line %d: a key must be a plain name", k.Line)}
			}
			if skip != nil && skip(k.Value) {
				continue
			}
			if _, dup := into[k.Value]; dup {
				return &frontMatterError{reason: fmt.Sprintf("line %d: key %q appears twice", k.Line, k.Value)}
			}
			var raw json.RawMessage
			var err error
			if k.Value == "tags" && v.Kind == yaml.SequenceNode {
				raw, err = yamlTags(v, &budget)
			} else {
				raw, err = yamlToJSON(v, stringFields[k.Value], &budget)
			}
			if err != nil {
				return err
			}
			into[k.Value] = raw
		}
		return nil
	}
	var metaNode *yaml.Node
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "metadata" && root.Content[i+1].Kind == yaml.MappingNode {
			metaNode = root.Content[i+1]
		}
	}
	if err := members(root, meta, func(k string) bool { return k == "schema" || (k == "metadata" && metaNode != nil) }); err != nil {
		return nil, nil, false, err
	}
	for i := 0; i+1 < len(root.Content); i += 2 {
		if root.Content[i].Value == "schema" {
			if top["schema"], err = yamlToJSON(root.Content[i+1], true, &budget); err != nil {
				return nil, nil, false, err
			}
		}
	}
	if metaNode != nil {
		if err := members(metaNode, meta, nil); err != nil {
			return nil, nil, false, err
		}
	}
	return top, meta, true, nil
}

// yamlToJSON converts a YAML value to JSON: mappings to objects (keys as
// strings), sequences to arrays, scalars by their resolved YAML type
// (strings, integers kept exactly as written, floats, booleans, null;
// timestamps and anything else as their text). asString reads a scalar as
// its text whatever its type.
func yamlToJSON(n *yaml.Node, asString bool, budget *int) (json.RawMessage, error) {
	if *budget--; *budget < 0 {
		return nil, &frontMatterError{reason: fmt.Sprintf("more than %d values", maxFrontMatterNodes)}
	}
	switch n.Kind {
	case yaml.AliasNode:
		return yamlToJSON(n.Alias, asString, budget)
	case yaml.SequenceNode:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			v, err := yamlToJSON(c, false, budget)
			if err != nil {
				return nil, err
			}
			b.Write(v)
		}
		b.WriteByte(']')
		return b.Bytes(), nil
	case yaml.MappingNode:
		var b bytes.Buffer
		b.WriteByte('{')
		seen := map[string]bool{}
		for i := 0; i+1 < len(n.Content); i += 2 {
			k := n.Content[i]
			if k.Kind != yaml.ScalarNode {
				return nil, &frontMatterError{reason: fmt.Sprintf("line %d: a key must be a plain name", k.Line)}
			}
			if seen[k.Value] {
				return nil, &frontMatterError{reason: fmt.Sprintf("line %d: key %q appears twice", k.Line, k.Value)}
			}
			seen[k.Value] = true
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(rawString(k.Value))
			b.WriteByte(':')
			v, err := yamlToJSON(n.Content[i+1], false, budget)
			if err != nil {
				return nil, err
			}
			b.Write(v)
		}
		b.WriteByte('}')
		return b.Bytes(), nil
	case yaml.ScalarNode:
	default:
		return nil, &frontMatterError{reason: fmt.Sprintf("line %d: unexpected YAML node", n.Line)}
	}
	if asString && n.Tag != "!!null" {
		return rawString(n.Value), nil
	}
	switch n.Tag {
	case "!!null":
		return json.RawMessage("null"), nil
	case "!!bool":
		var v bool
		if n.Decode(&v) == nil {
			return json.RawMessage(strconv.FormatBool(v)), nil
		}
	case "!!int":
		if _, err := strconv.ParseInt(n.Value, 10, 64); err == nil || isDigits(n.Value) {
			return json.RawMessage(n.Value), nil // exactly as written, however large
		}
		var v int64
		if n.Decode(&v) == nil { // 0x1f, 0o17, 1_000
			return rawInt(v), nil
		}
	case "!!float":
		var v float64
		if n.Decode(&v) == nil && !math.IsInf(v, 0) && !math.IsNaN(v) {
			if json.Valid([]byte(n.Value)) {
				return json.RawMessage(n.Value), nil
			}
			return json.Marshal(v)
		}
	}
	return rawString(n.Value), nil
}

// yamlTags reads a list of tags: every scalar is a tag, as the text it is
// ("tags: [2024, yes]" are the tags "2024" and "yes").
func yamlTags(n *yaml.Node, budget *int) (json.RawMessage, error) {
	var b bytes.Buffer
	b.WriteByte('[')
	for i, c := range n.Content {
		if i > 0 {
			b.WriteByte(',')
		}
		v, err := yamlToJSON(c, c.Kind == yaml.ScalarNode, budget)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte(']')
	return b.Bytes(), nil
}

func isDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return s != ""
}

// legacyTags reads a "tags: #a #b" line among the first lines of a
// Markdown document, as memory-bank servers write it.
func legacyTags(body string) []string {
	for i, line := range strings.SplitN(body, "\n", 12) {
		if i == 11 {
			break
		}
		t := strings.TrimSpace(line)
		v, ok := strings.CutPrefix(t, "tags:")
		if !ok || !strings.Contains(v, "#") {
			continue
		}
		tags := []string{}
		for f := range strings.FieldsSeq(v) {
			if tag := strings.TrimRight(strings.TrimLeft(f, "#"), ","); tag != "" {
				tags = append(tags, tag)
			}
		}
		return tags
	}
	return nil
}

// setLegacyTags rewrites an existing "tags: #a #b" line so it agrees with
// the front matter; a body without one is returned unchanged.
func setLegacyTags(body string, tags []string) string {
	// Compared as reads show them (deduplicated), so a line repeating a tag
	// is left as written when the tags did not change.
	if old := legacyTags(body); old == nil || slices.Equal(dedupe(old), tags) {
		return body
	}
	lines := strings.SplitN(body, "\n", 12)
	for i, line := range lines {
		if i == 11 {
			break
		}
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "tags:")
		if !ok || !strings.Contains(v, "#") {
			continue
		}
		var b strings.Builder
		b.WriteString("tags:")
		for _, t := range tags {
			b.WriteString(" #" + strings.ReplaceAll(t, " ", "-"))
		}
		lines[i] = b.String()
		return strings.Join(lines, "\n")
	}
	return body
}

func firstHeading(body string) string {
	for line := range strings.SplitSeq(body, "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			return strings.TrimSpace(h)
		}
	}
	return ""
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
	b.WriteString("schema: " + yamlString(schema) + "\n")
	b.WriteString("metadata:\n")
	for _, k := range orderedKeys(e.meta, metaOrder) {
		v := e.meta[k]
		var list []json.RawMessage
		if json.Unmarshal(v, &list) == nil && list != nil {
			if len(list) == 0 {
				b.WriteString("  " + yamlString(k) + ": []\n")
				continue
			}
			b.WriteString("  " + yamlString(k) + ":\n")
			for _, it := range list {
				b.WriteString("    - " + yamlValue(it) + "\n")
			}
			continue
		}
		b.WriteString("  " + yamlString(k) + ": " + yamlValue(v) + "\n")
	}
	b.WriteString("---\n")
	body, _ := e.text()
	b.WriteString(body)
	return b.Bytes()
}

// yamlValue writes a JSON value as YAML: strings plain when safe, else
// double-quoted (JSON escapes are valid YAML); other values as compact JSON,
// which is valid YAML flow syntax.
func yamlValue(v json.RawMessage) string {
	var s string
	if v = compactRaw(v); len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return yamlString(s)
	}
	return string(v)
}

func yamlString(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`\n\r\t\\") ||
		strings.TrimSpace(s) != s || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "?") || !plainString(s) {
		return string(rawString(s))
	}
	return s
}

// plainString reports whether s, written unquoted, reads back as the string
// s (not a number, boolean, null or date).
func plainString(s string) bool {
	var n yaml.Node
	if yaml.Unmarshal([]byte(s), &n) != nil || len(n.Content) != 1 {
		return false
	}
	c := n.Content[0]
	return c.Kind == yaml.ScalarNode && c.Tag == "!!str" && c.Value == s
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

// textVersion is the version of a text document without front matter,
// which has nowhere to keep one: a number derived from its text (1 to
// 2^52, so that it and the versions that follow it once the file gets front
// matter stay exact in every JSON reader), so it changes whenever the text
// does and compare-and-swap with ifVersion works as for any document.
func textVersion(text string) int64 {
	h := fnv.New64a()
	h.Write([]byte(text))
	return int64(h.Sum64()%(1<<52)) + 1
}
