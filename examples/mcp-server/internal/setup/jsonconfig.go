package setup

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"reflect"
)

// jsonFormat edits a JSON file holding the servers in an object under key;
// typ, when set, is written as the entry's "type".
type jsonFormat struct {
	key, typ string
}

// member is one member of a JSON object, its value kept as written.
type member struct {
	key   string
	value json.RawMessage
}

func (f jsonFormat) merge(path string, old []byte, s Server) ([]byte, string, string, error) {
	var top []member
	if len(bytes.TrimSpace(old)) > 0 {
		var err error
		if top, err = parseObject(old); err != nil {
			return nil, "", "", &ConfigError{Path: path, Reason: "not a JSON object (" + err.Error() +
				"); comments and trailing commas cannot be kept by setup: remove them, or add the server by hand"}
		}
	}
	var servers []member
	si := find(top, f.key)
	if si >= 0 && string(bytes.TrimSpace(top[si].value)) != "null" {
		var err error
		if servers, err = parseObject(top[si].value); err != nil {
			return nil, "", "", &ConfigError{Path: path, Reason: fmt.Sprintf("%q is not a JSON object of servers (%v); fix it by hand", f.key, err)}
		}
	}
	var entry []member
	before := ""
	ei := find(servers, s.Name)
	if ei >= 0 {
		var err error
		if entry, err = parseObject(servers[ei].value); err != nil {
			return nil, "", "", &ConfigError{Path: path, Reason: fmt.Sprintf("the server %q under %q is not a JSON object (%v); fix it by hand", s.Name, f.key, err)}
		}
		before = string(mustJSON(s.Name)) + ": " + indentValue(servers[ei].value, "")
	}
	if f.typ != "" {
		entry = set(entry, "type", mustJSON(f.typ))
	}
	entry = set(entry, "command", mustJSON(s.Command))
	entry = set(entry, "args", mustJSON(s.Args))
	newEntry := encodeObject(entry)
	if ei >= 0 && sameJSON(servers[ei].value, newEntry) {
		// Already configured: keep the bytes as they are.
		return old, before, before, nil
	}
	servers = set(servers, s.Name, newEntry)
	top = set(top, f.key, encodeObject(servers))
	out := append(encodeObject(top), '\n')
	return out, before, string(mustJSON(s.Name)) + ": " + indentValue(newEntry, ""), nil
}

// parseObject reads a JSON object's members in order, values as written.
func parseObject(data []byte) ([]member, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("want an object, found %v", tok)
	}
	var out []member
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, err
		}
		key, ok := tok.(string)
		if !ok {
			return nil, fmt.Errorf("want a member name, found %v", tok)
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("member %q: %w", key, err)
		}
		out = append(out, member{key, v})
	}
	if _, err := dec.Token(); err != nil { // the closing brace
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, fmt.Errorf("more after the object (at byte %d)", dec.InputOffset())
	}
	return out, nil
}

func find(ms []member, key string) int {
	for i, m := range ms {
		if m.key == key {
			return i
		}
	}
	return -1
}

// set replaces key's value where it stands, or appends it.
func set(ms []member, key string, v json.RawMessage) []member {
	if i := find(ms, key); i >= 0 {
		ms[i].value = v
		return ms
	}
	return append(ms, member{key, v})
}

// encodeObject writes members in order, indented by two spaces.
func encodeObject(ms []member) json.RawMessage {
	if len(ms) == 0 {
		return json.RawMessage("{}")
	}
	var b bytes.Buffer
	b.WriteString("{\n")
	for i, m := range ms {
		b.WriteString("  ")
		b.Write(mustJSON(m.key))
		b.WriteString(": ")
		b.WriteString(indentValue(m.value, "  "))
		if i < len(ms)-1 {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	b.WriteString("}")
	return b.Bytes()
}

// indentValue re-indents a JSON value, nested under prefix.
func indentValue(v json.RawMessage, prefix string) string {
	var b bytes.Buffer
	if err := json.Indent(&b, v, prefix, "  "); err != nil {
		return string(v) // values come from parseObject or mustJSON: valid
	}
	return b.String()
}

func mustJSON(v any) json.RawMessage {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		panic(err) // strings and string slices always encode
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

func sameJSON(a, b json.RawMessage) bool {
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}
