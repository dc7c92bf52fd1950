package foreign

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// mcpLine is one line of the MCP memory server's file: an entity or a
// relation, told apart by "type".
type mcpLine struct {
	Type         string   `json:"type"`
	Name         *string  `json:"name"`
	EntityType   string   `json:"entityType"`
	Observations []string `json:"observations"`
	From         *string  `json:"from"`
	To           *string  `json:"to"`
	RelationType string   `json:"relationType"`
}

type mcpEntity struct {
	name, entityType string
	observations     []string
	out, in          []string // "relationType [[other]]" lines
}

// ReadMCPMemory reads the JSON Lines knowledge graph the MCP reference
// memory server (@modelcontextprotocol/server-memory) keeps in its
// MEMORY_FILE_PATH: lines {"type":"entity","name",...,"entityType",
// "observations":[...]} and {"type":"relation","from","to","relationType"}.
// Each entity becomes one document at prefix + a file name made from its
// name ("" is MCPMemoryPrefix): front matter with its title (the name) and
// entityType (also its tag), then its observations and its relations, out and in, as [[name]]
// links. An entity named twice is one document with the observations of
// both; a relation to an entity the file does not hold is kept on the
// entity it starts from. source names the file in errors.
func ReadMCPMemory(r io.Reader, source, prefix string, lim *Limits) ([]Doc, error) {
	l := lim.withDefaults()
	if prefix == "" {
		prefix = MCPMemoryPrefix
	}
	br := bufio.NewReaderSize(r, 64<<10)
	byName := map[string]*mcpEntity{}
	var order []*mcpEntity
	get := func(name string) *mcpEntity {
		if e, ok := byName[name]; ok {
			return e
		}
		e := &mcpEntity{name: name}
		byName[name] = e
		order = append(order, e)
		return e
	}
	type rel struct{ from, to, typ string }
	var rels []rel
	var total int64
	items := 0
	for n := 1; ; n++ {
		line, err := readLine(br, l.MaxFileBytes)
		if errors.Is(err, ErrLimit) {
			return nil, &SourceError{Source: source, Line: n, Reason: fmt.Sprintf("a line over %d bytes", l.MaxFileBytes), Err: ErrLimit}
		}
		if err != nil && err != io.EOF {
			return nil, &SourceError{Source: source, Line: n, Reason: err.Error(), Err: ErrFormat}
		}
		total += int64(len(line))
		if total > l.MaxTotalBytes {
			return nil, &SourceError{Source: source, Line: n, Reason: fmt.Sprintf("more than %d bytes", l.MaxTotalBytes), Err: ErrLimit}
		}
		if t := bytes.TrimSpace(line); len(t) > 0 {
			items++
			if items > l.MaxFiles {
				return nil, &SourceError{Source: source, Line: n, Reason: fmt.Sprintf("more than %d entities and relations", l.MaxFiles), Err: ErrLimit}
			}
			var it mcpLine
			if err := json.Unmarshal(t, &it); err != nil {
				return nil, &SourceError{Source: source, Line: n, Reason: "not a JSON object of an entity or relation: " + err.Error(), Err: ErrFormat}
			}
			switch it.Type {
			case "entity":
				if it.Name == nil {
					return nil, &SourceError{Source: source, Line: n, Reason: `an entity without "name"`, Err: ErrFormat}
				}
				e := get(*it.Name)
				if e.entityType == "" {
					e.entityType = it.EntityType
				}
				for _, o := range it.Observations {
					if !slices.Contains(e.observations, o) {
						e.observations = append(e.observations, o)
					}
				}
			case "relation":
				if it.From == nil || it.To == nil {
					return nil, &SourceError{Source: source, Line: n, Reason: `a relation without "from" or "to"`, Err: ErrFormat}
				}
				rels = append(rels, rel{*it.From, *it.To, it.RelationType})
			default:
				return nil, &SourceError{Source: source, Line: n, Reason: fmt.Sprintf(`"type" is %q; the memory server writes "entity" and "relation"`, it.Type), Err: ErrFormat}
			}
		}
		if err == io.EOF {
			break
		}
	}
	for _, r := range rels {
		from := get(r.from)
		from.out = append(from.out, fmt.Sprintf("%s [[%s]]", r.typ, r.to))
		if to, ok := byName[r.to]; ok {
			to.in = append(to.in, fmt.Sprintf("[[%s]] %s", r.from, r.typ))
		}
	}
	docs := make([]Doc, 0, len(order))
	used := map[string]bool{}
	for _, e := range order {
		stem := slug(e.name)
		name := stem + ".md"
		for i := 2; used[strings.ToLower(name)]; i++ {
			name = stem + "-" + strconv.Itoa(i) + ".md"
		}
		used[strings.ToLower(name)] = true
		p, err := bankPath(source, e.name, prefix, name)
		if err != nil {
			return nil, err
		}
		text, err := e.markdown()
		if err != nil {
			return nil, &SourceError{Source: source, Entry: e.name, Reason: err.Error(), Err: ErrFormat}
		}
		if int64(len(text)) > l.MaxFileBytes {
			return nil, &SourceError{Source: source, Entry: e.name, Reason: fmt.Sprintf("its document is %d bytes, over the limit of %d", len(text), l.MaxFileBytes), Err: ErrLimit}
		}
		docs = append(docs, Doc{Path: p, Source: e.name, Text: text})
	}
	return docs, nil
}

// readLine reads one line (without its newline) of at most max bytes.
func readLine(br *bufio.Reader, max int64) ([]byte, error) {
	var line []byte
	for {
		chunk, err := br.ReadSlice('\n')
		if int64(len(line)+len(chunk)) > max+1 { // +1: the newline
			return nil, ErrLimit
		}
		line = append(line, chunk...)
		if err == bufio.ErrBufferFull {
			continue
		}
		if err == nil {
			return line[:len(line)-1], nil
		}
		return line, err
	}
}

// markdown is the entity's document: front matter, then its name as the
// heading, observations and relations.
func (e *mcpEntity) markdown() (string, error) {
	meta := map[string]any{"title": e.name}
	if e.entityType != "" {
		meta["entityType"] = e.entityType
		meta["tags"] = []string{slug(e.entityType)}
	}
	fm, err := yaml.Marshal(meta)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("---\n")
	b.Write(fm)
	b.WriteString("---\n# ")
	b.WriteString(oneLine(e.name))
	b.WriteString("\n")
	section := func(title string, lines []string) {
		if len(lines) == 0 {
			return
		}
		b.WriteString("\n## " + title + "\n\n")
		for _, l := range lines {
			b.WriteString("- " + strings.ReplaceAll(l, "\n", "\n  ") + "\n")
		}
	}
	section("Observations", e.observations)
	section("Relations", e.out)
	section("Related from", e.in)
	return b.String(), nil
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// slug makes a file name stem of an entity name: letters and digits of
// any script are kept, lower-cased, anything else becomes "-"; never
// empty, never a dot name, at most 100 bytes.
func slug(s string) string {
	var b strings.Builder
	dash := false
	for _, r := range s {
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if b.Len()+utf8.RuneLen(r) > 100 {
				break
			}
			b.WriteRune(unicode.ToLower(r))
			dash = false
		} else if !dash && b.Len() > 0 {
			b.WriteByte('-')
			dash = true
		}
	}
	out := strings.TrimRight(b.String(), "-")
	if out == "" {
		return "entity"
	}
	return out
}
