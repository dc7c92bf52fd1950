package skillgraph

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
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
	// when to use it, 1 to 1,024 characters. The graph has no field for it.
	Description string
	// Lang of the headings; empty means LangJA.
	Lang Lang
}

// SkillMD renders g as a SKILL.md file in the Agent Skills format:
//
//	---
//	name: <skillId>
//	description: <Description>
//	allowed-tools: <toolName of each tool node, de-duplicated, space-delimited>
//	---
//
//	## 指示            (## Instructions)
//
//	1. **<label>**
//	   <markdown, indented>
//	2. **<label>** — `<toolName>`
//
//	## 例              (## Examples)
//
//	### <label>
//
//	<markdown>
//
// Instruction, decision and tool nodes are the numbered steps (a tool step
// names its tool); example nodes follow as subsections; tool nodes also
// grant their tool in allowed-tools. All follow one topological order in
// which, among nodes ready at the same time, the earlier in node order comes
// first, so equal graphs render to equal bytes. Empty sections and an empty
// allowed-tools are left out. The frontmatter is written by a YAML library,
// so every value reads back as the same string (yes, on, null, 123 and
// 2024-01-01 are quoted); invalid UTF-8 anywhere becomes U+FFFD.
//
// The format's rules are checked: the skillId, which is the name, must be
// 1-64 lowercase letters, digits and hyphens, with no hyphen at either end
// or next to another (INVALID_SKILL_NAME); a tool name must hold no
// whitespace or comma, which allowed-tools would read as a separator
// (TOOL_NAME_SEPARATOR); both come as a *GraphError, like a graph with
// invariant errors (see Validate) or an empty skillId. The description must
// be 1-1024 characters, else *OptionError (ErrInvalidOption). A nil g is
// the empty graph, which has no name; nil opts means the defaults, which
// have no description.
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
		return "", &OptionError{Option: "SkillMDOptions.Lang", Message: fmt.Sprintf("language %q unknown; languages are ja, en", o.Lang)}
	}
	desc := strings.ToValidUTF8(o.Description, "\uFFFD")
	if n := utf8.RuneCountInString(desc); strings.TrimSpace(desc) == "" || n > maxDescription {
		return "", &OptionError{Option: "SkillMDOptions.Description", Message: fmt.Sprintf(
			"the description has %d characters; SKILL.md needs one of 1 to %d that says what the skill does and when to use it", n, maxDescription)}
	}
	rep := Validate(g)
	if g.SkillID == "" {
		rep.Errors = append(rep.Errors, Issue{Code: CodeEmptyID, Message: "skillId is empty; SKILL.md needs it as the skill's name"})
	} else if !skillName.MatchString(g.SkillID) || len(g.SkillID) > maxSkillName {
		rep.Errors = append(rep.Errors, Issue{Code: CodeInvalidSkillName, Message: fmt.Sprintf(
			"skillId %q is not a SKILL.md name: 1-%d lowercase letters, digits and hyphens, no hyphen at either end or next to another, such as %q",
			g.SkillID, maxSkillName, suggestName(g.SkillID))})
	}
	for _, w := range rep.Warnings {
		if w.Code == CodeToolNameSeparator {
			rep.Errors = append(rep.Errors, w)
		}
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
		case TypeExample:
			examples = append(examples, n)
			continue
		case TypeTool:
			if t := n.Data.ToolName; !seenTool[t] {
				seenTool[t] = true
				tools = append(tools, t)
			}
		}
		steps = append(steps, n)
	}

	var b strings.Builder
	b.WriteString("---\n")
	enc := yaml.NewEncoder(&b)
	enc.SetIndent(2)
	fm := struct {
		Name         string `yaml:"name"`
		Description  string `yaml:"description"`
		AllowedTools string `yaml:"allowed-tools,omitempty"`
	}{g.SkillID, desc, strings.ToValidUTF8(strings.Join(tools, " "), "\uFFFD")}
	if err := enc.Encode(fm); err != nil {
		return "", fmt.Errorf("skillgraph: writing the SKILL.md frontmatter: %w", err)
	}
	if err := enc.Close(); err != nil {
		return "", fmt.Errorf("skillgraph: writing the SKILL.md frontmatter: %w", err)
	}
	b.WriteString("---\n")
	if len(steps) > 0 {
		fmt.Fprintf(&b, "\n%s\n\n", h[0])
		for i, n := range steps {
			fmt.Fprintf(&b, "%d. **%s**", i+1, inline(n.Data.Label))
			if n.Type == TypeTool {
				b.WriteString(" — " + codeSpan(n.Data.ToolName))
			}
			b.WriteByte('\n')
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
	return strings.ToValidUTF8(b.String(), "\uFFFD"), nil
}

// Limits of the Agent Skills format.
const (
	maxSkillName   = 64
	maxDescription = 1024
)

var skillName = regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`)

// suggestName turns id into a valid SKILL.md name for an error message:
// lowercase ASCII letters and digits, every other run of characters one
// hyphen, cut to the length limit ("skill" when nothing is left).
func suggestName(id string) string {
	var b strings.Builder
	hyphen := false
	for _, r := range strings.ToLower(id) {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			if hyphen && b.Len() > 0 {
				b.WriteByte('-')
			}
			hyphen = false
			b.WriteRune(r)
		} else {
			hyphen = true
		}
	}
	s := b.String()
	if len(s) > maxSkillName {
		s = strings.TrimRight(s[:maxSkillName], "-")
	}
	if s == "" {
		return "skill"
	}
	return s
}

// inline keeps a label on one line.
func inline(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// codeSpan writes s as a Markdown code span, fenced with more backticks
// than any run inside it.
func codeSpan(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if longest > 0 {
		return fence + " " + s + " " + fence
	}
	return fence + s + fence
}
