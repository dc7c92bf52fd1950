package skillgraph

import (
	"fmt"
	"regexp"
	"strings"
)

// Lang selects the language of SKILL.md's headings.
type Lang string

// Languages of SkillMD.
const (
	LangJA Lang = "ja" // ## 指示, ## 例 (the default)
	LangEN Lang = "en" // ## Instructions, ## Examples
)

// SkillMDOptions configure SkillMD. nil means the defaults.
type SkillMDOptions struct {
	// Description is the frontmatter description: what the skill does and
	// when to use it. The graph has no field for it.
	Description string
	// Lang of the headings; empty means LangJA.
	Lang Lang
}

// SkillMD renders g as a SKILL.md file:
//
//	---
//	name: <skillId>
//	description: "<Description>"
//	allowed-tools: <toolName of each tool node, de-duplicated>
//	---
//
//	## 指示            (## Instructions)
//
//	1. **<label>**
//	   <markdown, indented>
//
//	## 例              (## Examples)
//
//	### <label>
//
//	<markdown>
//
// Instruction and decision nodes are the numbered steps; example nodes follow
// as subsections; tool nodes only grant their tool in allowed-tools. All
// three follow one topological order in which, among nodes ready at the same
// time, the earlier in node order comes first, so equal graphs render to
// equal bytes. Empty sections and an empty allowed-tools are left out.
//
// A graph with invariant errors (see Validate) or an empty SkillID is refused
// with a *GraphError.
func SkillMD(g *Graph, opts *SkillMDOptions) (string, error) {
	if g == nil {
		g = &Graph{}
	}
	var o SkillMDOptions
	if opts != nil {
		o = *opts
	}
	headings := map[Lang][2]string{LangJA: {"## 指示", "## 例"}, LangEN: {"## Instructions", "## Examples"}}
	if o.Lang == "" {
		o.Lang = LangJA
	}
	h, ok := headings[o.Lang]
	if !ok {
		return "", fmt.Errorf("skillgraph: SKILL.md language %q unknown; languages are ja, en", o.Lang)
	}
	rep := Validate(g)
	if g.SkillID == "" {
		rep.Errors = append(rep.Errors, Issue{Code: CodeEmptyID, Message: "skillId is empty; SKILL.md needs it as the skill's name"})
	}
	if !rep.OK() {
		return "", &GraphError{Report: Report{Errors: rep.Errors}}
	}
	pos := make(map[string]int32, len(g.Nodes))
	for i := range g.Nodes {
		pos[g.Nodes[i].ID] = int32(i)
	}
	v := view{nodes: g.Nodes, edges: g.Edges, src: make([]int32, len(g.Edges)), dst: make([]int32, len(g.Edges))}
	for i, e := range g.Edges {
		v.src[i], v.dst[i] = pos[e.Source], pos[e.Target]
	}
	order, _ := v.topoOrder() // acyclic: Validate passed

	var tools []string
	seenTool := map[string]bool{}
	var steps, examples []*Node
	for _, p := range order {
		n := &g.Nodes[p]
		switch n.Type {
		case TypeTool:
			if t := strings.TrimSpace(n.Data.ToolName); !seenTool[t] {
				seenTool[t] = true
				tools = append(tools, t)
			}
		case TypeExample:
			examples = append(examples, n)
		default:
			steps = append(steps, n)
		}
	}

	var b strings.Builder
	b.WriteString("---\n")
	fmt.Fprintf(&b, "name: %s\n", yamlScalar(g.SkillID, false))
	fmt.Fprintf(&b, "description: %s\n", yamlScalar(o.Description, true))
	if len(tools) > 0 {
		fmt.Fprintf(&b, "allowed-tools: %s\n", yamlScalar(strings.Join(tools, ", "), false))
	}
	b.WriteString("---\n")
	if len(steps) > 0 {
		fmt.Fprintf(&b, "\n%s\n\n", h[0])
		for i, n := range steps {
			fmt.Fprintf(&b, "%d. **%s**\n", i+1, inline(n.Data.Label))
			if md := strings.TrimSpace(n.Data.Markdown); md != "" {
				indent := strings.Repeat(" ", len(fmt.Sprint(i+1))+2)
				for _, line := range strings.Split(md, "\n") {
					if strings.TrimSpace(line) == "" {
						b.WriteString("\n")
					} else {
						b.WriteString(indent + strings.TrimRight(line, " \t\r") + "\n")
					}
				}
			}
		}
	}
	if len(examples) > 0 {
		fmt.Fprintf(&b, "\n%s\n", h[1])
		for _, n := range examples {
			fmt.Fprintf(&b, "\n### %s\n", inline(n.Data.Label))
			if md := strings.TrimSpace(n.Data.Markdown); md != "" {
				b.WriteString("\n" + strings.ReplaceAll(md, "\r\n", "\n") + "\n")
			}
		}
	}
	return b.String(), nil
}

// inline keeps a label on one line.
func inline(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

var yamlNumber = regexp.MustCompile(`^[-+]?[0-9][0-9_.,eExXoOa-fA-F+-]*$`)

// yamlPlainSafe is an allow-list: s may be written as a plain YAML scalar
// when it starts with a letter or digit, holds only letters, digits, space
// and _ . , ( ) * / + - :, every colon is followed by a non-space character
// (": " and a final ":" would start a mapping), it does not end in a space,
// and it does not read as a number, boolean or null.
func yamlPlainSafe(s string) bool {
	if s == "" || s[len(s)-1] == ' ' || yamlNumber.MatchString(s) {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		alnum := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
		switch {
		case alnum:
		case i == 0:
			return false
		case c == ':':
			if i+1 == len(s) || s[i+1] == ' ' {
				return false
			}
		case !strings.ContainsRune(" _.,()*/+-", rune(c)):
			return false
		}
	}
	switch strings.ToLower(s) {
	case "true", "false", "yes", "no", "on", "off", "null", "y", "n":
		return false
	}
	return true
}

// yamlScalar writes s as a plain YAML scalar when yamlPlainSafe allows it
// (and quote is false), else as a double-quoted one in which ", \ and every
// character outside YAML's printable set (C0 and C1 controls, DEL) are
// escaped; invalid UTF-8 becomes U+FFFD.
func yamlScalar(s string, quote bool) string {
	if !quote && yamlPlainSafe(s) {
		return s
	}
	var b strings.Builder
	b.WriteByte('"')
	for _, r := range s {
		switch {
		case r == '"':
			b.WriteString(`\"`)
		case r == '\\':
			b.WriteString(`\\`)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\t':
			b.WriteString(`\t`)
		case r == '\r':
			b.WriteString(`\r`)
		case r < 0x20 || r >= 0x7f && r < 0xa0:
			fmt.Fprintf(&b, `\x%02X`, r)
		case r == 0xfeff || r == 0xfffe || r == 0xffff:
			fmt.Fprintf(&b, `\u%04X`, r)
		default:
			b.WriteRune(r) // includes U+FFFD for invalid UTF-8
		}
	}
	b.WriteByte('"')
	return b.String()
}
