package skillgraph

import (
	"bytes"
	"encoding/json"
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

var yamlPlain = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9 _.,()*/+-]*(:[^ ][A-Za-z0-9 _.,()*/+-]*)*$`)

var yamlNumber = regexp.MustCompile(`^[-+]?[0-9][0-9_.,eExXoOa-fA-F+-]*$`)

// yamlScalar writes s as a YAML plain scalar when that is unambiguous, else
// double-quoted (a JSON string is a valid YAML double-quoted scalar).
func yamlScalar(s string, quote bool) string {
	if !quote && yamlPlain.MatchString(s) && !yamlNumber.MatchString(s) && !strings.HasSuffix(s, " ") && !strings.Contains(s, " #") {
		switch strings.ToLower(s) {
		case "true", "false", "yes", "no", "on", "off", "null", "~":
		default:
			return s
		}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s) // a string always encodes
	return strings.TrimSuffix(buf.String(), "\n")
}
