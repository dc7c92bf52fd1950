package skillgraph

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Mermaid renders g as a Mermaid flowchart, top to bottom, nodes in node
// order then edges in edge order. Shapes: instruction [rectangle], example
// ([stadium]), tool [[subroutine]], decision {rhombus}. Ids that Mermaid
// would misread (not a letter followed by letters, digits and _, or a
// keyword such as end) are replaced by safe ones, kept unique; labels are
// quoted with entity codes for " # & < > and `. An edge whose metadata has
// a string "label" or "condition" shows it as the edge text. An edge whose
// source or target is not a node (DANGLING_EDGE) is left out, as in DOT.
func Mermaid(g *Graph) string {
	var b strings.Builder
	b.WriteString("flowchart TD\n")
	if g == nil {
		return b.String()
	}
	ids := safeIDs(g, mermaidID)
	for _, n := range g.Nodes {
		open, closing := "[", "]"
		switch n.Type {
		case TypeExample:
			open, closing = "([", "])"
		case TypeTool:
			open, closing = "[[", "]]"
		case TypeDecision:
			open, closing = "{", "}"
		}
		text := n.Data.Label
		if n.Type == TypeTool && n.Data.ToolName != "" {
			text += "\n" + n.Data.ToolName
		}
		fmt.Fprintf(&b, "    %s%s\"%s\"%s\n", ids[n.ID], open, mermaidText(text), closing)
	}
	for _, e := range g.Edges {
		s, okS := ids[e.Source]
		t, okT := ids[e.Target]
		if !okS || !okT {
			continue // a dangling edge has nothing to point at
		}
		if l := edgeLabel(e.Metadata); l != "" {
			fmt.Fprintf(&b, "    %s -->|\"%s\"| %s\n", s, mermaidText(l), t)
		} else {
			fmt.Fprintf(&b, "    %s --> %s\n", s, t)
		}
	}
	return b.String()
}

func mermaidText(s string) string {
	return strings.NewReplacer(
		"#", "#35;", "&", "#38;", `"`, "#quot;", "<", "#lt;", ">", "#gt;", "`", "#96;",
		"\r\n", "<br/>", "\n", "<br/>", "\r", "<br/>",
	).Replace(s)
}

// mermaidKeywords are words Mermaid's flowchart grammar reads as syntax.
var mermaidKeywords = map[string]bool{
	"end": true, "graph": true, "flowchart": true, "subgraph": true, "style": true, "class": true,
	"classdef": true, "click": true, "linkstyle": true, "direction": true, "call": true, "href": true,
	"default": true, "interpolate": true,
}

// mermaidID reports whether id can be used as a Mermaid node id as is.
func mermaidID(id string) bool {
	if id == "" || mermaidKeywords[strings.ToLower(id)] {
		return false
	}
	for i, c := range id {
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !(letter || c == '_' || i > 0 && c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// safeIDs maps every node id to one the renderer can print as is: ids that
// pass ok keep their name; others become their letters and digits (or
// "node") plus a suffix that keeps them unique.
func safeIDs(g *Graph, ok func(string) bool) map[string]string {
	out := make(map[string]string, len(g.Nodes))
	used := make(map[string]bool, len(g.Nodes))
	// next suffix to try per base: ids that share a base (every two-rune
	// Japanese id is id___) would otherwise rescan the suffixes taken so
	// far, quadratic in their number.
	next := map[string]int{}
	for _, n := range g.Nodes {
		if ok(n.ID) && !used[n.ID] {
			used[n.ID] = true
		}
	}
	for _, n := range g.Nodes {
		if _, done := out[n.ID]; done {
			continue
		}
		if ok(n.ID) {
			out[n.ID] = n.ID
			continue
		}
		var b strings.Builder
		b.WriteString("id_")
		for _, c := range n.ID {
			if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
				b.WriteRune(c)
			} else {
				b.WriteByte('_')
			}
		}
		base := b.String()
		cand := base
		k := max(next[base], 2)
		for ; used[cand]; k++ {
			cand = base + "_" + strconv.Itoa(k)
		}
		next[base] = k
		used[cand] = true
		out[n.ID] = cand
	}
	return out
}

// edgeLabel returns metadata's "label" or else "condition" string, if any.
func edgeLabel(meta json.RawMessage) string {
	if len(meta) == 0 {
		return ""
	}
	var m map[string]any
	if json.Unmarshal(meta, &m) != nil {
		return ""
	}
	for _, k := range []string{"label", "condition"} {
		if s, ok := m[k].(string); ok && s != "" {
			return s
		}
	}
	return ""
}

// DOT renders g in the Graphviz DOT language. Every id and label is a
// quoted, escaped DOT string, so any id is safe. Shapes: instruction box,
// example note, tool component, decision diamond. Edge metadata "label" or
// "condition" becomes the edge label. An edge whose source or target is not
// a node is left out, as in Mermaid.
func DOT(g *Graph) string {
	var b strings.Builder
	name := "skill"
	if g != nil && g.SkillID != "" {
		name = g.SkillID
	}
	fmt.Fprintf(&b, "digraph %s {\n    rankdir=TB;\n    node [shape=box];\n", dotString(name))
	if g == nil {
		b.WriteString("}\n")
		return b.String()
	}
	for _, n := range g.Nodes {
		shape := "box"
		switch n.Type {
		case TypeExample:
			shape = "note"
		case TypeTool:
			shape = "component"
		case TypeDecision:
			shape = "diamond"
		}
		text := n.Data.Label
		if n.Type == TypeTool && n.Data.ToolName != "" {
			text += "\n" + n.Data.ToolName
		}
		fmt.Fprintf(&b, "    %s [label=%s, shape=%s];\n", dotString(n.ID), dotString(text), shape)
	}
	known := make(map[string]bool, len(g.Nodes))
	for _, n := range g.Nodes {
		known[n.ID] = true
	}
	for _, e := range g.Edges {
		if !known[e.Source] || !known[e.Target] {
			continue // a dangling edge: DOT would invent the missing node
		}
		fmt.Fprintf(&b, "    %s -> %s", dotString(e.Source), dotString(e.Target))
		if l := edgeLabel(e.Metadata); l != "" {
			fmt.Fprintf(&b, " [label=%s]", dotString(l))
		}
		b.WriteString(";\n")
	}
	b.WriteString("}\n")
	return b.String()
}

// dotString quotes s as a DOT string: backslash and quote escaped, line
// breaks as \n (DOT's centred line break).
func dotString(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\r\n", `\n`, "\n", `\n`, "\r", `\n`).Replace(s) + `"`
}
