package skillgraph

import (
	"fmt"
	"strconv"
	"strings"
)

// Result says what a successful Apply changed. As JSON its members are
// camelCase and an empty one is left out, as in every answer of the
// repository's agent tools.
type Result struct {
	// Changes has one entry per operation, in batch order.
	Changes []Change
	// AddedNodeIDs maps the operationId of each addNode to the id of the
	// node it added, generated or given.
	AddedNodeIDs map[string]string
	// Warnings are the operations' warnings followed by Validate's warnings
	// on the resulting graph.
	Warnings []Issue
	// Summary is a human-readable account built from Changes: a totals line,
	// then one line per operation.
	Summary string
}

// EdgeRef names an edge and its endpoints.
type EdgeRef struct {
	ID     string `json:"id"`
	Source string `json:"source"`
	Target string `json:"target"`
}

func (r EdgeRef) String() string { return r.Source + "→" + r.Target + " (" + r.ID + ")" }

// Change is what one operation did.
type Change struct {
	Index       int    `json:"index"`
	OperationID string `json:"operationId"`
	Kind        Kind   `json:"kind"`
	Description string `json:"description,omitempty"` // the operation's humanReadableDescription

	NodesAdded    []string  `json:"nodesAdded,omitempty"`
	NodesRemoved  []string  `json:"nodesRemoved,omitempty"`
	NodesUpdated  []string  `json:"nodesUpdated,omitempty"`
	UpdatedFields []string  `json:"updatedFields,omitempty"` // of the updated node, in the order label, markdown, type, toolName
	EdgesAdded    []EdgeRef `json:"edgesAdded,omitempty"`
	EdgesRemoved  []EdgeRef `json:"edgesRemoved,omitempty"`
	// EdgesReplaced are existing edges whose metadata addEdge overwrote.
	EdgesReplaced []EdgeRef `json:"edgesReplaced,omitempty"`
	// GeneratedIDs are the node and edge ids the editor made up.
	GeneratedIDs []string `json:"generatedIds,omitempty"`
	Warnings     []Issue  `json:"warnings,omitempty"`
	// Summary is this change in one line, without the leading index.
	Summary string `json:"summary"`
}

func (s *state) result(in, out *Graph, graphWarnings []Issue) *Result {
	r := &Result{Changes: s.changes, AddedNodeIDs: s.addedNodes}
	if r.AddedNodeIDs == nil {
		r.AddedNodeIDs = map[string]string{}
	}
	var na, nr, nu, ea, er, eu int
	for _, c := range s.changes {
		for _, w := range c.Warnings {
			w.Message = fmt.Sprintf("operations[%d] %q: %s", c.Index, c.OperationID, w.Message)
			r.Warnings = append(r.Warnings, w)
		}
		na, nr, nu = na+len(c.NodesAdded), nr+len(c.NodesRemoved), nu+len(c.NodesUpdated)
		ea, er, eu = ea+len(c.EdgesAdded), er+len(c.EdgesRemoved), eu+len(c.EdgesReplaced)
	}
	r.Warnings = append(r.Warnings, graphWarnings...)
	var b strings.Builder
	if len(s.changes) == 0 {
		b.WriteString("No operations; the graph is unchanged.")
	} else {
		fmt.Fprintf(&b, "Applied %d %s (version %d → %d): nodes +%d −%d ~%d, edges +%d −%d ~%d.",
			len(s.changes), plural(len(s.changes), "operation", "operations"), in.Version, out.Version, na, nr, nu, ea, er, eu)
	}
	for _, c := range s.changes {
		fmt.Fprintf(&b, "\n%d. %s", c.Index+1, c.Summary)
	}
	if len(r.Warnings) > 0 {
		fmt.Fprintf(&b, "\n%d %s:", len(r.Warnings), plural(len(r.Warnings), "warning", "warnings"))
		for _, w := range capIssues(r.Warnings, maxListed) {
			b.WriteString("\n- " + w)
		}
	}
	r.Summary = b.String()
	return r
}

func capIssues(is []Issue, limit int) []string {
	msgs := make([]string, len(is))
	for i, w := range is {
		msgs[i] = w.Message
	}
	return capList(msgs, limit)
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// describe writes a change as one line from what it did, falling back on
// nothing the model said: the model's description is appended in quotes.
func (s *state) describe(c *Change) string {
	var b strings.Builder
	b.WriteString(string(c.Kind))
	b.WriteByte(' ')
	b.WriteString(c.OperationID)
	b.WriteString(": ")
	n := 0
	part := func() {
		if n > 0 {
			b.WriteString("; ")
		}
		n++
	}
	label := func(id string) {
		b.WriteString(id)
		if slot, ok := s.nodeIdx[id]; ok {
			b.WriteByte(' ')
			b.WriteString(strconv.Quote(s.nd(slot).Data.Label))
		}
	}
	for _, id := range c.NodesAdded {
		part()
		b.WriteString("added ")
		b.WriteString(string(s.nd(s.nodeIdx[id]).Type))
		b.WriteString(" node ")
		label(id)
	}
	for _, id := range c.NodesUpdated {
		part()
		b.WriteString("updated ")
		b.WriteString(strings.Join(c.UpdatedFields, ", "))
		b.WriteString(" of node ")
		label(id)
	}
	for _, id := range c.NodesRemoved {
		part()
		b.WriteString("deleted node ")
		b.WriteString(id)
	}
	for _, e := range []struct {
		verb string
		refs []EdgeRef
	}{{"added ", c.EdgesAdded}, {"removed ", c.EdgesRemoved}, {"replaced the metadata of ", c.EdgesReplaced}} {
		if len(e.refs) > 0 {
			part()
			b.WriteString(e.verb)
			b.WriteString(edgeRefs(e.refs))
		}
	}
	if n == 0 {
		b.WriteString("no change (already so)")
	}
	if c.Description != "" {
		b.WriteString(" — ")
		b.WriteString(strconv.Quote(c.Description))
	}
	return b.String()
}

func edgeRefs(es []EdgeRef) string {
	word := "edges "
	if len(es) == 1 {
		word = "edge "
	}
	refs := make([]string, len(es))
	for i, e := range es {
		refs[i] = e.String()
	}
	return word + strings.Join(capList(refs, maxListed), ", ")
}
