package memorybank

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/agentmemory/agentmemory/jsonpatch"
)

// ErrorCode is the stable code of a ToolError. Codes never change meaning;
// hosts and models may branch on them.
type ErrorCode string

const (
	// CodeNotFound: the document does not exist (reading, patching, updating
	// or deleting it). The message and Details["availableDocuments"] list
	// the documents the bank holds.
	CodeNotFound ErrorCode = "NOT_FOUND"
	// CodeInvalidArgument: the arguments do not match the input schema, or
	// the request is malformed (content and patches both given, a missing
	// branch, an invalid path or branch name, ...).
	CodeInvalidArgument ErrorCode = "INVALID_ARGUMENT"
	// CodeInvalidPatch: a patch operation is malformed or cannot be applied
	// (missing path, bad pointer, a maintained field). Details["operation"]
	// holds its index, op and path.
	CodeInvalidPatch ErrorCode = "INVALID_PATCH"
	// CodePatchTestFailed: a "test" operation did not match; the document
	// changed since it was read. Details["operation"] holds its index.
	CodePatchTestFailed ErrorCode = "PATCH_TEST_FAILED"
	// CodeConflict: ifVersion is not the current version
	// (Details["currentVersion"]), a create-only write found the document,
	// or concurrent writers kept changing it.
	CodeConflict ErrorCode = "CONFLICT"
	// CodeValidationFailed: the document would not match its JSON Schema.
	// Details["problems"] lists every problem by JSON Pointer.
	CodeValidationFailed ErrorCode = "VALIDATION_FAILED"
	// CodeLimitExceeded: a document, patch or tag list is over a limit.
	CodeLimitExceeded ErrorCode = "LIMIT_EXCEEDED"
	// CodeInternal: anything else (the store failed, a stored document is
	// corrupt, the call was cancelled). Retrying later may help.
	CodeInternal ErrorCode = "INTERNAL"
)

// ToolError is the error of a tool call: a stable Code, a Message written
// for the model that must fix its call, and Details with the facts as JSON
// values. It marshals to {"code":...,"message":...,"details":{...}} and
// unwraps to the error it was made from, so errors.Is(err, ErrConflict)
// still works on it.
type ToolError struct {
	Code    ErrorCode      `json:"code"`
	Message string         `json:"message"`
	Details map[string]any `json:"details,omitempty"`
	Err     error          `json:"-"` // the cause; nil for errors found by the tool layer itself
}

func (e *ToolError) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause.
func (e *ToolError) Unwrap() error { return e.Err }

// AsToolError maps any error to a *ToolError, for hosts that serve the tools
// over their own transport: an error that is or wraps a *ToolError gives
// that ToolError; the Bank's errors map to codes by errors.Is and errors.As
// (never by their text), with the facts in Details and a hint on how to
// retry in Message; anything else is CodeInternal. nil gives nil.
func AsToolError(err error) *ToolError {
	if err == nil {
		return nil
	}
	var te *ToolError
	if errors.As(err, &te) {
		return te
	}
	te = &ToolError{Code: CodeInternal, Message: err.Error(), Err: err}
	var (
		conflict  *ConflictError
		forbidden *ForbiddenPatchError
		opErr     *jsonpatch.OperationError
		invalid   *ValidationError
		limit     *LimitError
		branchErr *BranchError
		patchErr  *PatchError
	)
	switch {
	case errors.As(err, &conflict):
		te.Code = CodeConflict
		te.Details = map[string]any{"path": conflict.Path, "ifVersion": conflict.IfVersion, "currentVersion": conflict.CurrentVersion}
		if conflict.CurrentVersion == 0 {
			te.hint("It was deleted or never created; to create it, write it with content and without ifVersion.")
		} else {
			te.hint(fmt.Sprintf("Read it again (version %d), redo your change on what you read, and retry with ifVersion %d.",
				conflict.CurrentVersion, conflict.CurrentVersion))
		}
	case errors.As(err, &forbidden):
		te.Code = CodeInvalidPatch
		te.Details = map[string]any{"operation": map[string]any{"index": forbidden.Index, "op": forbidden.Op, "path": forbidden.Path},
			"field": forbidden.Field}
		te.hint(fmt.Sprintf("Nothing was written: remove operation %d and resend the patch; the bank updates that field itself.", forbidden.Index))
	case errors.As(err, &opErr):
		te.Code = CodeInvalidPatch
		switch {
		case errors.Is(err, jsonpatch.ErrTestFailed):
			te.Code = CodePatchTestFailed
		case errors.Is(err, jsonpatch.ErrLimitExceeded):
			te.Code = CodeLimitExceeded
		}
		op := map[string]any{"index": opErr.Index, "op": opErr.Op.Op, "path": opErr.Op.Path}
		if opErr.Op.Op == jsonpatch.OpMove || opErr.Op.Op == jsonpatch.OpCopy {
			op["from"] = opErr.Op.From
		}
		te.Details = map[string]any{"operation": op}
		if errors.As(err, &patchErr) {
			te.Details["path"] = patchErr.Path
		}
		if te.Code == CodePatchTestFailed {
			te.hint(fmt.Sprintf("Nothing was written: the document no longer holds what operation %d tests; read it again and rebuild the patch.", opErr.Index))
		} else {
			te.hint(fmt.Sprintf("Nothing was written: fix operation %d (index from 0; read the document to see its structure) and resend the whole patch.", opErr.Index))
		}
	case errors.As(err, &invalid):
		te.Code = CodeValidationFailed
		te.Details = map[string]any{"path": invalid.Path, "schema": invalid.Schema, "problems": invalid.Problems}
		te.hint("Nothing was written: fix these fields and resend.")
	case errors.As(err, &limit):
		te.Code = CodeLimitExceeded
		te.Details = map[string]any{"path": limit.Path, "limit": limit.Limit, "max": limit.Max, "got": limit.Got}
		te.hint("Nothing was written: split the document or the patch.")
	case errors.Is(err, ErrLimitExceeded), errors.Is(err, jsonpatch.ErrLimitExceeded):
		te.Code = CodeLimitExceeded
	case errors.Is(err, ErrPatchFailed), errors.Is(err, ErrForbiddenPatch), errors.Is(err, jsonpatch.ErrInvalidPatch),
		errors.Is(err, jsonpatch.ErrInvalidPointer), errors.Is(err, jsonpatch.ErrPathNotFound), errors.Is(err, jsonpatch.ErrInvalidIndex):
		te.Code = CodeInvalidPatch
		if errors.Is(err, jsonpatch.ErrTestFailed) {
			te.Code = CodePatchTestFailed
		}
	case errors.Is(err, ErrNotFound):
		te.Code = CodeNotFound
	case errors.Is(err, ErrExists), errors.Is(err, ErrConflict):
		te.Code = CodeConflict
	case errors.As(err, &branchErr):
		te.Code = CodeInvalidArgument
		te.Details = map[string]any{"branch": branchErr.Branch}
		if branchErr.Dir != "" {
			te.Details["dir"] = branchErr.Dir
		}
		if branchErr.Owner != "" {
			te.Details["owner"] = branchErr.Owner
		}
	case errors.Is(err, ErrInvalidRequest), errors.Is(err, ErrInvalidPath), errors.Is(err, ErrInvalidBranch),
		errors.Is(err, ErrBranchCollision), errors.Is(err, ErrInvalidKey), errors.Is(err, ErrInvalidCondition):
		te.Code = CodeInvalidArgument
	case errors.Is(err, ErrCorrupt):
		te.hint("Its stored bytes are kept; overwrite it with a full write (content) to repair it.")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		te.Message = "the call was cancelled or timed out before it finished: " + err.Error()
	}
	return te
}

// hint appends a sentence to the message.
func (e *ToolError) hint(s string) {
	e.Message = strings.TrimRight(e.Message, " .;") + ". " + s
}
