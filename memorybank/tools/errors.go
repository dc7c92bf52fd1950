package tools

import (
	"context"
	"errors"
	"fmt"
	"github.com/mnemobank/mnemobank/screen"
	"strings"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Code is the stable code of an Error. Codes never change meaning; hosts
// and models may branch on them.
type Code string

const (
	// CodeNotFound: the document does not exist (reading, patching, updating
	// or deleting it). The message and Details["availableDocuments"] list
	// the documents the bank holds.
	CodeNotFound Code = "NOT_FOUND"
	// CodeInvalidArgument: the arguments do not match the input schema, or
	// the request is malformed (content and patches both given, a missing
	// branch, an invalid path or branch name, a path that collides with an
	// existing document, ...).
	CodeInvalidArgument Code = "INVALID_ARGUMENT"
	// CodeInvalidPatch: a patch operation is malformed or cannot be applied
	// (missing path, bad pointer, a maintained field). Details["operation"]
	// holds its index, op and path.
	CodeInvalidPatch Code = "INVALID_PATCH"
	// CodePatchTestFailed: a "test" operation did not match; the document
	// changed since it was read. Details["operation"] holds its index.
	CodePatchTestFailed Code = "PATCH_TEST_FAILED"
	// CodeConflict: ifVersion is not the current version
	// (Details["currentVersion"]), a create-only write found the document,
	// or concurrent writers kept changing it.
	CodeConflict Code = "CONFLICT"
	// CodeValidationFailed: the document would not match its JSON Schema.
	// Details["problems"] lists every problem by JSON Pointer.
	CodeValidationFailed Code = "VALIDATION_FAILED"
	// CodeLimitExceeded: a document, patch or tag list is over a limit.
	CodeLimitExceeded Code = "LIMIT_EXCEEDED"
	// CodeInternal: anything else (the store failed, a stored document is
	// corrupt, the call was cancelled, the host configured no bank).
	// Retrying later may help.
	CodeInternal Code = "INTERNAL"
)

// ErrUnknownTool: Call was given a name that is not one of the tools.
var ErrUnknownTool = errors.New("tools: unknown tool")

// Error is the error of a tool call: a stable Code, a Message written for
// the model that must fix its call, and Details with the facts as JSON
// values. It marshals to {"code":...,"message":...,"details":{...}} and
// unwraps to the error it was made from, so errors.Is(err,
// memorybank.ErrConflict) still works on it.
type Error struct {
	Code    Code           `json:"code" jsonschema:"NOT_FOUND, INVALID_ARGUMENT, INVALID_PATCH, PATCH_TEST_FAILED, CONFLICT, VALIDATION_FAILED, LIMIT_EXCEEDED or INTERNAL."`
	Message string         `json:"message" jsonschema:"What was wrong and how to fix the call."`
	Details map[string]any `json:"details,omitempty" jsonschema:"The facts: problems, the current version, the documents that exist, ..."`
	Err     error          `json:"-"` // the cause; nil for errors found by the tool layer itself
}

func (e *Error) Error() string { return string(e.Code) + ": " + e.Message }

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// AsError maps any error to an *Error, for hosts that serve the tools over
// their own transport: an error that is or wraps an *Error gives that
// Error; the Bank's errors map to codes by errors.Is and errors.As (never
// by their text), with the facts in Details and a hint on how to retry in
// Message; anything else is CodeInternal. nil gives nil.
func AsError(err error) *Error {
	if err == nil {
		return nil
	}
	var te *Error
	if errors.As(err, &te) {
		return te
	}
	te = &Error{Code: CodeInternal, Message: err.Error(), Err: err}
	var (
		conflict  *memorybank.ConflictError
		forbidden *memorybank.ForbiddenPatchError
		patchErr  *memorybank.PatchError
		invalid   *memorybank.ValidationError
		limit     *memorybank.LimitError
		branchErr *memorybank.BranchError
		secret    *screen.SecretError
	)
	switch {
	case errors.As(err, &secret):
		te.Code = CodeInvalidArgument
		te.Details = map[string]any{"where": secret.Where, "findings": secret.Findings}
		te.hint("Nothing was written: the text holds a credential. Replace it with a placeholder such as " +
			"[REDACTED:<kind>] or the name of the environment variable that holds it, and write again.")
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
	case errors.As(err, &patchErr):
		te.Code = CodeInvalidPatch
		switch {
		case errors.Is(err, memorybank.ErrPatchTestFailed):
			te.Code = CodePatchTestFailed
		case errors.Is(err, memorybank.ErrLimitExceeded):
			te.Code = CodeLimitExceeded
		}
		te.Details = map[string]any{"path": patchErr.Path}
		i := patchErr.Index
		switch {
		case i < 0:
			te.hint("Nothing was written: fix the patch (read the document to see its structure) and resend it.")
		case te.Code == CodePatchTestFailed:
			te.Details["operation"] = operationDetails(i, patchErr.Op)
			te.hint(fmt.Sprintf("Nothing was written: the document no longer holds what operation %d tests; read it again and rebuild the patch.", i))
		default:
			te.Details["operation"] = operationDetails(i, patchErr.Op)
			te.hint(fmt.Sprintf("Nothing was written: fix operation %d (index from 0; read the document to see its structure) and resend the whole patch.", i))
		}
	case errors.As(err, &invalid):
		te.Code = CodeValidationFailed
		te.Details = map[string]any{"path": invalid.Path, "schema": invalid.Schema, "problems": invalid.Problems}
		te.hint("Nothing was written: fix these fields and resend.")
	case errors.As(err, &limit):
		te.Code = CodeLimitExceeded
		te.Details = map[string]any{"path": limit.Path, "limit": limit.Limit, "max": limit.Max, "got": limit.Got}
		te.hint("Nothing was written: split the document or the patch.")
	case errors.Is(err, memorybank.ErrLimitExceeded):
		te.Code = CodeLimitExceeded
	case errors.Is(err, memorybank.ErrPatchTestFailed):
		te.Code = CodePatchTestFailed
	case errors.Is(err, memorybank.ErrPatchFailed), errors.Is(err, memorybank.ErrForbiddenPatch):
		te.Code = CodeInvalidPatch
	case errors.Is(err, memorybank.ErrNotFound):
		te.Code = CodeNotFound
	case errors.Is(err, memorybank.ErrExists), errors.Is(err, memorybank.ErrConflict):
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
	case errors.Is(err, memorybank.ErrPathConflict):
		te.Code = CodeInvalidArgument
		te.hint("Nothing was written: choose another path (list the bank to see the paths it holds).")
	case errors.Is(err, memorybank.ErrInvalidRequest), errors.Is(err, memorybank.ErrInvalidPath), errors.Is(err, memorybank.ErrInvalidBranch),
		errors.Is(err, memorybank.ErrBranchCollision), errors.Is(err, memorybank.ErrInvalidKey), errors.Is(err, memorybank.ErrInvalidCondition):
		te.Code = CodeInvalidArgument
	case errors.Is(err, memorybank.ErrNotInitialised):
		te.hint("The host serving these tools has no memory bank configured; nothing was read or written. Tell the user.")
	case errors.Is(err, memorybank.ErrCorrupt):
		te.hint("Its stored bytes are kept; overwrite it with a full write (content) to repair it.")
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		te.Message = "the call was cancelled or timed out before it finished: " + err.Error()
	}
	return te
}

// operationDetails describes a patch operation for Details["operation"].
func operationDetails(index int, op jsonpatch.Operation) map[string]any {
	d := map[string]any{"index": index, "op": op.Op, "path": op.Path}
	if op.Op == jsonpatch.OpMove || op.Op == jsonpatch.OpCopy {
		d["from"] = op.From
	}
	return d
}

// hint appends a sentence to the message.
func (e *Error) hint(s string) {
	e.Message = strings.TrimRight(e.Message, " .;") + ". " + s
}
