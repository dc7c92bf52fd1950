package memorybank_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/agentmemory/agentmemory/jsonpatch"
	"github.com/agentmemory/agentmemory/memorybank"
)

func TestAsToolError(t *testing.T) {
	opErr := func(i int, op, path string, err error) error {
		return &jsonpatch.OperationError{Index: i, Op: jsonpatch.Operation{Op: op, Path: path}, Err: err}
	}
	tests := []struct {
		name    string
		err     error
		code    memorybank.ErrorCode
		message string         // the message contains this
		details map[string]any // these details are set
	}{
		{"not found", fmt.Errorf("%w: \"x.json\"", memorybank.ErrNotFound), memorybank.CodeNotFound, "x.json", nil},
		{"invalid request", fmt.Errorf("%w: give content", memorybank.ErrInvalidRequest), memorybank.CodeInvalidArgument, "give content", nil},
		{"invalid path", memorybank.ErrInvalidPath, memorybank.CodeInvalidArgument, "path", nil},
		{"invalid key", memorybank.ErrInvalidKey, memorybank.CodeInvalidArgument, "key", nil},
		{"invalid condition", memorybank.ErrInvalidCondition, memorybank.CodeInvalidArgument, "condition", nil},
		{"invalid branch", &memorybank.BranchError{Branch: "a..b", Reason: "contains \"..\"", Err: memorybank.ErrInvalidBranch},
			memorybank.CodeInvalidArgument, "a..b", map[string]any{"branch": "a..b"}},
		{"branch collision", &memorybank.BranchError{Branch: "feature-foo", Dir: "feature-foo", Owner: "feature/foo", Err: memorybank.ErrBranchCollision},
			memorybank.CodeInvalidArgument, "feature/foo", map[string]any{"owner": "feature/foo", "dir": "feature-foo"}},
		{"patch operation fails", &memorybank.PatchError{Path: "p.json", Err: opErr(3, "replace", "/content/x", jsonpatch.ErrPathNotFound)},
			memorybank.CodeInvalidPatch, "fix operation 3", map[string]any{"path": "p.json",
				"operation": map[string]any{"index": 3, "op": "replace", "path": "/content/x"}}},
		{"move operation carries from", opErr(1, "move", "/a", jsonpatch.ErrInvalidPointer),
			memorybank.CodeInvalidPatch, "operation 1", map[string]any{
				"operation": map[string]any{"index": 1, "op": "move", "path": "/a", "from": ""}}},
		{"test operation fails", &memorybank.PatchError{Path: "p.json", Err: opErr(0, "test", "/content/x", jsonpatch.ErrTestFailed)},
			memorybank.CodePatchTestFailed, "operation 0", map[string]any{"operation": map[string]any{"index": 0, "op": "test", "path": "/content/x"}}},
		{"test of a missing member", opErr(2, "test", "/a", errors.Join(jsonpatch.ErrTestFailed, jsonpatch.ErrPathNotFound)),
			memorybank.CodePatchTestFailed, "operation 2", nil},
		{"copy over the patch limit", opErr(4, "copy", "/a", jsonpatch.ErrLimitExceeded), memorybank.CodeLimitExceeded, "operation 4", nil},
		{"patch failure without an operation", &memorybank.PatchError{Path: "p.json", Err: jsonpatch.ErrInvalidDocument},
			memorybank.CodeInvalidPatch, "p.json", nil},
		{"invalid patch sentinel", fmt.Errorf("decoding: %w", jsonpatch.ErrInvalidPatch), memorybank.CodeInvalidPatch, "decoding", nil},
		{"forbidden patch", &memorybank.ForbiddenPatchError{Index: 2, Op: "remove", Path: "/metadata/id", Field: "/metadata/id"},
			memorybank.CodeInvalidPatch, "remove operation 2", map[string]any{"field": "/metadata/id"}},
		{"conflict", &memorybank.ConflictError{Path: "p.json", IfVersion: 3, CurrentVersion: 5},
			memorybank.CodeConflict, "retry with ifVersion 5", map[string]any{"currentVersion": int64(5), "ifVersion": int64(3), "path": "p.json"}},
		{"conflict on a deleted document", &memorybank.ConflictError{Path: "p.json", IfVersion: 3},
			memorybank.CodeConflict, "without ifVersion", map[string]any{"currentVersion": int64(0)}},
		{"retries exhausted", fmt.Errorf("%w: gave up", memorybank.ErrConflict), memorybank.CodeConflict, "gave up", nil},
		{"exists", fmt.Errorf("%w: \"p.json\" (version 2)", memorybank.ErrExists), memorybank.CodeConflict, "version 2", nil},
		{"validation", &memorybank.ValidationError{Path: "p.json", Schema: "progress", Problems: []memorybank.Problem{{Pointer: "/content/status", Message: "Invalid type"}}},
			memorybank.CodeValidationFailed, "/content/status: Invalid type", map[string]any{"schema": "progress",
				"problems": []memorybank.Problem{{Pointer: "/content/status", Message: "Invalid type"}}}},
		{"limit", &memorybank.LimitError{Limit: "tags", Max: 64, Got: 70, Path: "p.json"},
			memorybank.CodeLimitExceeded, "maximum is 64", map[string]any{"limit": "tags", "max": 64, "got": 70}},
		{"limit sentinel", memorybank.ErrLimitExceeded, memorybank.CodeLimitExceeded, "limit", nil},
		{"corrupt document", fmt.Errorf("%w: \"p.json\"", memorybank.ErrCorrupt), memorybank.CodeInternal, "full write", nil},
		{"cancelled", fmt.Errorf("get: %w", context.Canceled), memorybank.CodeInternal, "cancelled", nil},
		{"anything else", errors.New("disk on fire"), memorybank.CodeInternal, "disk on fire", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Wrapping never changes the code: it is found with errors.Is/As.
			for _, err := range []error{tt.err, fmt.Errorf("tool: %w", tt.err)} {
				te := memorybank.AsToolError(err)
				require.NotNil(t, te)
				assert.Equal(t, tt.code, te.Code, te.Message)
				assert.Contains(t, te.Message, tt.message)
				assert.ErrorIs(t, te, tt.err, "a ToolError unwraps to its cause")
				for k, v := range tt.details {
					assert.Equal(t, v, te.Details[k], "details[%q]", k)
				}
				assert.Equal(t, string(te.Code)+": "+te.Message, te.Error())
			}
		})
	}
}

func TestAsToolErrorKeepsToolErrors(t *testing.T) {
	assert.Nil(t, memorybank.AsToolError(nil))
	orig := &memorybank.ToolError{Code: memorybank.CodeNotFound, Message: "gone", Err: memorybank.ErrNotFound}
	assert.Same(t, orig, memorybank.AsToolError(fmt.Errorf("host: %w", orig)))
	assert.ErrorIs(t, orig, memorybank.ErrNotFound)

	data, err := json.Marshal(&memorybank.ToolError{Code: memorybank.CodeConflict, Message: "m",
		Details: map[string]any{"currentVersion": 3}, Err: errors.New("hidden")})
	require.NoError(t, err)
	assert.JSONEq(t, `{"code":"CONFLICT","message":"m","details":{"currentVersion":3}}`, string(data))
	data, err = json.Marshal(&memorybank.ToolError{Code: memorybank.CodeInternal, Message: "m"})
	require.NoError(t, err)
	assert.JSONEq(t, `{"code":"INTERNAL","message":"m"}`, string(data), "no details, no details member")
}
