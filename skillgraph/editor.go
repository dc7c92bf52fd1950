package skillgraph

import "time"

// GraphEditor applies a batch of operations to a graph, all or nothing.
//
// Apply never modifies g or ops: on success it returns a new graph (sharing
// no memory with g) and what changed; on any failure it returns a nil graph,
// a nil result and one of *OperationError, *GraphError or
// *VersionConflictError. Operations apply in order, each seeing the effect of
// the ones before; the graph's invariants (see Validate) are checked once,
// on the graph after the whole batch, so a batch may pass through states
// that would be invalid on their own. A nil g is the empty graph.
// Implementations are safe for concurrent use.
type GraphEditor interface {
	Apply(g *Graph, ops []Operation) (*Graph, *Result, error)
}

// Options configure an editor. The zero value (or nil) is the default.
type Options struct {
	// NewID returns a candidate id for a node (prefix "n") or an edge
	// (prefix "e") that an operation did not name. The editor skips
	// candidates already taken in the graph or named later in the batch, and
	// fails with INVALID_OPERATION after 100 taken candidates in a row.
	// Default: prefix + (largest number used after that prefix + 1), so a
	// graph n1..n3 gets n4, n5, ... An editor shared between goroutines
	// calls NewID from all of them, so it must be safe for concurrent use.
	NewID func(prefix string) string
	// Now stamps UpdatedAt on success. Default: time.Now.
	Now func() time.Time
	// BaseVersion, when set, is the graph version the operations were made
	// for: Apply refuses any other with *VersionConflictError
	// (ErrVersionConflict). Editors are cheap; build one per request when
	// the base version comes with the request.
	BaseVersion *int
	// RejectDuplicateEdges makes addEdge on an already connected pair fail
	// with DUPLICATE_EDGE instead of overwriting that edge's metadata.
	RejectDuplicateEdges bool
}

// Editor is the GraphEditor of this package.
type Editor struct {
	opts Options
}

var _ GraphEditor = (*Editor)(nil)

// NewEditor returns an editor; opts is copied and may be nil.
func NewEditor(opts *Options) GraphEditor {
	e := &Editor{}
	if opts != nil {
		e.opts = *opts
		if opts.BaseVersion != nil {
			v := *opts.BaseVersion
			e.opts.BaseVersion = &v
		}
	}
	if e.opts.Now == nil {
		e.opts.Now = time.Now
	}
	return e
}

// Apply implements GraphEditor. A successful non-empty batch returns the
// graph at Version+1 with UpdatedAt from Options.Now; an empty batch returns
// a copy with Version and UpdatedAt unchanged.
func (ed *Editor) Apply(g *Graph, ops []Operation) (*Graph, *Result, error) {
	if g == nil {
		g = &Graph{}
	}
	if ed.opts.BaseVersion != nil && *ed.opts.BaseVersion != g.Version {
		return nil, nil, &VersionConflictError{Base: *ed.opts.BaseVersion, Current: g.Version}
	}
	s, err := newState(ed, g, ops)
	if err != nil {
		return nil, nil, err
	}
	for i := range ops {
		if err := s.apply(i); err != nil {
			return nil, nil, err
		}
	}
	out, v := s.materialize(g)
	var rep Report
	v.selfLoops(&rep) // only an input self-loop can survive: addEdge refuses new ones
	v.check(&rep, true)
	if len(rep.Errors) > 0 {
		return nil, nil, s.invariantError(rep.Errors)
	}
	if len(ops) > 0 {
		out.Version = g.Version + 1
		out.UpdatedAt = ed.opts.Now()
	}
	return out, s.result(g, out, rep.Warnings), nil
}

// invariantError blames the earliest operation that caused one of the
// errors: the last operation that touched the node, or that added an edge
// of the cycle. Errors no operation touched were in the input graph.
func (s *state) invariantError(issues []Issue) error {
	best, bestIdx := -1, -1
	for k, is := range issues {
		idx := int32(-1)
		for _, id := range is.NodeIDs {
			if is.Code == CodeCycle || is.Code == CodeNoStartNode {
				break // a cycle is blamed on its edges
			}
			if n, ok := s.nodeIdx[id]; ok && s.nodeOp[n] > idx {
				idx = s.nodeOp[n]
			}
		}
		for _, id := range is.EdgeIDs {
			if e, ok := s.edgeIdx[id]; ok && s.edgeOp[e] > idx {
				idx = s.edgeOp[e]
			}
		}
		if best < 0 || (idx >= 0 && (bestIdx < 0 || int(idx) < bestIdx)) {
			best, bestIdx = k, int(idx)
		}
	}
	is := issues[best]
	if bestIdx < 0 {
		return &OperationError{Index: -1, Code: is.Code, Message: is.Message + " (the graph was already like this before the batch; fix it with more operations)"}
	}
	op := &s.ops[bestIdx]
	return &OperationError{Index: bestIdx, OperationID: op.OperationID, Kind: op.Kind, Code: is.Code, Message: "after the batch: " + is.Message}
}
