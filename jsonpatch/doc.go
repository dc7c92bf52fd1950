// Package jsonpatch applies RFC 6902 JSON Patches to JSON documents, strictly
// and atomically, with errors that say which operation failed and why.
//
// It is its own engine, written for that: github.com/evanphx/json-patch/v5,
// the usual Go library, accepts invalid pointers and array indices ("01",
// "+1"), reads "/" as the root, compares 1 and 1.0 as different in "test",
// treats a missing member as null in "test", panics on a "test" whose value
// is an array containing null, reports no operation index, and decodes and
// re-encodes the whole document whatever the patch touches. Decode, Apply and
// New are the entry points; Get, ParsePointer, FormatPointer, EscapeToken and
// UnescapeToken read and build RFC 6901 pointers.
//
// # What it does not do
//
// No I/O: it works on byte slices. It does not merge patches (RFC 7386), diff
// documents, or check documents against schemas.
//
// # Guarantees
//
//   - Atomic: the input document is never modified; on any error the result
//     is nil, so a caller never sees a half-applied patch.
//   - Strict by default: a pointer is "" or starts with "/"; "~" appears only
//     as "~0" or "~1"; "/" is the member named "", not the root; an array
//     index is 0 or a number without leading zeros, or "-" (past the end)
//     as the last token of an "add" path (or of a move/copy destination);
//     negative indices only with Options.AllowNegativeIndices.
//   - "test" compares numbers by value (1 == 1.0 == 1e0, exactly, any size),
//     strings after unescaping, objects regardless of member order; a missing
//     member is not null (the error matches both ErrTestFailed and
//     ErrPathNotFound); "value" is required.
//   - An operation object naming a member twice is ErrInvalidPatch (Decode,
//     and Patch.UnmarshalJSON which uses it); so is an unknown op, a missing
//     member, a move into its own child, and removing the whole document.
//     Members an operation does not use are ignored, as RFC 6902 requires.
//   - Documents may be scalars and may start with whitespace; an empty or
//     invalid document, or one that is not UTF-8 (RFC 8259), is
//     ErrInvalidDocument. A patch that is not UTF-8 is ErrInvalidPatch.
//   - The result is compact JSON. Member order and number spellings (big
//     integers, 1.50) are kept; "<", ">" and "&" are not escaped. A patch
//     that changes nothing (no operations, or only tests) returns the
//     document byte for byte, without the white space around it.
//   - A member name that occurs more than once in an object the patch goes
//     into (adding, replacing, removing, testing, moving or copying a
//     member of it, or going through it to a deeper path) is
//     ErrInvalidDocument, naming the member's pointer, whatever the name the
//     operation uses: which copy was meant cannot be known, and changing
//     one, or adding beside them, would keep both in the result. Objects
//     the patch does not go into are copied as they are.
//   - Limits (Options): operations per patch (10,000), bytes added by copy
//     operations (1 MiB), document size in and out (16 MiB). Exceeding one is
//     ErrLimitExceeded; so are documents and values of 4 GiB or more, even
//     with the limits off.
//   - Errors tied to an operation are *OperationError{Index, Op, Err}; its
//     message reads "jsonpatch: operation 3 (replace /content/title): path not
//     found: ..." and goes on to say what exists instead (the members of the
//     object, the length of the array). Check errors with errors.Is and
//     errors.As, never by their text.
//   - Apply, a Patcher and every function here are safe for concurrent use.
//
// # Decisions where the RFCs are silent
//
//   - Out-of-range indices and "-" outside "add" are ErrInvalidIndex; a
//     missing object member, or a member of a scalar, is ErrPathNotFound.
//   - "move" with from equal to path is a no-op (the location must exist) and
//     keeps member order; evanphx would move the member to the end.
//   - Duplicate member names are refused only in the objects a patch goes
//     into (see above: every operation whose path or from names a member
//     of such an object, or goes through it, is ErrInvalidDocument naming
//     the member's pointer). Elsewhere they are kept as they are, and Get
//     and "test" comparisons of values holding them take the last one, as
//     encoding/json does.
//   - Member names keep their spelling ("\u00e9" stays "\u00e9"); a
//     member added by the patch is written with only the escapes JSON
//     requires ("é", not "\u00e9"; "<" as is).
//   - Of the four cases the json-patch-tests suite disables: a top-level
//     scalar can be replaced ("foo" -> "bar"); "test" of the whole document
//     works; the two cases with two "op" members are ErrInvalidPatch.
//
// # How it is fast
//
// Apply does not decode the document. It checks it once with a
// hand-written scanner (UTF-8, then JSON syntax, exactly as json.Valid
// decides), then works on a tree that is expanded only along the pointers
// the operations follow: expanding an object or array scans its text once
// and records where each member or element starts and ends; everything
// else stays a slice of the input. Operations change the tree (members are
// found through a hash index in large objects), and the result is written
// once, copying untouched values as they are. The cost is about three
// passes over the document plus the containers the patch goes into,
// whatever the number of operations. On generated documents of nested
// objects and arrays, bytes in to bytes out, a 1000-operation patch of mixed
// add, replace and remove applies to a 1 MB document in about a tenth of
// the time evanphx takes and under half of what fast-json-patch takes in
// Node (JSON.parse, applyPatch, JSON.stringify); BenchmarkShapes and
// internal/jsbench have the figures. The containers expanded and their
// members and elements (24 to 64 bytes each) are carved from arenas that a
// pool keeps between calls, so that, once warm, an Apply allocates about
// the size of its output: 1.0x to 1.3x the document on the shapes above,
// 1.7x for 1000 operations on a 10 KB document (whose output is 1.4x the
// input). A cold call (after garbage collection emptied the pool) allocates
// the arenas too, as much as expanding took before they existed.
//
// Work beyond that first pass is bounded: bytes scanned to expand
// containers, to compare "test" values and to copy, and array elements
// shifted by inserts and removals count against a budget of 2^28 per Apply
// (ErrLimitExceeded beyond), which only patches deep inside huge or deeply
// nested documents, or many inserts at the front of a very long array, can
// reach.
//
// # Testing
//
// The tests run the public json-patch-tests suite (copied into
// testdata/json-patch-tests, Apache-2.0), table tests for every rule above, and FuzzApply,
// which checks that Apply never panics, never modifies its input, returns
// valid JSON, and agrees with a simple operation-by-operation evaluator that
// splices the document's text; FuzzScanValid checks the scanner against
// json.Valid. BenchmarkShapes and BenchmarkApply compare Apply with evanphx
// alone on the same bytes.
package jsonpatch
