package memorybank

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
)

// Metadata fields the Bank maintains; patches may not touch them.
var maintainedPointers = []string{"/schema", "/metadata/id", "/metadata/path", "/metadata/createdAt", "/metadata/version", "/metadata/lastModified"}

// applyPatches applies a patch to the canonical form of a stored document
// and returns the patched envelope. Operations that touch a maintained field
// are refused before anything is applied; an operation on an ancestor of a
// maintained field (such as replacing all of /metadata) is allowed as long
// as it leaves the maintained fields as they were.
func (b *Bank) applyPatches(old *codec.Envelope, patch jsonpatch.Patch) (*codec.Envelope, error) {
	p := old.Path
	for i, op := range patch {
		if f := touchedField(op); f != "" {
			where := op.Path
			if op.Op == "move" && within(op.From, f) {
				where = op.From
			}
			return nil, &ForbiddenPatchError{Index: i, Op: op.Op, Path: where, Field: f}
		}
	}
	before, err := old.Canonical(false)
	if err != nil {
		return nil, corrupt(p, err)
	}
	// A patch engine given an object holding a name twice may remove one
	// copy and leave the other, or rewrite it on a test: the Bank never
	// hands it one.
	const repair = "the stored document holds both copies, so a patch cannot tell which it means; write the document whole (content) to repair it"
	if old.Dup != "" {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{duplicateProblem(old.Dup, old.DupName, repair)}}
	}
	if !old.Deep { // decodeForPatch judged every depth already
		if ptr, name, dup := codec.FirstDuplicate(before); dup {
			return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{duplicateProblem(ptr, name, repair)}}
		}
	}
	after, err := b.opts.Patcher.Apply(before, patch)
	if errors.Is(err, jsonpatch.ErrInvalidDocument) {
		return nil, corrupt(p, err)
	}
	if err != nil {
		return nil, newPatchError(p, err)
	}
	next, ok := codec.SplitEnvelope(old.Format, p, after)
	if !ok {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "", Message: "the patched document must stay a JSON object with schema, metadata and content"}}}
	}
	if next.Dup != "" {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{duplicateProblem(next.Dup, next.DupName, "keep the value you mean and resend")}}
	}
	for _, f := range maintainedPointers {
		if !bytes.Equal(fieldValue(old, f), fieldValue(next, f)) {
			i, op := firstAncestorOp(patch, f)
			return nil, &ForbiddenPatchError{Index: i, Op: op.Op, Path: op.Path, Field: f}
		}
	}
	if next.BadMeta {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/metadata", Message: "the patched document must keep metadata as an object"}}}
	}
	// The canonical form has no top-level documentType, so a patch put one
	// there. Reading would move it into metadata only when metadata has
	// none, dropping it otherwise: refuse rather than guess.
	if _, ok := next.Extra["documentType"]; ok {
		return nil, &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/documentType",
			Message: "documentType belongs in metadata; patch /metadata/documentType instead"}}}
	}
	return next, nil
}

func corrupt(p string, err error) error {
	return fmt.Errorf("%w: %q: %v; overwrite it with a full content write", ErrCorrupt, p, err)
}

// touchedField returns the maintained field an operation writes directly
// (its path is the field or inside it, or a move takes it away), or "".
func touchedField(op jsonpatch.Operation) string {
	for _, f := range maintainedPointers {
		switch op.Op {
		case "test":
		case "move":
			if within(op.Path, f) || within(f, op.From) {
				return f
			}
		default:
			if within(op.Path, f) {
				return f
			}
		}
	}
	return ""
}

// within reports whether pointer p equals anc or lies below it.
func within(p, anc string) bool {
	return p == anc || strings.HasPrefix(p, anc+"/")
}

func fieldValue(e *codec.Envelope, f string) []byte {
	var v json.RawMessage
	if f == "/schema" {
		v = e.Schema
	} else {
		v = e.Meta[strings.TrimPrefix(f, "/metadata/")]
	}
	if v == nil {
		return nil
	}
	return codec.CompactRaw(v)
}

// firstAncestorOp finds the operation that changed field f by writing one of
// its ancestors.
func firstAncestorOp(patch jsonpatch.Patch, f string) (int, jsonpatch.Operation) {
	for i, op := range patch {
		if op.Op != "test" && (within(f, op.Path) || op.Op == "move" && within(f, op.From)) {
			return i, op
		}
	}
	return 0, patch[0]
}
