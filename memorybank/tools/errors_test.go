package tools_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

func TestAsError(t *testing.T) {
	// patchErr is the error the Bank returns when operation i of a patch
	// fails with err in the patch engine.
	patchErr := func(i int, op jsonpatch.Operation, err error) error {
		return &memorybank.PatchError{Path: "p.json", Index: i, Op: op,
			Err: &jsonpatch.OperationError{Index: i, Op: op, Err: err}}
	}
	replace := func(path string) jsonpatch.Operation { return jsonpatch.Operation{Op: "replace", Path: path} }
	tests := []struct {
		name    string
		err     error
		code    tools.Code
		message string         // the message contains this
		details map[string]any // these details are set
	}{
		{"not found", fmt.Errorf("%w: \"x.json\"", memorybank.ErrNotFound), tools.CodeNotFound, "x.json", nil},
		{"invalid request", fmt.Errorf("%w: give content", memorybank.ErrInvalidRequest), tools.CodeInvalidArgument, "give content", nil},
		{"invalid path", memorybank.ErrInvalidPath, tools.CodeInvalidArgument, "path", nil},
		{"invalid key", memorybank.ErrInvalidKey, tools.CodeInvalidArgument, "key", nil},
		{"invalid condition", memorybank.ErrInvalidCondition, tools.CodeInvalidArgument, "condition", nil},
		{"invalid branch", &memorybank.BranchError{Branch: "a..b", Reason: "contains \"..\"", Err: memorybank.ErrInvalidBranch},
			tools.CodeInvalidArgument, "a..b", map[string]any{"branch": "a..b"}},
		{"branch collision", &memorybank.BranchError{Branch: "feature-foo", Dir: "feature-foo", Owner: "feature/foo", Err: memorybank.ErrBranchCollision},
			tools.CodeInvalidArgument, "feature/foo", map[string]any{"owner": "feature/foo", "dir": "feature-foo"}},
		{"patch operation fails", patchErr(3, replace("/content/x"), jsonpatch.ErrPathNotFound),
			tools.CodeInvalidPatch, "fix operation 3", map[string]any{"path": "p.json",
				"operation": map[string]any{"index": 3, "op": "replace", "path": "/content/x"}}},
		{"move operation carries from", patchErr(1, jsonpatch.Operation{Op: "move", From: "/b", Path: "/a"}, jsonpatch.ErrInvalidPointer),
			tools.CodeInvalidPatch, "operation 1", map[string]any{
				"operation": map[string]any{"index": 1, "op": "move", "path": "/a", "from": "/b"}}},
		{"test operation fails", patchErr(0, jsonpatch.Operation{Op: "test", Path: "/content/x"}, jsonpatch.ErrTestFailed),
			tools.CodePatchTestFailed, "operation 0", map[string]any{"operation": map[string]any{"index": 0, "op": "test", "path": "/content/x"}}},
		{"test of a missing member", patchErr(2, jsonpatch.Operation{Op: "test", Path: "/a"}, errors.Join(jsonpatch.ErrTestFailed, jsonpatch.ErrPathNotFound)),
			tools.CodePatchTestFailed, "operation 2", nil},
		{"copy over the patch limit", patchErr(4, jsonpatch.Operation{Op: "copy", From: "/b", Path: "/a"}, jsonpatch.ErrLimitExceeded),
			tools.CodeLimitExceeded, "operation 4", map[string]any{"operation": map[string]any{"index": 4, "op": "copy", "path": "/a", "from": "/b"}}},
		{"patch failure without an operation", &memorybank.PatchError{Path: "p.json", Index: -1, Err: jsonpatch.ErrInvalidDocument},
			tools.CodeInvalidPatch, "p.json", map[string]any{"path": "p.json", "operation": nil}},
		{"patch error of another engine", &memorybank.PatchError{Path: "p.json", Index: -1, Err: fmt.Errorf("decoding: %w", jsonpatch.ErrInvalidPatch)},
			tools.CodeInvalidPatch, "decoding", nil},
		{"patch sentinel alone", fmt.Errorf("%w: \"p.json\"", memorybank.ErrPatchFailed), tools.CodeInvalidPatch, "p.json", nil},
		{"the patch engine's own errors are not the Bank's", fmt.Errorf("decoding: %w", jsonpatch.ErrInvalidPatch), tools.CodeInternal, "decoding", nil},
		{"forbidden patch", &memorybank.ForbiddenPatchError{Index: 2, Op: "remove", Path: "/metadata/id", Field: "/metadata/id"},
			tools.CodeInvalidPatch, "remove operation 2", map[string]any{"field": "/metadata/id"}},
		{"conflict", &memorybank.ConflictError{Path: "p.json", IfVersion: 3, CurrentVersion: 5},
			tools.CodeConflict, "retry with ifVersion 5", map[string]any{"currentVersion": int64(5), "ifVersion": int64(3), "path": "p.json"}},
		{"conflict on a deleted document", &memorybank.ConflictError{Path: "p.json", IfVersion: 3},
			tools.CodeConflict, "without ifVersion", map[string]any{"currentVersion": int64(0)}},
		{"retries exhausted", fmt.Errorf("%w: gave up", memorybank.ErrConflict), tools.CodeConflict, "gave up", nil},
		{"exists", fmt.Errorf("%w: \"p.json\" (version 2)", memorybank.ErrExists), tools.CodeConflict, "version 2", nil},
		{"validation", &memorybank.ValidationError{Path: "p.json", Schema: "progress", Problems: []memorybank.Problem{{Pointer: "/content/status", Message: "Invalid type"}}},
			tools.CodeValidationFailed, "/content/status: Invalid type", map[string]any{"schema": "progress",
				"problems": []memorybank.Problem{{Pointer: "/content/status", Message: "Invalid type"}}}},
		{"limit", &memorybank.LimitError{Limit: "tags", Max: 64, Got: 70, Path: "p.json"},
			tools.CodeLimitExceeded, "maximum is 64", map[string]any{"limit": "tags", "max": 64, "got": 70}},
		{"limit sentinel", memorybank.ErrLimitExceeded, tools.CodeLimitExceeded, "limit", nil},
		{"path conflict", fmt.Errorf("%w: \"a/b.md\" needs \"a\" to be a directory", memorybank.ErrPathConflict),
			tools.CodeInvalidArgument, "choose another path", nil},
		{"bank not initialised", memorybank.ErrNotInitialised, tools.CodeInternal, "host", nil},
		{"corrupt document", fmt.Errorf("%w: \"p.json\"", memorybank.ErrCorrupt), tools.CodeInternal, "full write", nil},
		{"cancelled", fmt.Errorf("get: %w", context.Canceled), tools.CodeInternal, "cancelled", nil},
		{"anything else", errors.New("disk on fire"), tools.CodeInternal, "disk on fire", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Wrapping never changes the code: it is found with errors.Is/As.
			for _, err := range []error{tt.err, fmt.Errorf("tool: %w", tt.err)} {
				te := tools.AsError(err)
				require.NotNil(t, te)
				assert.Equal(t, tt.code, te.Code, te.Message)
				assert.Contains(t, te.Message, tt.message)
				assert.ErrorIs(t, te, tt.err, "an Error unwraps to its cause")
				for k, v := range tt.details {
					assert.Equal(t, v, te.Details[k], "details[%q]", k)
				}
				assert.Equal(t, string(te.Code)+": "+te.Message, te.Error())
			}
		})
	}
}

func TestAsErrorKeepsErrors(t *testing.T) {
	assert.Nil(t, tools.AsError(nil))
	orig := &tools.Error{Code: tools.CodeNotFound, Message: "gone", Err: memorybank.ErrNotFound}
	assert.Same(t, orig, tools.AsError(fmt.Errorf("host: %w", orig)))
	assert.ErrorIs(t, orig, memorybank.ErrNotFound)

	data, err := json.Marshal(&tools.Error{Code: tools.CodeConflict, Message: "m",
		Details: map[string]any{"currentVersion": 3}, Err: errors.New("hidden")})
	require.NoError(t, err)
	assert.JSONEq(t, `{"code":"CONFLICT","message":"m","details":{"currentVersion":3}}`, string(data))
	data, err = json.Marshal(&tools.Error{Code: tools.CodeInternal, Message: "m"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"code":"INTERNAL","message":"m"}`, string(data), "no details, no details member")
}

// Tools over a Bank that was never initialised answer every call with an
// error, never a panic.
func TestToolsOverNilBank(t *testing.T) {
	for _, tool := range tools.For(nil) {
		var err error
		assert.NotPanics(t, func() {
			_, err = tool.Handle(context.Background(), tools.Env{}, json.RawMessage(`{"branch":"main","path":"a.json","content":{"a":1},"tags":["x"]}`))
		}, tool.Name)
		require.Error(t, err, tool.Name)
		var te *tools.Error
		require.ErrorAs(t, err, &te, tool.Name)
	}
}
