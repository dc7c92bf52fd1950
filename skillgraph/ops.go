package skillgraph

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"unicode"
)

// apply runs operation i against the state.
func (s *state) apply(i int) error {
	op := &s.ops[i]
	s.changes = append(s.changes, Change{Index: i, OperationID: op.OperationID, Kind: op.Kind, Description: op.HumanReadableDescription})
	s.cur = &s.changes[len(s.changes)-1] // changes has capacity len(ops): the pointer stays valid
	if op.OperationID == "" {
		return s.fail(CodeInvalidOperation, "operationId is empty; give every operation a unique id such as op%d", i+1)
	}
	if j, dup := s.opIdx[op.OperationID]; dup {
		return s.fail(CodeDuplicateID, "operationId %q is already used by operations[%d]; operationIds must be unique within the batch", op.OperationID, j)
	}
	s.opIdx[op.OperationID] = i
	if !op.Kind.valid() {
		msg := fmt.Sprintf("kind %q unknown; kinds are %s", op.Kind, joinKinds())
		for _, k := range kinds {
			if strings.EqualFold(string(k), string(op.Kind)) {
				msg += fmt.Sprintf(" (kinds are case-sensitive: did you mean %q?)", k)
			}
		}
		return s.fail(CodeInvalidOperation, "%s", msg)
	}
	if stray := strayFields(op); len(stray) > 0 {
		return s.fail(CodeInvalidOperation, "%s not used by %s; its fields are %s",
			strings.Join(stray, ", "), op.Kind, strings.Join(fields[string(op.Kind)], ", "))
	}
	var err error
	switch op.Kind {
	case KindAddNode:
		err = s.addNode(op)
	case KindDeleteNode:
		err = s.deleteNode(op)
	case KindUpdateNode:
		err = s.updateNode(op)
	case KindAddEdge:
		err = s.addEdge(op)
	case KindDeleteEdge:
		err = s.deleteEdge(op)
	}
	if err != nil {
		return err
	}
	s.cur.Summary = s.describe(s.cur)
	return nil
}

// strayFields names the fields op sets that its kind does not use.
func strayFields(op *Operation) []string {
	set := [...]struct {
		name string
		set  bool
	}{
		{"node", op.Node != nil}, {"insertAfter", op.InsertAfter != ""}, {"insertBefore", op.InsertBefore != ""},
		{"parentHint", op.ParentHint != ""}, {"nodeId", op.NodeID != ""}, {"edgePolicy", op.EdgePolicy != ""},
		{"label", op.Label != nil}, {"markdown", op.Markdown.Set}, {"type", op.Type != ""},
		{"toolName", op.ToolName.Set}, {"source", op.Source != ""}, {"target", op.Target != ""},
		{"metadata", op.Metadata != nil}, {"id", op.ID != ""}, {"edgeId", op.EdgeID != ""},
	}
	allowed := fields[string(op.Kind)]
	var stray []string
	for _, f := range set {
		if !f.set {
			continue
		}
		ok := false
		for _, a := range allowed {
			ok = ok || a == f.name
		}
		if !ok {
			stray = append(stray, f.name)
		}
	}
	return stray
}

func (s *state) fail(code Code, format string, args ...any) error {
	op := &s.ops[s.cur.Index]
	return &OperationError{Index: s.cur.Index, OperationID: op.OperationID, Kind: op.Kind, Code: code, Message: fmt.Sprintf(format, args...)}
}

func (s *state) warn(code Code, nodeIDs []string, format string, args ...any) {
	s.cur.Warnings = append(s.cur.Warnings, Issue{Code: code, Message: fmt.Sprintf(format, args...), NodeIDs: nodeIDs})
}

// node resolves a node id named by field role of the current operation.
func (s *state) node(role, id string) (int32, error) {
	if n, ok := s.nodeIdx[id]; ok {
		return n, nil
	}
	msg := fmt.Sprintf("%s: node %q not found", role, id)
	if by, ok := s.deletedBy(id, KindDeleteNode); ok {
		msg += fmt.Sprintf(" (operations[%d] deleted it)", by)
	} else {
		for n := s.head; n >= 0; n = s.next[n] {
			if strings.EqualFold(s.nd(n).ID, id) {
				msg += fmt.Sprintf(" (ids are case-sensitive: did you mean %q?)", s.nd(n).ID)
				break
			}
		}
	}
	return -1, s.fail(CodeNodeNotFound, "%s; %s", msg, s.listNodes())
}

// deletedBy finds the earlier operation of kind k in this batch that removed id.
func (s *state) deletedBy(id string, k Kind) (int, bool) {
	for _, c := range s.changes[:len(s.changes)-1] {
		removed := c.NodesRemoved
		if k == KindDeleteEdge {
			removed = removed[:0:0]
			for _, e := range c.EdgesRemoved {
				removed = append(removed, e.ID)
			}
		}
		for _, r := range removed {
			if r == id {
				return c.Index, true
			}
		}
	}
	return 0, false
}

func (s *state) listNodes() string {
	if s.liveNodes == 0 {
		return "the graph has no nodes"
	}
	ids := make([]string, 0, min(s.liveNodes, maxListed))
	for n := s.head; n >= 0 && len(ids) < maxListed; n = s.next[n] {
		ids = append(ids, s.nd(n).ID)
	}
	if s.liveNodes > len(ids) {
		return fmt.Sprintf("nodes are %s, … and %d more", strings.Join(ids, ", "), s.liveNodes-len(ids))
	}
	return "nodes are " + strings.Join(ids, ", ")
}

func (s *state) listEdges() string {
	if s.liveEdges == 0 {
		return "the graph has no edges"
	}
	refs := make([]string, 0, min(s.liveEdges, maxListed))
	for e := range int32(s.numEdges()) {
		if len(refs) == maxListed {
			break
		}
		if s.edgeAlive[e] {
			refs = append(refs, s.edgeRef(e))
		}
	}
	if s.liveEdges > len(refs) {
		return fmt.Sprintf("edges are %s, … and %d more", strings.Join(refs, ", "), s.liveEdges-len(refs))
	}
	return "edges are " + strings.Join(refs, ", ")
}

func (s *state) edgeRef(e int32) string {
	ed := s.ed(e)
	return ed.ID + " (" + ed.Source + "→" + ed.Target + ")"
}

// edgeList formats edge slots as "e1 (n1→n2), e2 (n2→n3)", capped.
func (s *state) edgeList(es []int32) string {
	refs := make([]string, 0, len(es))
	for _, e := range es {
		refs = append(refs, s.edgeRef(e))
	}
	return strings.Join(capList(refs, maxListed), ", ")
}

// missingPair explains that no edge src→dst exists and what leaves src.
func (s *state) missingPair(src, dst int32) error {
	outs := s.outs(src)
	what := fmt.Sprintf("%s has no outgoing edges", s.nd(src).ID)
	if len(outs) > 0 {
		what = fmt.Sprintf("edges leaving %s are %s", s.nd(src).ID, s.edgeList(outs))
	}
	return s.fail(CodeEdgeNotFound, "no edge %s→%s; %s", s.nd(src).ID, s.nd(dst).ID, what)
}

// optionalNode resolves an optional node reference (-1 when empty).
func (s *state) optionalNode(role, id string) (int32, error) {
	if id == "" {
		return -1, nil
	}
	return s.node(role, id)
}

func (s *state) addNode(op *Operation) error {
	if op.Node == nil {
		return s.fail(CodeInvalidOperation, `addNode needs node, e.g. {"type": "instruction", "label": "Run the tests"}`)
	}
	n := *op.Node
	if !n.Type.Valid() {
		return s.fail(CodeInvalidOperation, "node.type %q unknown; types are %s", n.Type, joinTypes())
	}
	if n.Position != nil && !json.Valid(n.Position) {
		return s.fail(CodeInvalidOperation, "node.position is not valid JSON: %.40q; give an object such as {\"x\": 0, \"y\": 0} or leave it out", n.Position)
	}
	if err := s.checkToolName(n.Data.ToolName); err != nil {
		return err
	}
	if n.ID != "" {
		if is, bad := idIssue(n.ID, "node.id"); bad {
			return s.fail(CodeInvalidOperation, "%s; pick another id or omit node.id to have one generated", is.Message)
		}
	}
	after, err := s.optionalNode("insertAfter", op.InsertAfter)
	if err != nil {
		return err
	}
	before, err := s.optionalNode("insertBefore", op.InsertBefore)
	if err != nil {
		return err
	}
	parent, err := s.optionalNode("parentHint", op.ParentHint)
	if err != nil {
		return err
	}
	split := int32(-1)
	if after >= 0 && before >= 0 {
		if after == before {
			return s.fail(CodeInvalidOperation, "insertAfter and insertBefore both name %s; to insert into an edge give its source as insertAfter and its target as insertBefore", op.InsertAfter)
		}
		e, ok := s.findPair(after, before)
		if !ok {
			return s.missingPair(after, before)
		}
		split = e
	}
	generated := n.ID == ""
	if generated {
		if n.ID, err = s.newID("n"); err != nil {
			return s.fail(CodeInvalidOperation, "%v", err)
		}
	} else if old, dup := s.nodeIdx[n.ID]; dup {
		return s.fail(CodeDuplicateID, "node id %q already exists (label %q); pick another id or omit node.id to have one generated", n.ID, s.nd(old).Data.Label)
	}
	edges := 0
	if after >= 0 || before >= 0 || parent >= 0 {
		edges = 1 // a new edge, or a split edge: one removed, two added
	}
	if err := s.room(1, edges, len(n.Position), false, ""); err != nil {
		return err
	}
	place := s.tail
	switch {
	case after >= 0:
		place = after
	case before >= 0:
		place = s.prev[before]
	}
	slot := s.addNodeSlot(n, place)
	s.cur.NodesAdded = append(s.cur.NodesAdded, n.ID)
	if generated {
		s.cur.GeneratedIDs = append(s.cur.GeneratedIDs, n.ID)
	}
	if s.addedNodes == nil {
		s.addedNodes = map[string]string{}
	}
	s.addedNodes[op.OperationID] = n.ID

	switch {
	case split >= 0:
		err = s.splitEdge(split, slot)
	case after >= 0:
		switch outs := s.outs(after); len(outs) {
		case 0:
			err = s.newEdge(after, slot, nil)
		case 1:
			err = s.splitEdge(outs[0], slot)
		default:
			s.warn(CodeAmbiguousInsert, []string{op.InsertAfter, n.ID}, "%s has %d outgoing edges (%s), so %s was added as a new branch %s→%s; give insertBefore as well to insert into one of them",
				op.InsertAfter, len(outs), s.edgeList(outs), n.ID, op.InsertAfter, n.ID)
			err = s.newEdge(after, slot, nil)
		}
	case before >= 0:
		switch ins := s.ins(before); len(ins) {
		case 0:
			err = s.newEdge(slot, before, nil)
		case 1:
			err = s.splitEdge(ins[0], slot)
		default:
			s.warn(CodeAmbiguousInsert, []string{op.InsertBefore, n.ID}, "%s has %d incoming edges (%s), so %s was added as a new branch %s→%s; give insertAfter as well to insert into one of them",
				op.InsertBefore, len(ins), s.edgeList(ins), n.ID, n.ID, op.InsertBefore)
			err = s.newEdge(slot, before, nil)
		}
	case parent >= 0:
		err = s.newEdge(parent, slot, nil)
	}
	if err != nil {
		return err
	}
	if parent >= 0 && (after >= 0 || before >= 0) {
		isPred := false
		for _, e := range s.ins(slot) {
			isPred = isPred || s.esrc[e] == parent
		}
		if !isPred {
			s.warn(CodeParentHintIgnored, []string{op.ParentHint, n.ID}, "parentHint %s was ignored: insertAfter/insertBefore decided where %s goes, and %s does not precede it", op.ParentHint, n.ID, op.ParentHint)
		}
	}
	return nil
}

// splitEdge replaces the edge a→b by a→mid→b; a→mid keeps its metadata.
func (s *state) splitEdge(e, mid int32) error {
	a, b, meta := s.esrc[e], s.edst[e], s.ed(e).Metadata
	s.removeEdgeSlot(e)
	if err := s.newEdge(a, mid, meta); err != nil {
		return err
	}
	return s.newEdge(mid, b, nil)
}

// newEdge adds an edge with a generated id.
func (s *state) newEdge(src, dst int32, meta []byte) error {
	id, err := s.newID("e")
	if err != nil {
		return s.fail(CodeInvalidOperation, "%v", err)
	}
	s.addEdgeSlot(id, src, dst, meta, true)
	return nil
}

func (s *state) deleteNode(op *Operation) error {
	n, err := s.node("nodeId", op.NodeID)
	if err != nil {
		return err
	}
	policy := op.EdgePolicy
	if policy == "" {
		policy = PolicyCascade
	}
	if policy != PolicyCascade && policy != PolicyReconnect && policy != PolicyError {
		return s.fail(CodeInvalidOperation, "edgePolicy %q unknown; policies are cascade (the default), reconnect, error", op.EdgePolicy)
	}
	ins := append([]int32(nil), s.ins(n)...)
	var outs []int32
	for _, e := range s.outs(n) {
		if s.edst[e] != n { // a self-loop (input only) is already in ins
			outs = append(outs, e)
		}
	}
	if policy == PolicyError && len(ins)+len(outs) > 0 {
		return s.fail(CodeHasEdges, "node %s has %d edges: %s; delete them first, or use edgePolicy cascade (remove them with the node) or reconnect (also link its predecessors to its successors)",
			op.NodeID, len(ins)+len(outs), s.edgeList(append(ins, outs...)))
	}
	if policy == PolicyReconnect {
		// Each predecessor once (its first edge in gives the metadata), each
		// successor once; a self-loop of n (input only) leads nowhere new.
		preds := s.distinctEnds(ins, s.esrc, n)
		succs := s.distinctEnds(outs, s.edst, n)
		if err := s.reconnectRoom(n, ins, outs, preds, succs); err != nil {
			return err
		}
		for _, in := range preds {
			p := s.esrc[in]
			for _, out := range succs {
				q := s.edst[out]
				if p == q {
					continue
				}
				if _, ok := s.findPair(p, q); ok {
					continue
				}
				if err := s.newEdge(p, q, s.ed(in).Metadata); err != nil {
					return err
				}
			}
		}
	}
	for _, e := range ins {
		s.removeEdgeSlot(e)
	}
	for _, e := range outs {
		s.removeEdgeSlot(e)
	}
	s.removeNodeSlot(n)
	return nil
}

// checkToolName refuses a new toolName that SKILL.md's allowed-tools cannot
// list (TOOL_NAME_SEPARATOR). One with a control character is left to the
// invariant check, which reports it as INVALID_TOOL_NAME.
func (s *state) checkToolName(name string) error {
	if toolNameSeparator(name) < 0 || strings.ContainsFunc(name, unicode.IsControl) {
		return nil
	}
	return s.fail(CodeToolNameSeparator, "%s", toolNameProblem(name))
}

// distinctEnds keeps the first edge of es for each distinct end node
// (ends[e]), leaving out edges whose end is n.
func (s *state) distinctEnds(es []int32, ends []int32, n int32) []int32 {
	seen := make(map[int32]struct{}, len(es))
	out := make([]int32, 0, len(es))
	for _, e := range es {
		x := ends[e]
		if _, dup := seen[x]; dup || x == n {
			continue
		}
		seen[x] = struct{}{}
		out = append(out, e)
	}
	return out
}

// reconnectRoom counts the edges deleteNode with reconnect would add (and
// the metadata they would copy) before any is added, and fails when the
// graph would grow past a limit. Counting stops once the edge limit is
// passed, so it costs at most the pairs already connected plus the limit.
func (s *state) reconnectRoom(n int32, ins, outs, preds, succs []int32) error {
	removedE, removedRaw := len(ins)+len(outs), len(s.nd(n).Position)
	for _, e := range ins {
		removedRaw += len(s.ed(e).Metadata)
	}
	for _, e := range outs {
		removedRaw += len(s.ed(e).Metadata)
	}
	allowed := s.lim.edges - (s.liveEdges - removedE) // new edges that still fit
	added, addedRaw, stopped := 0, 0, false
count:
	for i, in := range preds {
		p, meta := s.esrc[in], len(s.ed(in).Metadata)
		for j, out := range succs {
			q := s.edst[out]
			if p == q {
				continue
			}
			if _, ok := s.findPair(p, q); ok {
				continue
			}
			added++
			addedRaw += meta
			if added > removedE && added > allowed {
				stopped = i < len(preds)-1 || j < len(succs)-1 // pairs left uncounted
				break count
			}
		}
	}
	hint := fmt.Sprintf("; reconnect links each of the %d predecessors of %s to each of its %d successors, up to %d new edges: use edgePolicy cascade and add the edges that matter with addEdge",
		len(preds), s.nd(n).ID, len(succs), len(preds)*len(succs))
	return s.room(-1, added-removedE, addedRaw-removedRaw, stopped, hint)
}

func (s *state) updateNode(op *Operation) error {
	n, err := s.node("nodeId", op.NodeID)
	if err != nil {
		return err
	}
	if op.Label == nil && !op.Markdown.Set && op.Type == "" && !op.ToolName.Set {
		return s.fail(CodeInvalidOperation, "updateNode of %s changes nothing; give at least one of label, markdown, type, toolName", op.NodeID)
	}
	if op.Type != "" && !op.Type.Valid() {
		return s.fail(CodeInvalidOperation, "type %q unknown; types are %s", op.Type, joinTypes())
	}
	if err := s.checkToolName(op.ToolName.value()); err != nil {
		return err
	}
	nd := s.nodeMut(n) // a copy: the input is not touched
	var changed []string
	if op.Label != nil && *op.Label != nd.Data.Label {
		nd.Data.Label = *op.Label
		changed = append(changed, "label")
	}
	if op.Markdown.Set && op.Markdown.value() != nd.Data.Markdown {
		nd.Data.Markdown = op.Markdown.value()
		changed = append(changed, "markdown")
	}
	if op.Type != "" && op.Type != nd.Type {
		if nd.Type == TypeTool && !op.ToolName.Set && nd.Data.ToolName != "" {
			s.warn(CodeToolNameCleared, []string{op.NodeID}, "toolName %q of %s was cleared because only tool nodes have one", nd.Data.ToolName, op.NodeID)
			nd.Data.ToolName = ""
			changed = append(changed, "toolName")
		}
		nd.Type = op.Type
		changed = append(changed, "type")
	}
	if op.ToolName.Set && op.ToolName.value() != nd.Data.ToolName {
		nd.Data.ToolName = op.ToolName.value()
		changed = append(changed, "toolName")
	}
	s.nodeOp[n] = int32(s.cur.Index)
	if len(changed) > 0 {
		s.cur.NodesUpdated = append(s.cur.NodesUpdated, op.NodeID)
		s.cur.UpdatedFields = changed
	}
	return nil
}

func (s *state) addEdge(op *Operation) error {
	if op.Source == "" || op.Target == "" {
		return s.fail(CodeInvalidOperation, "addEdge needs both source and target")
	}
	src, err := s.node("source", op.Source)
	if err != nil {
		return err
	}
	dst, err := s.node("target", op.Target)
	if err != nil {
		return err
	}
	if src == dst {
		return s.fail(CodeSelfLoop, "an edge from %s to itself is not allowed", op.Source)
	}
	if op.Metadata != nil && !isObject(op.Metadata) {
		return s.fail(CodeInvalidOperation, "metadata must be a JSON object, got %.40s", op.Metadata)
	}
	if op.ID != "" {
		if is, bad := idIssue(op.ID, "id"); bad {
			return s.fail(CodeInvalidOperation, "%s; pick another id or omit id to have one generated", is.Message)
		}
		if other, used := s.edgeIdx[op.ID]; used && (s.esrc[other] != src || s.edst[other] != dst) {
			return s.fail(CodeDuplicateID, "edge id %q is already used by %s; pick another id or omit id to have one generated", op.ID, s.edgeRef(other))
		}
	}
	if e, ok := s.findPair(src, dst); ok {
		id := s.ed(e).ID
		if s.editor.opts.RejectDuplicateEdges {
			return s.fail(CodeDuplicateEdge, "%s→%s is already connected by edge %s", op.Source, op.Target, id)
		}
		if op.ID != "" && op.ID != id {
			s.warn(CodeEdgeIDIgnored, nil, "%s→%s is already connected by edge %s, which keeps its id; id %s was not used", op.Source, op.Target, id, op.ID)
		}
		if op.Metadata != nil {
			if err := s.room(0, 0, len(op.Metadata)-len(s.ed(e).Metadata), false, ""); err != nil {
				return err
			}
			s.raw += len(op.Metadata) - len(s.ed(e).Metadata)
			s.edgeMut(e).Metadata = op.Metadata
			s.edgeOp[e] = int32(s.cur.Index)
			s.cur.EdgesReplaced = append(s.cur.EdgesReplaced, EdgeRef{ID: id, Source: op.Source, Target: op.Target})
		}
		return nil
	}
	if err := s.room(0, 1, len(op.Metadata), false, ""); err != nil {
		return err
	}
	if op.ID == "" {
		return s.newEdge(src, dst, op.Metadata)
	}
	s.addEdgeSlot(op.ID, src, dst, op.Metadata, false)
	return nil
}

func isObject(b []byte) bool {
	b = bytes.TrimSpace(b)
	return len(b) > 0 && b[0] == '{' && json.Valid(b)
}

func (s *state) deleteEdge(op *Operation) error {
	byPair := op.Source != "" || op.Target != ""
	if (op.EdgeID != "") == byPair {
		return s.fail(CodeInvalidOperation, "name the edge in exactly one way: either edgeId, or source and target")
	}
	if !byPair {
		e, ok := s.edgeIdx[op.EdgeID]
		if !ok {
			msg := fmt.Sprintf("edge %q not found", op.EdgeID)
			if by, ok := s.deletedBy(op.EdgeID, KindDeleteEdge); ok {
				msg += fmt.Sprintf(" (operations[%d] removed it)", by)
			}
			return s.fail(CodeEdgeNotFound, "%s; %s", msg, s.listEdges())
		}
		s.removeEdgeSlot(e)
		return nil
	}
	if op.Source == "" || op.Target == "" {
		return s.fail(CodeInvalidOperation, "deleteEdge by pair needs both source and target")
	}
	src, err := s.node("source", op.Source)
	if err != nil {
		return err
	}
	dst, err := s.node("target", op.Target)
	if err != nil {
		return err
	}
	if _, ok := s.findPair(src, dst); !ok {
		return s.missingPair(src, dst)
	}
	var doomed []int32 // every edge of the pair: parallel ones can come from the input
	for _, e := range s.outs(src) {
		if s.edst[e] == dst {
			doomed = append(doomed, e)
		}
	}
	for _, e := range doomed {
		s.removeEdgeSlot(e)
	}
	return nil
}
