package skillgraph

import (
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Issue is one invariant violation (in Report.Errors) or one thing worth a
// look (in Report.Warnings and Result.Warnings).
type Issue struct {
	Code    Code     `json:"code"`
	Message string   `json:"message"`
	NodeIDs []string `json:"nodeIds,omitempty"`
	EdgeIDs []string `json:"edgeIds,omitempty"`
}

// Report is the outcome of Validate. The graph is valid when Errors is empty;
// warnings never make it invalid.
type Report struct {
	Errors   []Issue `json:"errors"`
	Warnings []Issue `json:"warnings"`
}

// OK reports whether the graph had no errors.
func (r Report) OK() bool { return len(r.Errors) == 0 }

// Validate checks every invariant of g in O(V+E):
//
// Errors: node and edge ids non-empty (EMPTY_ID) and unique (DUPLICATE_ID);
// every edge's source and target exist (DANGLING_EDGE); no self-loops
// (SELF_LOOP); no directed cycles (CYCLE); a non-empty graph has a start node,
// one without incoming edges (NO_START_NODE, reported instead of CYCLE when
// no node is left without an incoming edge); node types known
// (INVALID_NODE_TYPE); labels non-blank (EMPTY_LABEL); a tool node has a
// toolName (MISSING_TOOL_NAME) and other nodes have none
// (UNEXPECTED_TOOL_NAME).
//
// Warnings: a node with no edges in a graph of two or more nodes
// (ISOLATED_NODE); more than one connected node without incoming edges
// (MULTIPLE_START_NODES); two edges with the same source and target
// (PARALLEL_EDGES).
//
// A nil graph is the empty graph, which is valid.
func Validate(g *Graph) Report {
	var r Report
	if g == nil {
		return r
	}
	r.Errors = append(r.Errors, rawIssues(g)...)
	pos := make(map[string]int32, len(g.Nodes))
	for i := range g.Nodes {
		id := g.Nodes[i].ID
		if id == "" {
			r.Errors = append(r.Errors, Issue{Code: CodeEmptyID, Message: fmt.Sprintf("nodes[%d] has an empty id", i)})
			continue
		}
		if badID(id) {
			is, _ := idIssue(id, fmt.Sprintf("nodes[%d]", i))
			is.NodeIDs = []string{id}
			r.Errors = append(r.Errors, is)
		}
		if _, dup := pos[id]; dup {
			r.Errors = append(r.Errors, Issue{Code: CodeDuplicateID, Message: fmt.Sprintf("node id %s is used more than once (again at nodes[%d])", id, i), NodeIDs: []string{id}})
			continue
		}
		pos[id] = int32(i)
	}
	v := view{nodes: g.Nodes, edges: g.Edges, src: make([]int32, len(g.Edges)), dst: make([]int32, len(g.Edges))}
	edgeSeen := make(map[string]struct{}, len(g.Edges))
	for i := range g.Edges {
		e := &g.Edges[i]
		v.src[i], v.dst[i] = -1, -1
		switch _, dup := edgeSeen[e.ID]; {
		case e.ID == "":
			r.Errors = append(r.Errors, Issue{Code: CodeEmptyID, Message: fmt.Sprintf("edges[%d] (%s→%s) has an empty id", i, e.Source, e.Target)})
		case dup:
			r.Errors = append(r.Errors, Issue{Code: CodeDuplicateID, Message: fmt.Sprintf("edge id %s is used more than once (again at edges[%d])", e.ID, i), EdgeIDs: []string{e.ID}})
		default:
			edgeSeen[e.ID] = struct{}{}
			if badID(e.ID) {
				is, _ := idIssue(e.ID, fmt.Sprintf("edges[%d]", i))
				is.EdgeIDs = []string{e.ID}
				r.Errors = append(r.Errors, is)
			}
		}
		s, okS := pos[e.Source]
		t, okT := pos[e.Target]
		if !okS || !okT {
			missing := e.Source
			if okS {
				missing = e.Target
			}
			r.Errors = append(r.Errors, Issue{Code: CodeDanglingEdge, Message: fmt.Sprintf("edge %s (%s→%s) points to node %q, which does not exist", e.ID, e.Source, e.Target, missing), EdgeIDs: []string{e.ID}})
			continue
		}
		if s == t {
			r.Errors = append(r.Errors, Issue{Code: CodeSelfLoop, Message: fmt.Sprintf("edge %s connects node %s to itself", e.ID, e.Source), EdgeIDs: []string{e.ID}, NodeIDs: []string{e.Source}})
			continue
		}
		v.src[i], v.dst[i] = s, t
	}
	v.check(&r, true)
	return r
}

// toolNameSeparator returns the index of the first whitespace or comma in a
// tool name, or -1. allowed-tools in SKILL.md is a space-delimited list, and
// readers of its older comma-separated form split at commas, so either
// would cut the name in two.
func toolNameSeparator(name string) int {
	return strings.IndexFunc(name, func(r rune) bool { return r == ',' || unicode.IsSpace(r) })
}

// toolNameProblem explains a tool name that toolNameSeparator refuses.
func toolNameProblem(name string) string {
	r, _ := utf8.DecodeRuneInString(name[toolNameSeparator(name):])
	return fmt.Sprintf("toolName %q holds %q; allowed-tools in SKILL.md separates tools with spaces, so a tool name or pattern has no whitespace or comma: write Bash(git:*) rather than Bash(git diff:*)", name, r)
}

// toolNameIssue is the TOOL_NAME_SEPARATOR issue of node id.
func toolNameIssue(id, name string) Issue {
	return Issue{Code: CodeToolNameSeparator, NodeIDs: []string{id}, Message: "node " + id + ": " + toolNameProblem(name)}
}

// badID reports whether id is blank or holds a control character; ASCII ids
// take a fast path, as it runs for every id of every graph Apply edits.
func badID(id string) bool {
	blank := true
	for i := 0; i < len(id); i++ {
		c := id[i]
		if c >= 0x80 {
			return strings.TrimSpace(id) == "" || strings.ContainsFunc(id, unicode.IsControl)
		}
		if c < 0x20 || c == 0x7f {
			return true
		}
		blank = blank && c == ' '
	}
	return blank
}

// idIssue reports an id that is blank (only whitespace: EMPTY_ID) or holds
// a control character (INVALID_ID); where names it for the message.
func idIssue(id, where string) (Issue, bool) {
	if strings.TrimSpace(id) == "" {
		return Issue{Code: CodeEmptyID, Message: fmt.Sprintf("%s has the blank id %q; ids need a visible character", where, id)}, true
	}
	if i := strings.IndexFunc(id, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(id[i:])
		return Issue{Code: CodeInvalidID, Message: fmt.Sprintf("%s has the id %q, which holds the control character %U; ids are one line of printable text", where, id, r)}, true
	}
	return Issue{}, false
}

// rawIssues reports what no operation can repair and encoding/json cannot
// write: a skillId with a control character, and positions and metadata
// that are not valid JSON.
func rawIssues(g *Graph) []Issue {
	var out []Issue
	if i := strings.IndexFunc(g.SkillID, unicode.IsControl); i >= 0 {
		out = append(out, Issue{Code: CodeInvalidID, Message: fmt.Sprintf("skillId %q holds a control character; it is the skill's name, one line of printable text", g.SkillID)})
	}
	for i := range g.Nodes {
		if p := g.Nodes[i].Position; p != nil && !json.Valid(p) {
			out = append(out, Issue{Code: CodeInvalidJSON, Message: fmt.Sprintf("node %s has a position that is not valid JSON: %.40q", g.Nodes[i].ID, p), NodeIDs: []string{g.Nodes[i].ID}})
		}
	}
	for i := range g.Edges {
		if m := g.Edges[i].Metadata; m != nil && !json.Valid(m) {
			out = append(out, Issue{Code: CodeInvalidJSON, Message: fmt.Sprintf("edge %s has metadata that is not valid JSON: %.40q", g.Edges[i].ID, m), EdgeIDs: []string{g.Edges[i].ID}})
		}
	}
	return out
}

// selfLoops reports every self-loop of v and leaves it out of the rest of
// the checks (it would otherwise also be a cycle).
func (v *view) selfLoops(r *Report) {
	for i := range v.src {
		if v.src[i] >= 0 && v.src[i] == v.dst[i] {
			e := &v.edges[i]
			r.Errors = append(r.Errors, Issue{Code: CodeSelfLoop, Message: fmt.Sprintf("edge %s connects node %s to itself", e.ID, e.Source), EdgeIDs: []string{e.ID}, NodeIDs: []string{e.Source}})
			v.src[i], v.dst[i] = -1, -1
		}
	}
}

// view is a graph whose edge endpoints are resolved to node positions;
// src[i] < 0 marks an edge to leave out (already reported as broken).
type view struct {
	nodes    []Node
	edges    []Edge
	src, dst []int32
}

// csr is an adjacency list in compressed form: the edges of node n are
// edge[start[n]:start[n+1]].
type csr struct {
	start []int32
	edge  []int32
}

func (v *view) adjacency(out bool) csr {
	n := len(v.nodes)
	c := csr{start: make([]int32, n+1)}
	end := v.dst
	if out {
		end = v.src
	}
	for _, x := range end {
		if x >= 0 {
			c.start[x+1]++
		}
	}
	for i := 0; i < n; i++ {
		c.start[i+1] += c.start[i]
	}
	c.edge = make([]int32, c.start[n])
	fill := append([]int32(nil), c.start[:n]...)
	for i, x := range end {
		if x >= 0 {
			c.edge[fill[x]] = int32(i)
			fill[x]++
		}
	}
	return c
}

func (c csr) of(n int32) []int32 { return c.edge[c.start[n]:c.start[n+1]] }

// check adds the node-level, cycle and start-node errors and the warnings.
func (v *view) check(r *Report, parallel bool) {
	for i := range v.nodes {
		n := &v.nodes[i]
		if !n.Type.Valid() {
			r.Errors = append(r.Errors, Issue{Code: CodeInvalidNodeType, Message: fmt.Sprintf("node %s has type %q; types are %s", n.ID, n.Type, joinTypes()), NodeIDs: []string{n.ID}})
		}
		if strings.TrimSpace(n.Data.Label) == "" {
			r.Errors = append(r.Errors, Issue{Code: CodeEmptyLabel, Message: fmt.Sprintf("node %s has no label; every node needs one", n.ID), NodeIDs: []string{n.ID}})
		}
		switch {
		case strings.ContainsFunc(n.Data.ToolName, unicode.IsControl):
			r.Errors = append(r.Errors, Issue{Code: CodeInvalidToolName, Message: fmt.Sprintf("node %s has toolName %q, which holds a control character; a tool name or pattern is one line, such as Read or Bash(npm:*)", n.ID, n.Data.ToolName), NodeIDs: []string{n.ID}})
		case n.Type == TypeTool && strings.TrimSpace(n.Data.ToolName) == "":
			r.Errors = append(r.Errors, Issue{Code: CodeMissingToolName, Message: fmt.Sprintf("tool node %s has no toolName; give a tool name or pattern such as Read or Bash(npm:*)", n.ID), NodeIDs: []string{n.ID}})
		case n.Type != TypeTool && n.Data.ToolName != "":
			r.Errors = append(r.Errors, Issue{Code: CodeUnexpectedToolName, Message: fmt.Sprintf("node %s is of type %s but has toolName %q; only tool nodes have one (clear it with toolName null or make the node a tool)", n.ID, n.Type, n.Data.ToolName), NodeIDs: []string{n.ID}})
		case toolNameSeparator(n.Data.ToolName) >= 0:
			r.Warnings = append(r.Warnings, toolNameIssue(n.ID, n.Data.ToolName))
		}
	}
	if len(v.nodes) == 0 {
		return
	}
	out := v.adjacency(true)
	indeg := make([]int32, len(v.nodes))
	for _, t := range v.dst {
		if t >= 0 {
			indeg[t]++
		}
	}
	var starts, isolated []string
	queue := make([]int32, 0, len(v.nodes))
	for i := range v.nodes {
		if indeg[i] == 0 {
			queue = append(queue, int32(i))
			if len(out.of(int32(i))) == 0 {
				isolated = append(isolated, v.nodes[i].ID)
			} else {
				starts = append(starts, v.nodes[i].ID)
			}
		}
	}
	noStart := len(queue) == 0
	rem := append([]int32(nil), indeg...)
	for h := 0; h < len(queue); h++ {
		for _, e := range out.of(queue[h]) {
			t := v.dst[e]
			if rem[t]--; rem[t] == 0 {
				queue = append(queue, t)
			}
		}
	}
	if len(queue) < len(v.nodes) {
		r.Errors = append(r.Errors, v.cycleIssue(rem, noStart))
	}
	if len(v.nodes) > 1 {
		for _, id := range isolated {
			r.Warnings = append(r.Warnings, Issue{Code: CodeIsolatedNode, Message: fmt.Sprintf("node %s is isolated: no edge enters or leaves it", id), NodeIDs: []string{id}})
		}
	}
	if len(starts) > 1 {
		r.Warnings = append(r.Warnings, Issue{Code: CodeMultipleStartNodes, Message: fmt.Sprintf("%d start nodes (%s): nodes without incoming edges; a skill usually has one entry point", len(starts), strings.Join(capList(starts, maxListed), ", ")), NodeIDs: starts})
	}
	if parallel {
		v.parallelWarnings(r, out)
	}
}

// cycleIssue finds one cycle among the nodes Kahn's algorithm could not
// order (rem > 0) by walking incoming edges backwards from such a node: each
// has a predecessor that is also unordered, so the walk must repeat a node.
func (v *view) cycleIssue(rem []int32, noStart bool) Issue {
	in := v.adjacency(false)
	first := int32(-1)
	for i, d := range rem {
		if d > 0 {
			first = int32(i)
			break
		}
	}
	seenAt := map[int32]int{}
	var walk []int32 // edges walked backwards
	cur := first
	for {
		seenAt[cur] = len(walk)
		var next int32 = -1
		for _, e := range in.of(cur) {
			if rem[v.src[e]] > 0 {
				next = e
				break
			}
		}
		walk = append(walk, next)
		cur = v.src[next]
		if at, ok := seenAt[cur]; ok {
			walk = walk[at:]
			break
		}
	}
	// walk holds the cycle's edges in reverse order.
	nodeIDs := make([]string, 0, len(walk)+1)
	edgeIDs := make([]string, 0, len(walk))
	for i := len(walk) - 1; i >= 0; i-- {
		e := walk[i]
		if len(nodeIDs) == 0 {
			nodeIDs = append(nodeIDs, v.nodes[v.src[e]].ID)
		}
		nodeIDs = append(nodeIDs, v.nodes[v.dst[e]].ID)
		edgeIDs = append(edgeIDs, v.edges[e].ID)
	}
	msg := fmt.Sprintf("edges form a cycle %s (edges %s); a skill graph must be acyclic: delete or reverse one of these edges",
		strings.Join(nodeIDs, " → "), strings.Join(edgeIDs, ", "))
	code := CodeCycle
	if noStart {
		code = CodeNoStartNode
		msg = "no start node: every node has an incoming edge; " + msg
	}
	return Issue{Code: code, Message: msg, NodeIDs: nodeIDs[:len(nodeIDs)-1], EdgeIDs: edgeIDs}
}

func (v *view) parallelWarnings(r *Report, out csr) {
	last := make([]int32, len(v.nodes)) // last[t] = 1+source that reached t
	for s := range v.nodes {
		for _, e := range out.of(int32(s)) {
			t := v.dst[e]
			if last[t] == int32(s)+1 {
				r.Warnings = append(r.Warnings, Issue{Code: CodeParallelEdges, Message: fmt.Sprintf("edge %s repeats the pair %s→%s", v.edges[e].ID, v.nodes[s].ID, v.nodes[t].ID), EdgeIDs: []string{v.edges[e].ID}})
			}
			last[t] = int32(s) + 1
		}
	}
}

func joinTypes() string {
	s := make([]string, len(nodeTypes))
	for i, t := range nodeTypes {
		s[i] = string(t)
	}
	return strings.Join(s, ", ")
}

// topoOrder returns node positions in topological order, choosing among
// ready nodes the one earliest in node order; ok is false on a cycle.
func (v *view) topoOrder() (order []int32, ok bool) {
	out := v.adjacency(true)
	indeg := make([]int32, len(v.nodes))
	for _, t := range v.dst {
		if t >= 0 {
			indeg[t]++
		}
	}
	h := &minHeap{}
	for i, d := range indeg {
		if d == 0 {
			h.push(int32(i))
		}
	}
	for h.len() > 0 {
		n := h.pop()
		order = append(order, n)
		for _, e := range out.of(n) {
			t := v.dst[e]
			if indeg[t]--; indeg[t] == 0 {
				h.push(t)
			}
		}
	}
	return order, len(order) == len(v.nodes)
}

// minHeap of node positions (container/heap without the interface boxing).
type minHeap struct{ a []int32 }

func (h *minHeap) len() int { return len(h.a) }

func (h *minHeap) push(x int32) {
	h.a = append(h.a, x)
	i := len(h.a) - 1
	for i > 0 {
		p := (i - 1) / 2
		if h.a[p] <= h.a[i] {
			break
		}
		h.a[p], h.a[i] = h.a[i], h.a[p]
		i = p
	}
}

func (h *minHeap) pop() int32 {
	top := h.a[0]
	last := len(h.a) - 1
	h.a[0] = h.a[last]
	h.a = h.a[:last]
	i := 0
	for {
		l, r, m := 2*i+1, 2*i+2, i
		if l < last && h.a[l] < h.a[m] {
			m = l
		}
		if r < last && h.a[r] < h.a[m] {
			m = r
		}
		if m == i {
			return top
		}
		h.a[i], h.a[m] = h.a[m], h.a[i]
		i = m
	}
}
