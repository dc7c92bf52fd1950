package codec

// Text documents: the front matter (YAML) and the text conventions of
// existing banks (a "tags: #a" line, the first heading as title, a version
// derived from text without front matter). The envelope that holds them is
// in textdoc.go.

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

// SplitFrontMatter splits "---\n...\n---\n" from the start of s.
func SplitFrontMatter(s string) (fm, rest string, ok bool) {
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

// FrontMatterError reports front matter that cannot be read.
type FrontMatterError struct{ reason string }

func (e *FrontMatterError) Error() string { return "front matter is not valid YAML: " + e.reason }

// maxFrontMatterNodes bounds the values front matter may expand to, so that
// YAML aliases cannot make a small block huge.
const maxFrontMatterNodes = 10000

// stringFields are the metadata fields that are strings whatever their YAML
// spelling: "title: 2024" is the title "2024", and an unquoted date stays
// the text it is.
var stringFields = map[string]bool{"id": true, "title": true, "documentType": true, "path": true, "createdAt": true, "lastModified": true}

// ParseFrontMatter reads front matter with a YAML parser: "schema" at the
// top level, the metadata under "metadata:" or, as some banks write it,
// at the top level. isMap is false when the block is YAML but not a mapping.
func ParseFrontMatter(fm string) (top, meta map[string]json.RawMessage, isMap bool, err error) {
	var doc yaml.Node
	if err := yaml.Unmarshal([]byte(fm), &doc); err != nil {
		return nil, nil, false, &FrontMatterError{reason: strings.TrimPrefix(err.Error(), "yaml: ")}
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
				return &FrontMatterError{reason: fmt.Sprintf("line %d: a key must be a plain name", k.Line)}
			}
			if skip != nil && skip(k.Value) {
				continue
			}
			if _, dup := into[k.Value]; dup {
				return &FrontMatterError{reason: fmt.Sprintf("line %d: key %q appears twice", k.Line, k.Value)}
			}
			var raw json.RawMessage
			var err error
			if k.Value == "tags" && v.Kind == yaml.SequenceNode {
				raw, err = yamlTags(v, &budget)
			} else {
				raw, err = yamlToJSON(v, stringFields[k.Value], &budget, 0)
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
			if top["schema"], err = yamlToJSON(root.Content[i+1], true, &budget, 0); err != nil {
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
// depth is how deep n is nested already; a value deeper than MaxDepth is a
// *DepthError, found on the way down, before anything is built.
func yamlToJSON(n *yaml.Node, asString bool, budget *int, depth int) (json.RawMessage, error) {
	if *budget--; *budget < 0 {
		return nil, &FrontMatterError{reason: fmt.Sprintf("more than %d values", maxFrontMatterNodes)}
	}
	if (n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode) && depth >= MaxDepth {
		return nil, &DepthError{Depth: depth + yamlDepth(n, maxFrontMatterNodes), Max: MaxDepth}
	}
	switch n.Kind {
	case yaml.AliasNode:
		return yamlToJSON(n.Alias, asString, budget, depth)
	case yaml.SequenceNode:
		var b bytes.Buffer
		b.WriteByte('[')
		for i, c := range n.Content {
			if i > 0 {
				b.WriteByte(',')
			}
			v, err := yamlToJSON(c, false, budget, depth+1)
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
				return nil, &FrontMatterError{reason: fmt.Sprintf("line %d: a key must be a plain name", k.Line)}
			}
			if seen[k.Value] {
				return nil, &FrontMatterError{reason: fmt.Sprintf("line %d: key %q appears twice", k.Line, k.Value)}
			}
			seen[k.Value] = true
			if i > 0 {
				b.WriteByte(',')
			}
			b.Write(RawString(k.Value))
			b.WriteByte(':')
			v, err := yamlToJSON(n.Content[i+1], false, budget, depth+1)
			if err != nil {
				return nil, err
			}
			b.Write(v)
		}
		b.WriteByte('}')
		return b.Bytes(), nil
	case yaml.ScalarNode:
	default:
		return nil, &FrontMatterError{reason: fmt.Sprintf("line %d: unexpected YAML node", n.Line)}
	}
	if asString && n.Tag != "!!null" {
		return RawString(n.Value), nil
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
			return RawInt(v), nil
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
	return RawString(n.Value), nil
}

// yamlDepth is how deep n nests sequences and mappings, visiting at most
// budget nodes (YAML's own parser bounds the depth, aliases may repeat
// nodes).
func yamlDepth(n *yaml.Node, budget int) int {
	deepest := 0
	var walk func(n *yaml.Node, d int)
	walk = func(n *yaml.Node, d int) {
		if budget--; budget < 0 {
			return
		}
		if n.Kind == yaml.AliasNode && n.Alias != nil {
			n = n.Alias
		}
		if n.Kind == yaml.SequenceNode || n.Kind == yaml.MappingNode {
			d++
		}
		deepest = max(deepest, d)
		for _, c := range n.Content {
			walk(c, d)
		}
	}
	walk(n, 0)
	return deepest
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
		v, err := yamlToJSON(c, c.Kind == yaml.ScalarNode, budget, 1)
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

// LegacyTags reads a "tags: #a #b" line among the first lines of a
// Markdown document, as memory-bank servers write it.
func LegacyTags(body string) []string {
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

// SetLegacyTags rewrites an existing "tags: #a #b" line so it agrees with
// the front matter; a body without one is returned unchanged.
func SetLegacyTags(body string, tags []string) string {
	// Compared as reads show them (deduplicated), so a line repeating a tag
	// is left as written when the tags did not change.
	if old := LegacyTags(body); old == nil || slices.Equal(Dedupe(old), tags) {
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

func FirstHeading(body string) string {
	for line := range strings.SplitSeq(body, "\n") {
		if h, ok := strings.CutPrefix(strings.TrimSpace(line), "# "); ok {
			return strings.TrimSpace(h)
		}
	}
	return ""
}

// YAMLValue writes a JSON value as YAML: strings plain when safe, else
// double-quoted (JSON escapes are valid YAML); other values as compact JSON,
// which is valid YAML flow syntax.
func YAMLValue(v json.RawMessage) string {
	var s string
	if v = CompactRaw(v); len(v) > 0 && v[0] == '"' && json.Unmarshal(v, &s) == nil {
		return YAMLString(s)
	}
	return string(v)
}

func YAMLString(s string) string {
	if s == "" || strings.ContainsAny(s, ":#{}[],&*!|>'\"%@`\n\r\t\\") ||
		strings.TrimSpace(s) != s || strings.HasPrefix(s, "-") || strings.HasPrefix(s, "?") || !plainString(s) {
		return string(RawString(s))
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

// TextVersion is the version of a text document without front matter,
// which has nowhere to keep one: a number derived from its text (1 to
// 2^52, so that it and the versions that follow it once the file gets front
// matter stay exact in every JSON reader), so it changes whenever the text
// does and compare-and-swap with ifVersion works as for any document.
func TextVersion(text string) int64 {
	h := fnv.New64a()
	h.Write([]byte(text))
	return int64(h.Sum64()%(1<<52)) + 1
}

// RawString is s as a JSON string.
func RawString(s string) json.RawMessage {
	b, _ := json.Marshal(s)
	return b
}

// RawInt is n as a JSON number.
func RawInt(n int64) json.RawMessage { return json.RawMessage(strconv.FormatInt(n, 10)) }

// CompactRaw is v compacted, or v itself when it is not JSON.
func CompactRaw(v json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if json.Compact(&b, v) != nil {
		return v
	}
	return b.Bytes()
}

// Dedupe keeps the first occurrence of each tag, in order. A map keeps it
// linear: a stored document may carry any number of tags.
func Dedupe(tags []string) []string {
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
