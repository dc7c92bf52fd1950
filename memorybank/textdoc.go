package memorybank

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
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
// Reading also accepts what existing banks hold: front matter with the
// metadata keys at the top level, flow lists ("tags: [a, b]"), and files
// without front matter whose first lines carry "tags: #a #b" (the tags line
// stays part of the text). Front matter the Bank cannot parse is kept as
// part of the text, so nothing is lost.

// decodeText parses a stored text document into an envelope whose content
// is a JSON string.
func decodeText(p string, data []byte) *envelope {
	e := newEnvelope(FormatText, p)
	body := string(data)
	parsed := false
	if fm, rest, ok := splitFrontMatter(body); ok {
		if top, meta, ok := parseFrontMatter(fm); ok {
			e.schema = top["schema"]
			e.meta = meta
			body = rest
			parsed = true
		}
	}
	if !parsed {
		if tags := legacyTags(body); tags != nil {
			e.meta["tags"], _ = json.Marshal(tags)
		}
	}
	if _, ok := e.meta["title"]; !ok {
		if t := firstHeading(body); t != "" {
			e.meta["title"] = rawString(t)
		}
	}
	e.content = rawString(body)
	return e
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

// parseFrontMatter reads the YAML subset existing banks use: scalar keys,
// one level of nesting under "metadata:", block and flow lists of scalars.
// Keys other than "schema" outside "metadata:" are taken as metadata too.
func parseFrontMatter(fm string) (top, meta map[string]json.RawMessage, ok bool) {
	top = map[string]json.RawMessage{}
	meta = map[string]json.RawMessage{}
	lines := strings.Split(strings.ReplaceAll(fm, "\r\n", "\n"), "\n")
	inMeta := false
	var listKey string
	var list []json.RawMessage
	var listTarget map[string]json.RawMessage
	flush := func() {
		if listKey != "" {
			if list == nil {
				listTarget[listKey] = json.RawMessage(`null`)
			} else {
				listTarget[listKey] = rawArray(list)
			}
			listKey, list = "", nil
		}
	}
	for _, line := range lines {
		if strings.TrimSpace(line) == "" || strings.HasPrefix(strings.TrimSpace(line), "#") {
			continue
		}
		indent := len(line) - len(strings.TrimLeft(line, " "))
		text := strings.TrimSpace(line)
		if strings.HasPrefix(text, "- ") || text == "-" {
			if listKey == "" {
				return nil, nil, false
			}
			list = append(list, yamlScalar(strings.TrimSpace(strings.TrimPrefix(text, "-"))))
			continue
		}
		flush()
		key, val, found := strings.Cut(text, ":")
		if !found || key == "" || strings.ContainsAny(key, " \"'{}[]") {
			return nil, nil, false
		}
		val = strings.TrimSpace(val)
		target := meta
		switch {
		case indent == 0 && key == "metadata" && val == "":
			inMeta = true
			continue
		case indent == 0:
			inMeta = false
			if key == "schema" {
				target = top
			}
		case !inMeta:
			return nil, nil, false
		}
		if val == "" {
			listKey, listTarget = key, target
			continue
		}
		if strings.HasPrefix(val, "[") {
			items, ok := flowList(val)
			if !ok {
				return nil, nil, false
			}
			target[key] = rawArray(items)
			continue
		}
		if strings.HasPrefix(val, "{") || strings.HasPrefix(val, "|") || strings.HasPrefix(val, ">") {
			if json.Valid([]byte(val)) {
				target[key] = json.RawMessage(val)
				continue
			}
			return nil, nil, false
		}
		target[key] = yamlScalar(val)
	}
	flush()
	return top, meta, true
}

func rawArray(items []json.RawMessage) json.RawMessage {
	if len(items) == 0 {
		return json.RawMessage(`[]`)
	}
	return json.RawMessage("[" + string(bytes.Join(func() [][]byte {
		out := make([][]byte, len(items))
		for i, it := range items {
			out[i] = it
		}
		return out
	}(), []byte(","))) + "]")
}

// flowList parses "[a, 'b', "c"]".
func flowList(v string) ([]json.RawMessage, bool) {
	if !strings.HasSuffix(v, "]") {
		return nil, false
	}
	inner := strings.TrimSpace(v[1 : len(v)-1])
	if inner == "" {
		return []json.RawMessage{}, true
	}
	var items []json.RawMessage
	for len(inner) > 0 {
		var item string
		switch inner[0] {
		case '"':
			end := 1
			for end < len(inner) && (inner[end] != '"' || inner[end-1] == '\\') {
				end++
			}
			if end >= len(inner) {
				return nil, false
			}
			item, inner = inner[:end+1], inner[end+1:]
		case '\'':
			end := strings.IndexByte(inner[1:], '\'')
			if end < 0 {
				return nil, false
			}
			item, inner = inner[:end+2], inner[end+2:]
		default:
			i := strings.IndexByte(inner, ',')
			if i < 0 {
				i = len(inner)
			}
			item, inner = inner[:i], inner[i:]
		}
		items = append(items, yamlScalar(strings.TrimSpace(item)))
		inner = strings.TrimSpace(inner)
		if strings.HasPrefix(inner, ",") {
			inner = strings.TrimSpace(inner[1:])
		} else if inner != "" {
			return nil, false
		}
	}
	return items, true
}

// yamlScalar converts a YAML scalar to JSON: quoted strings, numbers,
// booleans and null as such, anything else as a plain string.
func yamlScalar(v string) json.RawMessage {
	if strings.HasPrefix(v, `"`) {
		var s string
		if json.Unmarshal([]byte(v), &s) == nil {
			return rawString(s)
		}
	}
	if len(v) >= 2 && v[0] == '\'' && v[len(v)-1] == '\'' {
		return rawString(strings.ReplaceAll(v[1:len(v)-1], "''", "'"))
	}
	if (strings.HasPrefix(v, "{") || strings.HasPrefix(v, "[")) && json.Valid([]byte(v)) {
		return json.RawMessage(v) // flow collections the Bank writes as JSON
	}
	switch v {
	case "true", "false", "null":
		return json.RawMessage(v)
	case "~":
		return json.RawMessage("null")
	}
	if _, err := strconv.ParseInt(v, 10, 64); err == nil {
		return json.RawMessage(v)
	}
	if _, err := strconv.ParseFloat(v, 64); err == nil && json.Valid([]byte(v)) {
		return json.RawMessage(v)
	}
	if i := strings.Index(v, " #"); i >= 0 { // trailing comment
		v = strings.TrimSpace(v[:i])
	}
	return rawString(v)
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
				b.WriteString("  " + k + ": []\n")
				continue
			}
			b.WriteString("  " + k + ":\n")
			for _, it := range list {
				b.WriteString("    - " + yamlValue(it) + "\n")
			}
			continue
		}
		b.WriteString("  " + k + ": " + yamlValue(v) + "\n")
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
		strings.TrimSpace(s) != s || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "?") {
		return string(rawString(s))
	}
	switch yamlScalar(s)[0] {
	case '"':
		return s
	}
	return string(rawString(s)) // would read back as a number, boolean or null
}
