// Package skillgraph applies a language model's edits to a SkillGraph, the
// graph of steps behind an agent skill, all together or not at all.
//
// A model (Claude, in the design this follows) answers an edit request with
// a list of operations: addNode, deleteNode, updateNode, addEdge and
// deleteEdge. The package checks that answer in three stages, each with its
// own error type, and the graph changes only when all three pass:
//
//  1. JSON syntax: ParseOperations, *SyntaxError with the byte offset,
//     line and column (ErrSyntax).
//  2. The operation schema: Schema(), a JSON Schema (draft-07) for the reply
//     envelope and each kind, embedded and exported so a host can hand it to
//     the model as a structured-output schema; checked with gojsonschema.
//     Unknown fields and wrong-case names are refused with *SchemaError
//     (ErrSchema), whose messages name what is allowed and the likely fix.
//  3. Applying and the graph's invariants: GraphEditor.Apply,
//     *OperationError{Index, OperationID, Kind, Code, Message} with a stable
//     Code and a message listing what exists instead ("node n9 not found;
//     nodes are n1, n2, n3").
//
// Validate checks a graph on its own (for a GUI's validate button); Mermaid,
// DOT and SkillMD render one.
//
// # What it does not do
//
// No I/O: nothing here reads or writes files, talks to a model or stores a
// graph; every function is pure and takes no context. Persisting a graph and
// guarding concurrent writers is the host's job; Editor.ApplyAt gives it
// the precondition (ErrVersionConflict) to build compare-and-swap on. Apply
// is pure, so a dry run is Apply without storing the result.
//
// # Decisions where the design was silent
//
//   - Node order is meaningful and stable. addNode without insertAfter or
//     insertBefore appends the node.
//   - insertAfter A places the node right after A in order. If A has exactly
//     one outgoing edge A→B, it is split into A→new→B; with none, A→new is
//     added; with several, A→new is added as a new branch and a warning
//     (AMBIGUOUS_INSERT) says so. insertBefore B is symmetric (placed right
//     before B; the edge into B is split). Both together split the edge A→B,
//     which must exist (EDGE_NOT_FOUND). When an edge is split, the edge
//     into the new node keeps the old edge's metadata; both new edges get
//     fresh ids and the old one is reported removed.
//   - parentHint P alone adds P→new. With insertAfter or insertBefore, those
//     decide; P must still exist, and a warning (PARENT_HINT_IGNORED) is given
//     when P does not end up preceding the new node.
//   - addNode's node takes the canonical shape ({"id","type","data":{...},
//     "position"}) and also label, markdown and toolName at its top level;
//     giving a field in both places with different values is a schema error.
//     node.type is required.
//   - Missing ids are generated (Options.NewID; default n<k>/e<k> after the
//     largest number in use) and never collide with ids the graph has or
//     that later operations of the batch name. Result.AddedNodeIDs maps each
//     addNode's operationId to its node id; Change.GeneratedIDs lists every
//     generated id, including those of edges made by splits and reconnects.
//   - addEdge on an already connected pair keeps that edge and its id and
//     overwrites its metadata when metadata is given (left as is when it is
//     not); an id given for it is not used (EDGE_ID_IGNORED warning), unless
//     another edge already has it (DUPLICATE_ID).
//     Options.RejectDuplicateEdges makes the pair a DUPLICATE_EDGE error.
//   - deleteEdge by source and target removes every edge of that pair.
//   - deleteNode with reconnect links each predecessor to each successor,
//     skipping self-loops and pairs already connected; a new edge copies the
//     metadata of the incoming edge it replaces.
//   - updateNode that changes a tool node to another type clears its
//     toolName unless the same operation sets toolName (TOOL_NAME_CLEARED
//     warning). An updateNode with no field to change is INVALID_OPERATION;
//     one whose values equal the current ones succeeds and reports no change.
//   - A field the kind does not use (deleteNode with a label) is an error,
//     in the schema and in Apply alike; so is an empty or repeated
//     operationId.
//   - Invariants are checked once, on the graph after the whole batch, in
//     O(V+E); an error is blamed on the last operation that touched the node
//     or, for a cycle, that added one of its edges (Index -1 when the input
//     graph already had the problem). References to nodes and edges, self
//     loops and duplicate ids fail at the operation itself. A graph too broken
//     to index (empty, duplicate ids, dangling edges) is refused up front
//     with *GraphError.
//   - The input graph may hold what operations cannot create (self-loops,
//     parallel edges) and a batch may repair it: deleteNode removes a
//     self-loop of its node once (reconnect ignores it), deleteEdge removes
//     it; one the batch leaves is reported as SELF_LOOP (Index -1).
//   - Ids are one line of visible text: an id that is only whitespace is
//     EMPTY_ID, and a node id, edge id or skillId holding a control
//     character is INVALID_ID; a toolName with one is INVALID_TOOL_NAME.
//     position and metadata must be valid JSON (INVALID_JSON), so every
//     result can be written with encoding/json. addNode and addEdge refuse
//     such ids and positions as INVALID_OPERATION; an input graph with them
//     is refused with *GraphError; labels and markdown may hold line breaks.
//   - ParseOperations refuses an object that gives a key twice
//     ("nodeId":"x","nodeId":"y"), which encoding/json would read as the
//     last, and when operationId or kind is missing it also names the
//     unknown fields, so "operationID" and "Kind" get a did-you-mean hint.
//   - Mermaid and DOT both leave out an edge whose source or target is not
//     a node.
//   - NO_START_NODE is reported instead of CYCLE when the cycle leaves no
//     node without incoming edges (a DAG always has a start node). Labels
//     that are only whitespace count as empty.
//   - A successful non-empty batch sets Version to Version+1 and UpdatedAt
//     to Options.Now(); an empty one changes neither. A nil graph is empty.
//   - Unknown JSON fields of a graph are not kept. position and metadata are
//     json.RawMessage values whose bytes no operation touches; encoding/json
//     drops their insignificant whitespace when it writes them.
//   - SkillMD writes the Agent Skills format: instruction, decision and
//     tool nodes are the numbered steps (a tool step names its tool), example
//     nodes the examples, tool nodes also feed allowed-tools
//     (space-delimited); headings default to Japanese. The frontmatter is
//     written with go.yaml.in/yaml/v3, so every value reads back as the same
//     string. The skillId must be a valid name (1-64 lowercase letters,
//     digits and single hyphens: INVALID_SKILL_NAME) and the description
//     1-1,024 characters (*OptionError).
//   - A tool name holds no whitespace or comma (TOOL_NAME_SEPARATOR), as
//     allowed-tools would cut it in two: write Bash(git:*), not
//     Bash(git diff:*). addNode and updateNode refuse a new one and SkillMD
//     refuses a graph that has one; Validate only warns, so a graph stored
//     with one stays editable.
//   - A nil *Editor is ErrNotInitialized; a zero Editor uses the defaults.
//
// # Limits
//
// Every input has a limit, in Options, checked before the work it bounds:
// MaxOperations per batch (default 1,000), MaxNodes (2,000) and MaxEdges
// (10,000) per graph, MaxRawJSONBytes (4 MiB) of positions and metadata,
// and MaxInputBytes (1 MiB) per reply given to ParseEnvelopeWithOptions.
// An operation that would grow the graph past one fails with
// LIMIT_EXCEEDED and a *LimitError naming the limit, the value and the
// maximum (errors.Is ErrLimit). deleteNode with reconnect counts the edges
// it would add (up to predecessors × successors) before adding any, and
// stops counting once the limit is passed: refusing k = 2,000 predecessors
// and successors (4 M edges) costs 1.4-2.6 ms of CPU time and 0.9 MB
// (BenchmarkReconnectRefused, load average 7) where applying it took 37 s
// and 1.5 GB. A graph already past a limit can still shrink.
//
// # Performance
//
// Apply clones the graph once, keeps id→slot, pair→edge and adjacency maps
// and a linked list for node order, so each operation costs O(1) plus the
// degree of the nodes it touches (a source with more than 16 outgoing edges
// gets a lazily built target map), then checks the invariants once in
// O(V+E) with Kahn's algorithm. A 1,000-operation batch on a 10,000-node
// graph (with MaxNodes raised past its default) takes 18-27 ms of CPU time (cpu-ns/op) on a shared 2-core machine
// at load average 5-11; wall time there (ns/op) ranged from 18 to 200 ms
// with the load. Cost grows linearly with graph and batch size
// (BenchmarkApply). Parsing the same
// batch (JSON and gojsonschema) costs more than applying it
// (BenchmarkParseOperations).
//
// # Testing an implementation
//
// Any GraphEditor can be checked the way this package checks its own:
// random batches never panic; every successful result passes Validate with
// no errors; a failed batch leaves the input deep-equal to a Clone taken
// before (see FuzzApply in fuzz_test.go).
package skillgraph
