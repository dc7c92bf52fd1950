package setup

import (
	"bytes"
	"fmt"
	"reflect"
	"strings"

	"github.com/pelletier/go-toml/v2"
)

// tomlFormat edits Codex CLI's config.toml: the server is the table
// [mcp_servers.NAME]. Only that table's lines (and its sub-tables', such as
// [mcp_servers.NAME.env]) are rewritten; every other line stays as written,
// comments included. The result is parsed again and checked to hold the
// same settings as before besides the entry, so a layout this line editing
// misreads is refused instead of written.
type tomlFormat struct{}

func (tomlFormat) merge(path string, old []byte, s Server) ([]byte, string, string, error) {
	var doc map[string]any
	if err := toml.Unmarshal(old, &doc); err != nil {
		return nil, "", "", &ConfigError{Path: path, Reason: "not valid TOML (" + err.Error() + "); fix it first"}
	}
	if doc == nil {
		doc = map[string]any{}
	}
	servers, _ := doc["mcp_servers"].(map[string]any)
	if _, ok := doc["mcp_servers"]; ok && servers == nil {
		return nil, "", "", &ConfigError{Path: path, Reason: "mcp_servers is not a table; fix it by hand"}
	}
	var entry map[string]any
	before := ""
	if e, ok := servers[s.Name]; ok {
		if entry, ok = e.(map[string]any); !ok {
			return nil, "", "", &ConfigError{Path: path, Reason: fmt.Sprintf("mcp_servers.%s is not a table; fix it by hand", s.Name)}
		}
		before = renderTable(s.Name, entry)
	}
	want := map[string]any{}
	for k, v := range entry {
		want[k] = v
	}
	want["command"] = s.Command
	args := make([]any, len(s.Args))
	for i, a := range s.Args {
		args[i] = a
	}
	want["args"] = args
	after := renderTable(s.Name, want)
	if entry != nil && reflect.DeepEqual(entry, want) {
		return old, before, before, nil
	}

	lines := strings.SplitAfter(string(old), "\n")
	start, end := -1, len(lines)
	for i, l := range lines {
		key, ok := tableHeader(l)
		if !ok {
			continue
		}
		own := key == "mcp_servers."+s.Name || strings.HasPrefix(key, "mcp_servers."+s.Name+".")
		switch {
		case start < 0 && own:
			start = i
		case start >= 0 && !own:
			end = i
		}
		if start >= 0 && end < len(lines) {
			break
		}
	}
	var out bytes.Buffer
	if start < 0 {
		if entry != nil {
			return nil, "", "", &ConfigError{Path: path, Reason: fmt.Sprintf("mcp_servers.%s is written inline or as dotted keys, which setup does not rewrite; "+
				"replace it by hand with:\n%s", s.Name, after)}
		}
		out.WriteString(string(old))
		if out.Len() > 0 && !bytes.HasSuffix(out.Bytes(), []byte("\n")) {
			out.WriteByte('\n')
		}
		if out.Len() > 0 {
			out.WriteByte('\n')
		}
		out.WriteString(after)
	} else {
		out.WriteString(strings.Join(lines[:start], ""))
		out.WriteString(after)
		if end < len(lines) {
			out.WriteByte('\n')
		}
		out.WriteString(strings.Join(lines[end:], ""))
	}

	// The check: the new file parses, holds our entry as wanted, and
	// everything else as it was.
	var got map[string]any
	if err := toml.Unmarshal(out.Bytes(), &got); err != nil {
		return nil, "", "", &ConfigError{Path: path, Reason: "setup could not edit this file's layout safely (" + err.Error() + "); add this by hand:\n" + after}
	}
	gotServers, _ := got["mcp_servers"].(map[string]any)
	if !reflect.DeepEqual(gotServers[s.Name], want) || !sameExcept(doc, got, s.Name) {
		return nil, "", "", &ConfigError{Path: path, Reason: "setup could not edit this file's layout safely; add this by hand:\n" + after}
	}
	return out.Bytes(), before, after, nil
}

// sameExcept reports whether a and b hold the same settings besides
// mcp_servers.name.
func sameExcept(a, b map[string]any, name string) bool {
	strip := func(m map[string]any) map[string]any {
		c := map[string]any{}
		for k, v := range m {
			c[k] = v
		}
		if s, ok := c["mcp_servers"].(map[string]any); ok {
			cs := map[string]any{}
			for k, v := range s {
				if k != name {
					cs[k] = v
				}
			}
			if len(cs) == 0 {
				delete(c, "mcp_servers")
			} else {
				c["mcp_servers"] = cs
			}
		}
		return c
	}
	return reflect.DeepEqual(strip(a), strip(b))
}

// renderTable writes the entry as the TOML table [mcp_servers.name], with
// command and args first.
func renderTable(name string, entry map[string]any) string {
	data, err := toml.Marshal(map[string]any{"mcp_servers": map[string]any{name: entry}})
	if err != nil {
		return fmt.Sprintf("[mcp_servers.%s]\n# %v\n", name, err)
	}
	// go-toml writes the empty parent table first; the entry's own table is
	// what the file needs.
	text := string(data)
	if i := strings.Index(text, "[mcp_servers."+name+"]"); i >= 0 {
		text = text[i:]
	}
	return text
}

// tableHeader returns the dotted key of a [table] header line (not an
// [[array]] one), with whitespace and simple quotes removed.
func tableHeader(line string) (string, bool) {
	l := strings.TrimSpace(line)
	if i := strings.Index(l, "#"); i >= 0 && !strings.ContainsAny(l[:i], `"'`) {
		l = strings.TrimSpace(l[:i])
	}
	if !strings.HasPrefix(l, "[") || !strings.HasSuffix(l, "]") {
		return "", false
	}
	if strings.HasPrefix(l, "[[") {
		return strings.Trim(l, "[] "), true // an array of tables ends ours too
	}
	parts := strings.Split(l[1:len(l)-1], ".")
	for i, p := range parts {
		parts[i] = strings.Trim(strings.TrimSpace(p), `"'`)
	}
	return strings.Join(parts, "."), true
}
