package skillgraph

import (
	"fmt"
	"strconv"
	"strings"
)

// state is one batch in progress. Nodes and edges live in slots that are
// never reused within the batch; maps give O(1) lookups by id and by
// (source, target); node order is a doubly linked list over node slots, so
// insertAfter/insertBefore cost O(1) and order is materialized once.
type state struct {
	editor *Editor
	ops    []Operation

	// Nodes and edges are read from the input through nd/ed and copied only
	// when an operation changes them (nodeMut/edgeMut), so the input is never
	// written and only the result is a full copy.
	baseNodes []Node // the input's nodes: slots 0..len-1, read only
	newNodes  []Node // slots len(baseNodes)...
	modNodes  map[int32]*Node
	nodeAlive []bool
	nodeIdx   map[string]int32
	nodeOp    []int32 // last operation that added or updated the node; -1 if none
	next      []int32 // node order: next slot, or -1
	prev      []int32
	head      int32
	tail      int32
	outE, inE [][]int32 // edge slots per node slot; dead entries dropped lazily

	baseEdges []Edge // read only, like baseNodes
	newEdges  []Edge
	modEdges  map[int32]*Edge
	edgeAlive []bool
	edgeIdx   map[string]int32
	esrc      []int32 // node slot of each edge's source
	edst      []int32
	edgeOp    []int32 // operation that added or replaced the edge; -1 if none
	// pairs maps target slot → edge slot for sources with many outgoing
	// edges, built on first use; other sources are scanned (see findPair).
	pairs    map[int32]map[int32]int32
	parallel map[int32]bool // sources in pairs with parallel edges (from the input)

	opIdx     map[string]int
	reserved  map[string]struct{} // ids named by operations, kept from the generator
	nextNum   map[string]int      // default generator: next number per prefix
	liveNodes int
	liveEdges int
	raw       int // bytes of the live nodes' positions and edges' metadata
	lim       limits

	changes    []Change
	cur        *Change
	addedNodes map[string]string
}

func newState(ed *Editor, g *Graph, ops []Operation) (*state, error) {
	nn, ne := len(g.Nodes), len(g.Edges)
	s := &state{
		editor: ed, ops: ops,
		baseNodes: g.Nodes[:nn:nn],
		nodeAlive: make([]bool, nn, nn+len(ops)),
		nodeIdx:   make(map[string]int32, nn+len(ops)),
		nodeOp:    make([]int32, nn, nn+len(ops)),
		next:      make([]int32, nn, nn+len(ops)),
		prev:      make([]int32, nn, nn+len(ops)),
		head:      -1, tail: -1,
		baseEdges: g.Edges[:ne:ne],
		edgeAlive: make([]bool, ne, ne+2*len(ops)),
		edgeIdx:   make(map[string]int32, ne+2*len(ops)),
		esrc:      make([]int32, ne, ne+2*len(ops)),
		edst:      make([]int32, ne, ne+2*len(ops)),
		edgeOp:    make([]int32, ne, ne+2*len(ops)),
		opIdx:     make(map[string]int, len(ops)),
		changes:   make([]Change, 0, len(ops)),
		liveNodes: nn, liveEdges: ne,
	}
	rep := Report{Errors: rawIssues(g)}
	for i := range g.Nodes {
		id := g.Nodes[i].ID
		s.nodeAlive[i], s.nodeOp[i] = true, -1
		s.raw += len(g.Nodes[i].Position)
		s.next[i], s.prev[i] = int32(i+1), int32(i-1)
		if id == "" {
			rep.Errors = append(rep.Errors, Issue{Code: CodeEmptyID, Message: fmt.Sprintf("nodes[%d] has an empty id", i)})
			continue
		}
		if badID(id) {
			is, _ := idIssue(id, fmt.Sprintf("nodes[%d]", i))
			is.NodeIDs = []string{id}
			rep.Errors = append(rep.Errors, is)
		}
		// One map operation per id: a duplicate does not grow the map.
		before := len(s.nodeIdx)
		s.nodeIdx[id] = int32(i)
		if len(s.nodeIdx) == before {
			rep.Errors = append(rep.Errors, Issue{Code: CodeDuplicateID, Message: fmt.Sprintf("node id %s is used more than once (again at nodes[%d])", id, i), NodeIDs: []string{id}})
		}
	}
	if nn > 0 {
		s.head, s.tail = 0, int32(nn-1)
		s.next[nn-1] = -1
	}
	outDeg := make([]int32, nn+1)
	inDeg := make([]int32, nn+1)
	for i := range g.Edges {
		e := &g.Edges[i]
		s.edgeAlive[i], s.edgeOp[i] = true, -1
		s.raw += len(e.Metadata)
		src, okS := s.nodeIdx[e.Source]
		dst, okT := s.nodeIdx[e.Target]
		if e.ID == "" {
			rep.Errors = append(rep.Errors, Issue{Code: CodeEmptyID, Message: fmt.Sprintf("edges[%d] (%s→%s) has an empty id", i, e.Source, e.Target)})
			continue
		}
		before := len(s.edgeIdx)
		s.edgeIdx[e.ID] = int32(i)
		if len(s.edgeIdx) == before {
			rep.Errors = append(rep.Errors, Issue{Code: CodeDuplicateID, Message: fmt.Sprintf("edge id %s is used more than once (again at edges[%d])", e.ID, i), EdgeIDs: []string{e.ID}})
			continue
		}
		if badID(e.ID) {
			is, _ := idIssue(e.ID, fmt.Sprintf("edges[%d]", i))
			is.EdgeIDs = []string{e.ID}
			rep.Errors = append(rep.Errors, is)
		}
		if !okS || !okT {
			rep.Errors = append(rep.Errors, Issue{Code: CodeDanglingEdge, Message: fmt.Sprintf("edge %s (%s→%s) points to a node that does not exist", e.ID, e.Source, e.Target), EdgeIDs: []string{e.ID}})
			continue
		}
		s.esrc[i], s.edst[i] = src, dst
		outDeg[src+1]++
		inDeg[dst+1]++
	}
	if len(rep.Errors) > 0 {
		return nil, &GraphError{Report: rep}
	}
	// Adjacency lists carved from two backing arrays; the three-index
	// slices make an append reallocate instead of overwriting a neighbour.
	for i := 0; i < nn; i++ {
		outDeg[i+1] += outDeg[i]
		inDeg[i+1] += inDeg[i]
	}
	outB, inB := make([]int32, ne), make([]int32, ne)
	s.outE, s.inE = make([][]int32, nn, nn+len(ops)), make([][]int32, nn, nn+len(ops))
	for i := 0; i < nn; i++ {
		s.outE[i] = outB[outDeg[i]:outDeg[i]:outDeg[i+1]]
		s.inE[i] = inB[inDeg[i]:inDeg[i]:inDeg[i+1]]
	}
	for i := 0; i < ne; i++ {
		s.outE[s.esrc[i]] = append(s.outE[s.esrc[i]], int32(i))
		s.inE[s.edst[i]] = append(s.inE[s.edst[i]], int32(i))
	}
	for i := range ops {
		op := &ops[i]
		if op.Kind == KindAddNode && op.Node != nil && op.Node.ID != "" {
			s.reserve("n:" + op.Node.ID)
		}
		if op.Kind == KindAddEdge && op.ID != "" {
			s.reserve("e:" + op.ID)
		}
	}
	return s, nil
}

func (s *state) reserve(key string) {
	if s.reserved == nil {
		s.reserved = map[string]struct{}{}
	}
	s.reserved[key] = struct{}{}
}

// outs returns the live outgoing edge slots of node n, compacting the list.
func (s *state) outs(n int32) []int32 {
	s.outE[n] = s.live(s.outE[n])
	return s.outE[n]
}

func (s *state) ins(n int32) []int32 {
	s.inE[n] = s.live(s.inE[n])
	return s.inE[n]
}

func (s *state) live(l []int32) []int32 {
	k := 0
	for _, e := range l {
		if s.edgeAlive[e] {
			l[k] = e
			k++
		}
	}
	return l[:k]
}

// nd returns node slot n for reading.
func (s *state) nd(n int32) *Node {
	if int(n) >= len(s.baseNodes) {
		return &s.newNodes[int(n)-len(s.baseNodes)]
	}
	if m := s.modNodes[n]; m != nil {
		return m
	}
	return &s.baseNodes[n]
}

// nodeMut returns node slot n for writing, copying an input node first.
func (s *state) nodeMut(n int32) *Node {
	if int(n) >= len(s.baseNodes) {
		return &s.newNodes[int(n)-len(s.baseNodes)]
	}
	if m := s.modNodes[n]; m != nil {
		return m
	}
	if s.modNodes == nil {
		s.modNodes = map[int32]*Node{}
	}
	c := s.baseNodes[n]
	s.modNodes[n] = &c
	return &c
}

func (s *state) numNodes() int { return len(s.baseNodes) + len(s.newNodes) }

// ed returns edge slot e for reading.
func (s *state) ed(e int32) *Edge {
	if int(e) >= len(s.baseEdges) {
		return &s.newEdges[int(e)-len(s.baseEdges)]
	}
	if m := s.modEdges[e]; m != nil {
		return m
	}
	return &s.baseEdges[e]
}

// edgeMut returns edge slot e for writing, copying an input edge first.
func (s *state) edgeMut(e int32) *Edge {
	if int(e) >= len(s.baseEdges) {
		return &s.newEdges[int(e)-len(s.baseEdges)]
	}
	if m := s.modEdges[e]; m != nil {
		return m
	}
	if s.modEdges == nil {
		s.modEdges = map[int32]*Edge{}
	}
	c := s.baseEdges[e]
	s.modEdges[e] = &c
	return &c
}

func (s *state) numEdges() int { return len(s.baseEdges) + len(s.newEdges) }

// pairScan is the out-degree up to which findPair scans instead of keeping
// a map: skill graphs rarely branch wider, and a scan of a few int32s beats
// building a map over every edge of the graph for each batch.
const pairScan = 16

// findPair returns an edge src→dst (the first added, when the input has
// parallel edges).
func (s *state) findPair(src, dst int32) (int32, bool) {
	if m := s.pairs[src]; m != nil {
		e, ok := m[dst]
		return e, ok
	}
	outs := s.outs(src)
	if len(outs) <= pairScan {
		for _, e := range outs {
			if s.edst[e] == dst {
				return e, true
			}
		}
		return -1, false
	}
	if s.pairs == nil {
		s.pairs = map[int32]map[int32]int32{}
		s.parallel = map[int32]bool{}
	}
	m := make(map[int32]int32, len(outs))
	for _, e := range outs {
		if _, dup := m[s.edst[e]]; dup {
			s.parallel[src] = true
		} else {
			m[s.edst[e]] = e
		}
	}
	s.pairs[src] = m
	e, ok := m[dst]
	return e, ok
}

// addNodeSlot adds n to the node table and links it into the order after
// slot `after` (-1: at the front).
func (s *state) addNodeSlot(n Node, after int32) int32 {
	slot := int32(s.numNodes())
	s.newNodes = append(s.newNodes, n)
	s.nodeAlive = append(s.nodeAlive, true)
	s.nodeOp = append(s.nodeOp, int32(s.cur.Index))
	s.outE = append(s.outE, nil)
	s.inE = append(s.inE, nil)
	s.nodeIdx[n.ID] = slot
	s.liveNodes++
	s.raw += len(n.Position)
	var nxt int32
	if after < 0 {
		nxt = s.head
		s.head = slot
	} else {
		nxt = s.next[after]
		s.next[after] = slot
	}
	s.prev = append(s.prev, after)
	s.next = append(s.next, nxt)
	if nxt < 0 {
		s.tail = slot
	} else {
		s.prev[nxt] = slot
	}
	return slot
}

func (s *state) removeNodeSlot(n int32) {
	p, q := s.prev[n], s.next[n]
	if p < 0 {
		s.head = q
	} else {
		s.next[p] = q
	}
	if q < 0 {
		s.tail = p
	} else {
		s.prev[q] = p
	}
	s.nodeAlive[n] = false
	id := s.nd(n).ID
	delete(s.nodeIdx, id)
	s.reserve("n:" + id) // never hand a removed id to a new node of the same batch
	s.liveNodes--
	s.raw -= len(s.nd(n).Position)
	s.cur.NodesRemoved = append(s.cur.NodesRemoved, id)
}

// addEdgeSlot adds an edge from src to dst and records it in the change.
func (s *state) addEdgeSlot(id string, src, dst int32, meta []byte, generated bool) int32 {
	slot := int32(s.numEdges())
	e := Edge{ID: id, Source: s.nd(src).ID, Target: s.nd(dst).ID, Metadata: meta}
	s.newEdges = append(s.newEdges, e)
	s.edgeAlive = append(s.edgeAlive, true)
	s.esrc = append(s.esrc, src)
	s.edst = append(s.edst, dst)
	s.edgeOp = append(s.edgeOp, int32(s.cur.Index))
	s.edgeIdx[id] = slot
	s.raw += len(meta)
	if m := s.pairs[src]; m != nil {
		if _, ok := m[dst]; !ok {
			m[dst] = slot
		}
	}
	s.outE[src] = append(s.outE[src], slot)
	s.inE[dst] = append(s.inE[dst], slot)
	s.liveEdges++
	s.cur.EdgesAdded = append(s.cur.EdgesAdded, EdgeRef{ID: id, Source: e.Source, Target: e.Target})
	if generated {
		s.cur.GeneratedIDs = append(s.cur.GeneratedIDs, id)
	}
	return slot
}

// removeEdgeSlot removes edge e; removing a removed edge does nothing (a
// self-loop from the input is in both the ins and the outs of its node).
func (s *state) removeEdgeSlot(e int32) {
	if !s.edgeAlive[e] {
		return
	}
	s.edgeAlive[e] = false
	ed := s.ed(e)
	delete(s.edgeIdx, ed.ID)
	s.reserve("e:" + ed.ID)
	s.liveEdges--
	s.raw -= len(ed.Metadata)
	src, dst := s.esrc[e], s.edst[e]
	if m := s.pairs[src]; m != nil && m[dst] == e {
		delete(m, dst)
		if s.parallel[src] {
			for _, o := range s.outs(src) { // a parallel edge takes over the pair
				if s.edst[o] == dst {
					m[dst] = o
					break
				}
			}
		}
	}
	s.cur.EdgesRemoved = append(s.cur.EdgesRemoved, EdgeRef{ID: ed.ID, Source: ed.Source, Target: ed.Target})
}

// room fails with LIMIT_EXCEEDED when adding dn nodes, de edges and dr
// bytes of positions and metadata would take the graph past a limit. Only
// growth is refused: an operation that does not make the graph larger has
// room even when the input graph is already past a limit. atLeast says the
// caller stopped counting early; hint tells the model what to do instead.
func (s *state) room(dn, de, dr int, atLeast bool, hint string) error {
	for _, c := range [...]struct {
		d, cur, max int
		limit, what string
	}{
		{dn, s.liveNodes, s.lim.nodes, "MaxNodes", "nodes in the graph"},
		{de, s.liveEdges, s.lim.edges, "MaxEdges", "edges in the graph"},
		{dr, s.raw, s.lim.raw, "MaxRawJSONBytes", "bytes of node positions and edge metadata in the graph"},
	} {
		if c.d <= 0 || c.cur+c.d <= c.max {
			continue
		}
		le := &LimitError{Limit: c.limit, What: c.what, Value: c.cur + c.d, AtLeast: atLeast, Max: c.max}
		value := strconv.Itoa(le.Value)
		if atLeast {
			value = "at least " + value
		}
		op := &s.ops[s.cur.Index]
		return &OperationError{Index: s.cur.Index, OperationID: op.OperationID, Kind: op.Kind, Code: CodeLimitExceeded, Err: le,
			Message: fmt.Sprintf("%s would be %s after this operation, over the limit of %d (Options.%s)%s", c.what, value, c.max, c.limit, hint)}
	}
	return nil
}

// newID returns an id for a node ("n") or edge ("e") that nothing uses.
func (s *state) newID(prefix string) (string, error) {
	taken := func(id string) bool {
		if id == "" {
			return true
		}
		if _, ok := s.reserved[prefix+":"+id]; ok {
			return true
		}
		if prefix == "n" {
			_, ok := s.nodeIdx[id]
			return ok
		}
		_, ok := s.edgeIdx[id]
		return ok
	}
	if f := s.editor.opts.NewID; f != nil {
		for range 100 {
			if id := f(prefix); !taken(id) {
				return id, nil
			}
		}
		return "", fmt.Errorf("the ID generator returned 100 ids in a row that are empty or already taken")
	}
	if s.nextNum == nil {
		s.nextNum = map[string]int{}
	}
	if _, ok := s.nextNum[prefix]; !ok {
		// One O(V) or O(E) scan per batch and prefix, on first use.
		hi := 0
		scan := func(id string) {
			if n, ok := numberAfter(id, prefix); ok && n > hi {
				hi = n
			}
		}
		if prefix == "n" { // dead slots too: an id removed in this batch is not reused
			for i := range s.numNodes() {
				scan(s.nd(int32(i)).ID)
			}
		} else {
			for i := range s.numEdges() {
				scan(s.ed(int32(i)).ID)
			}
		}
		s.nextNum[prefix] = hi + 1
	}
	for {
		id := prefix + strconv.Itoa(s.nextNum[prefix])
		s.nextNum[prefix]++
		if !taken(id) {
			return id, nil
		}
	}
}

// numberAfter parses id as prefix followed by a decimal number.
func numberAfter(id, prefix string) (int, bool) {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok || rest == "" || len(rest) > 9 {
		return 0, false
	}
	n := 0
	for _, c := range rest {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	return n, true
}

// materialize builds the result graph in node order, copying every raw JSON
// value into one arena, and the view its invariants are checked on.
func (s *state) materialize(g *Graph) (*Graph, *view) {
	out := &Graph{SkillID: g.SkillID, Version: g.Version, UpdatedAt: g.UpdatedAt,
		Nodes: make([]Node, 0, s.liveNodes), Edges: make([]Edge, 0, s.liveEdges)}
	size := 0
	for n := s.head; n >= 0; n = s.next[n] {
		size += len(s.nd(n).Position)
	}
	for e := range int32(s.numEdges()) {
		if s.edgeAlive[e] {
			size += len(s.ed(e).Metadata)
		}
	}
	arena := make([]byte, 0, size)
	raw := func(r []byte) []byte {
		if r == nil {
			return nil
		}
		start := len(arena)
		arena = append(arena, r...)
		return arena[start:len(arena):len(arena)]
	}
	pos := make([]int32, s.numNodes())
	for n := s.head; n >= 0; n = s.next[n] {
		pos[n] = int32(len(out.Nodes))
		nd := *s.nd(n)
		nd.Position = raw(nd.Position)
		out.Nodes = append(out.Nodes, nd)
	}
	v := &view{nodes: out.Nodes, src: make([]int32, 0, s.liveEdges), dst: make([]int32, 0, s.liveEdges)}
	for e := range int32(s.numEdges()) {
		if !s.edgeAlive[e] {
			continue
		}
		ed := *s.ed(e)
		ed.Metadata = raw(ed.Metadata)
		out.Edges = append(out.Edges, ed)
		v.src = append(v.src, pos[s.esrc[e]])
		v.dst = append(v.dst, pos[s.edst[e]])
	}
	v.edges = out.Edges
	return out, v
}
