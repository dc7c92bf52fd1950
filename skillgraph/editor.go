package skillgraph

import (
	"fmt"
	"time"
)

// GraphEditor applies a batch of operations to a graph, all or nothing.
//
// Apply never modifies g or ops: on success it returns a new graph (sharing
// no memory with g) and what changed; on any failure it returns a nil graph,
// a nil result and one of *OperationError, *GraphError or
// *VersionConflictError. Operations apply in order, each seeing the effect of
// the ones before; the graph's invariants (see Validate) are checked once,
// on the graph after the whole batch, so a batch may pass through states
// that would be invalid on their own. A nil g is the empty graph. A batch
// that would go past a limit (see Options) fails with an error wrapping a
// *LimitError (ErrLimit) before the work the limit bounds is done.
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
	// RejectDuplicateEdges makes addEdge on an already connected pair fail
	// with DUPLICATE_EDGE instead of overwriting that edge's metadata.
	RejectDuplicateEdges bool

	// Limits. Zero means the default; a negative value is an *OptionError.
	// Apply refuses a batch of more than MaxOperations operations before
	// applying any, and an operation that would take the graph past
	// MaxNodes, MaxEdges or MaxRawJSONBytes fails with LIMIT_EXCEEDED
	// before it adds anything; deleteNode with reconnect counts the edges it
	// would add first. A graph already past a limit can still be edited by
	// operations that do not make it larger. ParseEnvelopeWithOptions
	// applies MaxInputBytes and MaxOperations.

	// MaxNodes bounds the nodes of a graph. Default 2,000: the Agent Skills
	// format asks for a SKILL.md under 500 lines, and each node is at least
	// one line of it.
	MaxNodes int
	// MaxEdges bounds the edges of a graph. Default 10,000, five per node
	// at the default MaxNodes; a graph of steps averages one or two.
	MaxEdges int
	// MaxOperations bounds the operations of one batch. Default 1,000:
	// enough to rebuild a large skill in one reply.
	MaxOperations int
	// MaxRawJSONBytes bounds the bytes of all node positions and edge
	// metadata of a graph together, which Apply copies into its result.
	// Default 4 MiB, about 400 bytes per edge and node at the default limits.
	MaxRawJSONBytes int
	// MaxInputBytes bounds the size of a model's reply given to
	// ParseEnvelopeWithOptions. Default 1 MiB, twice a 128k-token reply.
	MaxInputBytes int
}

// Default limits; see Options.
const (
	DefaultMaxNodes        = 2000
	DefaultMaxEdges        = 10000
	DefaultMaxOperations   = 1000
	DefaultMaxRawJSONBytes = 4 << 20
	DefaultMaxInputBytes   = 1 << 20
)

// limits are the limits in force, defaults filled in.
type limits struct {
	nodes, edges, ops, raw, input int
}

// limits returns the limits of o (nil: the defaults), or an *OptionError
// for a negative one.
func (o *Options) limits() (limits, error) {
	var l limits
	if o == nil {
		o = &Options{}
	}
	for _, f := range []struct {
		name string
		v    int
		def  int
		dst  *int
	}{
		{"MaxNodes", o.MaxNodes, DefaultMaxNodes, &l.nodes},
		{"MaxEdges", o.MaxEdges, DefaultMaxEdges, &l.edges},
		{"MaxOperations", o.MaxOperations, DefaultMaxOperations, &l.ops},
		{"MaxRawJSONBytes", o.MaxRawJSONBytes, DefaultMaxRawJSONBytes, &l.raw},
		{"MaxInputBytes", o.MaxInputBytes, DefaultMaxInputBytes, &l.input},
	} {
		switch {
		case f.v < 0:
			return limits{}, &OptionError{Option: "Options." + f.name, Message: fmt.Sprintf("%d is negative; give a positive limit, or 0 for the default %d", f.v, f.def)}
		case f.v == 0:
			*f.dst = f.def
		default:
			*f.dst = f.v
		}
	}
	return l, nil
}

// Editor is the GraphEditor of this package. Its zero value applies
// operations with the default Options; a nil *Editor fails with
// ErrNotInitialized.
type Editor struct {
	opts Options
}

var _ GraphEditor = (*Editor)(nil)

// NewEditor returns an editor; opts is copied and may be nil.
func NewEditor(opts *Options) *Editor {
	e := &Editor{}
	if opts != nil {
		e.opts = *opts
	}
	return e
}

// ApplyAt is Apply with a precondition of the request: the operations were
// made for the graph at version base (the version the model was shown), so
// a graph at any other version is refused with *VersionConflictError
// (ErrVersionConflict) before anything is applied. A host builds its
// compare-and-swap on it.
func (ed *Editor) ApplyAt(g *Graph, base int, ops []Operation) (*Graph, *Result, error) {
	if ed == nil {
		return nil, nil, ErrNotInitialized
	}
	current := 0
	if g != nil {
		current = g.Version
	}
	if base != current {
		return nil, nil, &VersionConflictError{Base: base, Current: current}
	}
	return ed.Apply(g, ops)
}

// Apply implements GraphEditor. A successful non-empty batch returns the
// graph at Version+1 with UpdatedAt from Options.Now; an empty batch returns
// a copy with Version and UpdatedAt unchanged.
func (ed *Editor) Apply(g *Graph, ops []Operation) (*Graph, *Result, error) {
	if ed == nil {
		return nil, nil, ErrNotInitialized
	}
	lim, err := ed.opts.limits()
	if err != nil {
		return nil, nil, err
	}
	if len(ops) > lim.ops {
		return nil, nil, &LimitError{Limit: "MaxOperations", What: "operations in the batch", Value: len(ops), Max: lim.ops}
	}
	if g == nil {
		g = &Graph{}
	}
	s, err := newState(ed, g, ops)
	if err != nil {
		return nil, nil, err
	}
	s.lim = lim
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
		now := ed.opts.Now
		if now == nil {
			now = time.Now
		}
		out.Version = g.Version + 1
		out.UpdatedAt = now()
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
