package skillgraph

import (
	"errors"
	"fmt"
	"strings"
)

// Sentinel errors, tested with errors.Is. The typed errors below wrap them.
var (
	// ErrSyntax: the operations are not JSON (stage 1, *SyntaxError).
	ErrSyntax = errors.New("skillgraph: invalid JSON")
	// ErrSchema: the JSON does not match the operation schema (stage 2, *SchemaError).
	ErrSchema = errors.New("skillgraph: operations do not match the schema")

	// Stage 3 (*OperationError) sentinels, one per family of Code.
	ErrNodeNotFound     = errors.New("skillgraph: node not found")
	ErrEdgeNotFound     = errors.New("skillgraph: edge not found")
	ErrDuplicateID      = errors.New("skillgraph: duplicate id")
	ErrDuplicateEdge    = errors.New("skillgraph: duplicate edge")
	ErrHasEdges         = errors.New("skillgraph: node has edges")
	ErrInvalidOperation = errors.New("skillgraph: invalid operation")
	ErrInvariant        = errors.New("skillgraph: graph invariant violated")

	// ErrInvalidGraph: the graph given to Apply cannot be indexed (*GraphError).
	ErrInvalidGraph = errors.New("skillgraph: invalid graph")
	// ErrVersionConflict: the graph is not at ApplyAt's base version (*VersionConflictError).
	ErrVersionConflict = errors.New("skillgraph: version conflict")

	// ErrLimit: an input or a batch would go past one of the limits of
	// Options (*LimitError; inside an *OperationError with Code
	// LIMIT_EXCEEDED when one operation is to blame).
	ErrLimit = errors.New("skillgraph: limit exceeded")
	// ErrInvalidOption: an option is out of range, such as a negative limit
	// or a SKILL.md description over 1,024 characters (*OptionError).
	ErrInvalidOption = errors.New("skillgraph: invalid option")
	// ErrNotInitialized: a method was called on a nil *Editor.
	ErrNotInitialized = errors.New("skillgraph: editor not initialised; create one with NewEditor")
)

// Code is a stable, machine-readable reason for an *OperationError or an Issue.
type Code string

// Codes of operation errors and of Validate's issues. They never change meaning.
const (
	CodeNodeNotFound       Code = "NODE_NOT_FOUND"
	CodeEdgeNotFound       Code = "EDGE_NOT_FOUND"
	CodeDuplicateID        Code = "DUPLICATE_ID"
	CodeDuplicateEdge      Code = "DUPLICATE_EDGE"
	CodeHasEdges           Code = "HAS_EDGES"
	CodeInvalidOperation   Code = "INVALID_OPERATION"
	CodeEmptyID            Code = "EMPTY_ID"
	CodeDanglingEdge       Code = "DANGLING_EDGE"
	CodeSelfLoop           Code = "SELF_LOOP"
	CodeCycle              Code = "CYCLE"
	CodeNoStartNode        Code = "NO_START_NODE"
	CodeEmptyLabel         Code = "EMPTY_LABEL"
	CodeInvalidNodeType    Code = "INVALID_NODE_TYPE"
	CodeMissingToolName    Code = "MISSING_TOOL_NAME"
	CodeUnexpectedToolName Code = "UNEXPECTED_TOOL_NAME"
	// CodeInvalidID: a node id, edge id or skillId holds a control character.
	CodeInvalidID Code = "INVALID_ID"
	// CodeInvalidToolName: a toolName holds a control character.
	CodeInvalidToolName Code = "INVALID_TOOL_NAME"
	// CodeInvalidJSON: a node's position or an edge's metadata is not valid JSON.
	CodeInvalidJSON Code = "INVALID_JSON"
	// CodeLimitExceeded: the operation would take the graph past a limit of
	// Options; the error wraps a *LimitError with the limit and the value.
	CodeLimitExceeded Code = "LIMIT_EXCEEDED"
	// CodeToolNameSeparator: a toolName holds whitespace or a comma, which
	// allowed-tools in SKILL.md reads as the end of the name. An operation
	// that sets such a toolName fails with it; SkillMD refuses a graph that
	// has one; Validate warns about it.
	CodeToolNameSeparator Code = "TOOL_NAME_SEPARATOR"
	// CodeInvalidSkillName: SkillMD was given a skillId that is not a valid
	// SKILL.md name (1-64 lowercase letters, digits and single hyphens, not
	// at either end).
	CodeInvalidSkillName Code = "INVALID_SKILL_NAME"

	// Warning codes.
	CodeIsolatedNode       Code = "ISOLATED_NODE"
	CodeMultipleStartNodes Code = "MULTIPLE_START_NODES"
	CodeParallelEdges      Code = "PARALLEL_EDGES"
	CodeAmbiguousInsert    Code = "AMBIGUOUS_INSERT"
	CodeParentHintIgnored  Code = "PARENT_HINT_IGNORED"
	CodeEdgeIDIgnored      Code = "EDGE_ID_IGNORED"
	CodeToolNameCleared    Code = "TOOL_NAME_CLEARED"
)

// sentinel maps a Code to the sentinel its errors wrap.
func (c Code) sentinel() error {
	switch c {
	case CodeNodeNotFound:
		return ErrNodeNotFound
	case CodeEdgeNotFound:
		return ErrEdgeNotFound
	case CodeDuplicateID:
		return ErrDuplicateID
	case CodeDuplicateEdge:
		return ErrDuplicateEdge
	case CodeHasEdges:
		return ErrHasEdges
	case CodeInvalidOperation, CodeToolNameSeparator:
		return ErrInvalidOperation
	case CodeLimitExceeded:
		return ErrLimit
	}
	return ErrInvariant
}

// SyntaxError is a stage-1 failure: the input is not JSON.
type SyntaxError struct {
	Offset int64 // byte offset of the error (0-based)
	Line   int   // 1-based line of Offset
	Column int   // 1-based column (in bytes) of Offset
	Msg    string
	Err    error // the encoding/json error
}

func (e *SyntaxError) Error() string {
	return fmt.Sprintf("skillgraph: invalid JSON at byte %d (line %d, column %d): %s", e.Offset, e.Line, e.Column, e.Msg)
}

// Unwrap returns ErrSyntax and the underlying encoding/json error.
func (e *SyntaxError) Unwrap() []error { return []error{ErrSyntax, e.Err} }

// SchemaProblem is one schema violation.
type SchemaProblem struct {
	Index       int    // index of the operation, or -1 for the envelope
	OperationID string // when the operation has one
	Path        string // JSON path of the offending value, e.g. operations[2].node.type
	Message     string
}

func (p SchemaProblem) String() string {
	return p.Path + ": " + p.Message
}

// SchemaError is a stage-2 failure: the JSON does not match Schema().
// Problems is sorted by Index, then Path.
type SchemaError struct {
	Problems []SchemaProblem
}

func (e *SchemaError) Error() string {
	const limit = 10
	var b strings.Builder
	fmt.Fprintf(&b, "skillgraph: operations do not match the schema (%d problem", len(e.Problems))
	if len(e.Problems) != 1 {
		b.WriteByte('s')
	}
	b.WriteString("): ")
	for i, p := range e.Problems {
		if i == limit {
			fmt.Fprintf(&b, "; and %d more", len(e.Problems)-limit)
			break
		}
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(p.String())
	}
	return b.String()
}

// Unwrap returns ErrSchema.
func (e *SchemaError) Unwrap() error { return ErrSchema }

// OperationError is a stage-3 failure: an operation cannot be applied, or the
// graph after the batch breaks an invariant. Index is the failing operation's
// position in the batch; for an invariant it is the operation that last
// touched the offending node or edge, or -1 when the problem was already in
// the input graph and no operation touched it.
type OperationError struct {
	Index       int
	OperationID string
	Kind        Kind
	Code        Code
	Message     string // says what exists instead, for a model to fix its input
	// Err is the cause, when there is more to it than Code: a *LimitError
	// for LIMIT_EXCEEDED. Unwrap returns it instead of Code's sentinel.
	Err error
}

func (e *OperationError) Error() string {
	if e.Index < 0 {
		return fmt.Sprintf("skillgraph: graph: %s: %s", e.Code, e.Message)
	}
	return fmt.Sprintf("skillgraph: operations[%d] %q (%s): %s: %s", e.Index, e.OperationID, e.Kind, e.Code, e.Message)
}

// Unwrap returns Err when set (a *LimitError, which unwraps to ErrLimit),
// else the sentinel of e.Code: ErrNodeNotFound for NODE_NOT_FOUND,
// ErrInvariant for CYCLE and the other invariant codes, and so on.
func (e *OperationError) Unwrap() error {
	if e.Err != nil {
		return e.Err
	}
	return e.Code.sentinel()
}

// GraphError says the graph given to Apply is too broken to edit (empty or
// duplicate ids, edges to missing nodes). Report holds those problems.
type GraphError struct {
	Report Report
}

func (e *GraphError) Error() string {
	msgs := make([]string, 0, len(e.Report.Errors))
	for _, is := range e.Report.Errors {
		msgs = append(msgs, string(is.Code)+": "+is.Message)
	}
	return "skillgraph: invalid graph: " + strings.Join(capList(msgs, 10), "; ")
}

// Unwrap returns ErrInvalidGraph.
func (e *GraphError) Unwrap() error { return ErrInvalidGraph }

// VersionConflictError says the graph moved on since the edit was prepared.
type VersionConflictError struct {
	Base    int // ApplyAt's base
	Current int // the graph's Version
}

func (e *VersionConflictError) Error() string {
	return fmt.Sprintf("skillgraph: version conflict: operations were made for version %d but the graph is at version %d; reload the graph and redo the edit", e.Base, e.Current)
}

// Unwrap returns ErrVersionConflict.
func (e *VersionConflictError) Unwrap() error { return ErrVersionConflict }

// LimitError says an input or a batch would go past a limit of Options.
// Apply checks a limit before doing the work it bounds: the operation count
// before the first operation, the edges deleteNode with reconnect would add
// before adding them.
type LimitError struct {
	// Limit is the Options field, such as "MaxEdges".
	Limit string
	// Value is what the input would reach. When AtLeast is set, counting
	// stopped early and the input would reach at least Value.
	Value   int
	AtLeast bool
	// Max is the limit in force (the default when the field was zero).
	Max int
	// What names what was counted, such as "edges in the graph".
	What string
}

func (e *LimitError) Error() string {
	atLeast := ""
	if e.AtLeast {
		atLeast = "at least "
	}
	return fmt.Sprintf("skillgraph: limit exceeded: %s would be %s%d, over the limit of %d (Options.%s)", e.What, atLeast, e.Value, e.Max, e.Limit)
}

// Unwrap returns ErrLimit.
func (e *LimitError) Unwrap() error { return ErrLimit }

// OptionError says an option is out of range.
type OptionError struct {
	Option  string // such as "Options.MaxNodes" or "SkillMDOptions.Description"
	Message string
}

func (e *OptionError) Error() string {
	return "skillgraph: invalid option " + e.Option + ": " + e.Message
}

// Unwrap returns ErrInvalidOption.
func (e *OptionError) Unwrap() error { return ErrInvalidOption }

// maxListed caps the ids an error message lists.
const maxListed = 20

// capList keeps the first max items and says how many were left out.
func capList(items []string, limit int) []string {
	if len(items) <= limit {
		return items
	}
	out := append([]string(nil), items[:limit]...)
	return append(out, fmt.Sprintf("… and %d more", len(items)-limit))
}
