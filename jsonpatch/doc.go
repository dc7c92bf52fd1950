// Package jsonpatch applies RFC 6902 JSON Patches to JSON documents, strictly
// and atomically, with errors that say which operation failed and why.
//
// It wraps github.com/evanphx/json-patch/v5, which stays the engine, and
// corrects where that library departs from RFC 6902 and RFC 6901: it accepts
// invalid pointers and array indices ("01", "+1"), reads "/" as the root,
// compares 1 and 1.0 as different in "test", treats a missing member as null
// in "test", panics on a "test" whose value is an array containing null, and
// reports no operation index. Decode, Apply and New are the entry points;
// Get, ParsePointer, FormatPointer, EscapeToken and UnescapeToken read and
// build RFC 6901 pointers.
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
//     integers, 1.50) are kept; "<", ">" and "&" are not escaped.
//   - Limits (Options): operations per patch (10,000), bytes added by copy
//     operations (1 MiB), document size in and out (16 MiB). Exceeding one is
//     ErrLimitExceeded.
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
//   - Duplicate member names in a document are not rejected; the last one
//     wins, as in encoding/json.
//   - Member names of objects on a modified path (at least the object an
//     operation adds to or removes from) are re-encoded by the engine: the
//     same names, possibly spelled differently, with escapes decoded
//     ("\u00e9" becomes "é") or added (U+2028 becomes \u2028). Compare
//     names after unescaping, not as bytes. String values, and the members
//     of objects off the modified path, keep their spelling.
//   - Of the four cases the json-patch-tests suite disables: a top-level
//     scalar can be replaced ("foo" -> "bar"); "test" of the whole document
//     works; the two cases with two "op" members are ErrInvalidPatch.
//
// # How it is fast
//
// Apply checks the patch, never the document's structure, before evanphx
// runs (the document is only checked to be UTF-8). When every operation works
// below some member (the parent of its path, and of its from), operations
// are grouped by the shallowest such member and evanphx runs once per group
// on that subtree alone; the rest of the document is validated, scanned once
// and compacted, not decoded and re-encoded. When the subtrees would cover
// more than half the document, or an operation works at the top level, one
// whole-document evanphx call is made instead.
//
// Operations evanphx would misread (a pointer to the whole document, an
// empty or non-canonical numeric token, a "test" whose value holds null or an
// object, a move onto itself) and any failure take a slower exact path, on
// the group's subtree when there are groups: runs of ordinary operations
// still go to evanphx, a failing run is bisected to find the operation at
// fault (about log2(n) more evanphx calls, on failure only), and that
// operation is evaluated exactly on the bytes, to report a precise error or
// to go on when evanphx was wrong (a "test" of 1 against 1.0; the rest of
// that kind are then evaluated exactly). Each exact evaluation walks the
// containers on its pointers; their total is bounded (256 MiB per Apply,
// ErrLimitExceeded beyond), which only a patch of many such operations at the
// top level of a multi-megabyte document can reach. BenchmarkApply has the
// figures.
//
// # Testing
//
// The tests run the public json-patch-tests suite when it is present at
// ../shared/conformance/json-patch-tests beside the repository (and skip,
// saying so, when not), table tests for every rule above, and FuzzApply,
// which checks that Apply never panics, never modifies its input, returns
// valid JSON, and agrees with an operation-by-operation exact evaluator.
// BenchmarkApply compares Apply with raw evanphx and with an encoding/json
// round trip.
package jsonpatch
