package memorybank

import (
	"math"

	"errors"
	"fmt"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"strings"

	"github.com/mnemobank/mnemobank/jsonpatch"
)

// Errors, tested with errors.Is: first those of the Store contract, which
// implementations return (or wrap); then the Bank's. The Bank uses the
// Store's ErrNotFound and ErrConflict as they are: reading, patching or
// deleting a missing document is ErrNotFound; a stale IfVersion is a
// *ConflictError wrapping ErrConflict.
var (
	// ErrNotFound: the key holds nothing.
	ErrNotFound = errors.New("memorybank: not found")
	// ErrConflict: a Condition was not met; nothing was changed.
	ErrConflict = errors.New("memorybank: version conflict")
	// ErrInvalidKey: the key is not a valid relative slash-separated path.
	ErrInvalidKey = errors.New("memorybank: invalid key")
	// ErrInvalidCondition: a Condition sets both IfAbsent and IfVersion.
	ErrInvalidCondition = errors.New("memorybank: invalid condition")

	// ErrVersionUnavailable: the version asked for is not retained
	// (dropped by retention, never existed, or past a gap in the
	// history). It wraps ErrNotFound.
	ErrVersionUnavailable = fmt.Errorf("%w: version not available", ErrNotFound)
	// ErrInvalidRequest: a request is malformed (content and patches both
	// given or both missing, unknown scope, mode, match or language, missing
	// branch, ...). Nothing was read or written.
	ErrInvalidRequest = errors.New("memorybank: invalid request")
	// ErrInvalidPath: a document path is not a valid relative path, or uses a
	// name the Bank reserves (a segment starting with ".").
	ErrInvalidPath = errors.New("memorybank: invalid document path")
	// ErrInvalidBranch: a branch name is not a valid git branch name, or its
	// directory name cannot be stored.
	ErrInvalidBranch = errors.New("memorybank: invalid branch name")
	// ErrBranchCollision: the branch maps to a directory that already holds
	// the memory of another branch (for example "feature/foo" and
	// "feature-foo" both map to "feature-foo").
	ErrBranchCollision = errors.New("memorybank: branch directory belongs to another branch")
	// ErrValidation: the document that would be stored does not match its
	// JSON Schema. The error is a *ValidationError listing every problem.
	ErrValidation = errors.New("memorybank: document does not match its schema")
	// ErrForbiddenPatch: a patch operation touches a field the Bank maintains
	// (/schema, /metadata/id, /metadata/path, /metadata/createdAt,
	// /metadata/version, /metadata/lastModified). The error is a
	// *ForbiddenPatchError.
	ErrForbiddenPatch = errors.New("memorybank: patch touches a field maintained by the bank")
	// ErrPatchFailed: a patch could not be applied. The error is a
	// *PatchError naming the failing operation.
	ErrPatchFailed = errors.New("memorybank: patch failed")
	// ErrPatchTestFailed: a "test" operation of a patch did not match, so
	// the document changed since it was read. The error is a *PatchError,
	// which matches ErrPatchFailed too.
	ErrPatchTestFailed = errors.New("memorybank: patch test failed")
	// ErrExists: a create-only write found the document already there.
	ErrExists = errors.New("memorybank: document already exists")
	// ErrLimitExceeded: a document, patch or tag list is larger than the
	// configured limit. The error is a *LimitError, or a *PatchError when
	// applying a patch passed one of the patch engine's own limits.
	ErrLimitExceeded = errors.New("memorybank: limit exceeded")
	// ErrCorrupt: a stored document cannot be decoded (for example a .json
	// file that is not JSON). Its bytes are left untouched.
	ErrCorrupt = errors.New("memorybank: stored document cannot be decoded")
	// ErrPathConflict: a document path collides with another document of
	// the same bank: one is a folder of the other ("a" and "a/b"), or the
	// two differ only by letter case or Unicode normalisation ("É.md" and
	// "é.md"), which are one file on macOS and Windows. The error names the
	// existing path. Nothing was written. Stores that keep keys as files
	// refuse "a" beside "a/b" with an error wrapping it too.
	ErrPathConflict = errors.New("memorybank: path collides with an existing document")
	// ErrNotInitialised: the Bank was never given a Store (a nil *Bank, a
	// zero Bank, or New with a nil Store). Nothing was read or written.
	ErrNotInitialised = errors.New("memorybank: bank not initialised: create it with memorybank.New and a Store")
)

// Problem is one schema violation, located by a JSON Pointer (RFC 6901) into
// the canonical document as Read returns it, e.g. "/content/purpose".
type Problem struct {
	Pointer string `json:"pointer"`
	Message string `json:"message"`
}

// ValidationError lists every schema problem of a document that was not
// written. It wraps ErrValidation.
type ValidationError struct {
	Path     string    // document path within its scope
	Schema   string    // name of the failing schema, e.g. "envelope" or "branch_context"
	Problems []Problem // sorted by pointer
}

func (e *ValidationError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s: %q (schema %s):", ErrValidation.Error(), e.Path, e.Schema)
	for _, p := range e.Problems {
		ptr := p.Pointer
		if ptr == "" {
			ptr = "(document root)"
		}
		fmt.Fprintf(&b, " %s: %s;", ptr, p.Message)
	}
	return strings.TrimSuffix(b.String(), ";")
}

// Unwrap returns ErrValidation.
func (e *ValidationError) Unwrap() error { return ErrValidation }

// ConflictError reports a write or delete whose IfVersion is not the
// document's current version. It wraps ErrConflict.
type ConflictError struct {
	Path           string
	IfVersion      int64 // the version the caller expected
	CurrentVersion int64 // the version stored now (0 if the document is missing)
}

func (e *ConflictError) Error() string {
	if e.CurrentVersion == 0 {
		return fmt.Sprintf("%s: %q: expected version %d but the document does not exist",
			ErrConflict.Error(), e.Path, e.IfVersion)
	}
	return fmt.Sprintf("%s: %q: expected version %d but the current version is %d; read the document again and retry",
		ErrConflict.Error(), e.Path, e.IfVersion, e.CurrentVersion)
}

// Unwrap returns ErrConflict.
func (e *ConflictError) Unwrap() error { return ErrConflict }

// BranchError reports an invalid branch name or a directory collision. It
// wraps ErrInvalidBranch or ErrBranchCollision.
type BranchError struct {
	Branch string // the branch name as given
	Dir    string // the directory it maps to ("" when the name is invalid)
	Owner  string // for a collision: the branch that owns Dir
	Reason string
	Err    error // ErrInvalidBranch or ErrBranchCollision
}

func (e *BranchError) Error() string {
	if errors.Is(e.Err, ErrBranchCollision) && e.Reason != "" {
		return fmt.Sprintf("%s: branch %q: %s, and they would be one directory on macOS and Windows; use the branch %q or rename one of the branches",
			e.Err.Error(), e.Branch, e.Reason, e.Owner)
	}
	if errors.Is(e.Err, ErrBranchCollision) {
		return fmt.Sprintf("%s: branch %q maps to directory %q, which holds the memory of branch %q; rename one of the branches",
			e.Err.Error(), e.Branch, e.Dir, e.Owner)
	}
	return fmt.Sprintf("%s: %q: %s", e.Err.Error(), e.Branch, e.Reason)
}

// Unwrap returns ErrInvalidBranch or ErrBranchCollision.
func (e *BranchError) Unwrap() error { return e.Err }

// ForbiddenPatchError reports the first patch operation that touches a field
// the Bank maintains. It wraps ErrForbiddenPatch.
type ForbiddenPatchError struct {
	Index int    // index of the operation in the patch
	Op    string // its op
	Path  string // its path (or from, for a move)
	Field string // the maintained field it touches, e.g. "/metadata/version"
}

func (e *ForbiddenPatchError) Error() string {
	return fmt.Sprintf("%s: operation %d (%s %s) touches %s, which the bank maintains; "+
		"maintained fields are /schema, /metadata/id, /metadata/path, /metadata/createdAt, /metadata/version and /metadata/lastModified",
		ErrForbiddenPatch.Error(), e.Index, e.Op, pointerText(e.Path), e.Field)
}

// pointerText shows a JSON Pointer in a message; the empty pointer (the
// whole document) would otherwise be invisible.
func pointerText(p string) string {
	if p == "" {
		return `"" (the document root)`
	}
	return p
}

// Unwrap returns ErrForbiddenPatch.
func (e *ForbiddenPatchError) Unwrap() error { return ErrForbiddenPatch }

// PatchError reports a patch that could not be applied to a document. It
// wraps ErrPatchFailed, ErrPatchTestFailed when a "test" operation did not
// match, ErrLimitExceeded when the patch passed a limit of the patch
// engine, and the engine's own error (from the default engine a
// *jsonpatch.OperationError).
type PatchError struct {
	Path string // document path
	// Index is the index of the failing operation in the patch and Op that
	// operation; Index is -1 when the error names no operation.
	Index int
	Op    jsonpatch.Operation
	Err   error
}

// newPatchError reports err, returned by the patch engine for a patch of
// the document at p, with the operation it names.
func newPatchError(p string, err error) *PatchError {
	pe := &PatchError{Path: p, Index: -1, Err: err}
	var oe *jsonpatch.OperationError
	if errors.As(err, &oe) {
		pe.Index, pe.Op = oe.Index, oe.Op
	}
	return pe
}

func (e *PatchError) Error() string {
	return fmt.Sprintf("%s: %q: %v", ErrPatchFailed.Error(), e.Path, e.Err)
}

// Unwrap returns ErrPatchFailed, ErrPatchTestFailed or ErrLimitExceeded
// when they apply, and the engine's error.
func (e *PatchError) Unwrap() []error {
	errs := []error{ErrPatchFailed}
	if errors.Is(e.Err, jsonpatch.ErrTestFailed) {
		errs = append(errs, ErrPatchTestFailed)
	}
	if errors.Is(e.Err, jsonpatch.ErrLimitExceeded) {
		errs = append(errs, ErrLimitExceeded)
	}
	return append(errs, e.Err)
}

// LimitError reports a request over one of the Bank's limits. It wraps
// ErrLimitExceeded.
type LimitError struct {
	Limit string // "document size", "nesting depth", "patch operations" or "tags"
	Max   int
	Got   int
	Path  string
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("%s: %q: %s is %d, the maximum is %d", ErrLimitExceeded.Error(), e.Path, e.Limit, e.Got, e.Max)
}

// Unwrap returns ErrLimitExceeded.
func (e *LimitError) Unwrap() error { return ErrLimitExceeded }

func invalidRequest(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrInvalidRequest, fmt.Sprintf(format, args...))
}

// validationError reports a document the codec's schemas refuse.
func validationError(p string, se *codec.SchemaError) *ValidationError {
	return &ValidationError{Path: p, Schema: se.Schema, Problems: problemsOf(se.Problems)}
}

func problemsOf(ps []codec.Problem) []Problem {
	if ps == nil {
		return nil
	}
	out := make([]Problem, len(ps))
	for i, p := range ps {
		out[i] = Problem(p)
	}
	return out
}

// maxVersionProblem refuses a write of a document whose version, edited by
// hand, is the largest there is: it cannot be incremented.
func maxVersionProblem(p string) error {
	return &ValidationError{Path: p, Schema: SchemaEnvelope, Problems: []Problem{{Pointer: "/metadata/version",
		Message: fmt.Sprintf("the stored version is %d, the largest a version can be, so a write cannot increment it; "+
			"edit metadata.version of the stored document to a smaller number, or delete the document (its versions then start again)", int64(math.MaxInt64))}}}
}

// duplicateProblem describes a duplicate member at ptr.
func duplicateProblem(ptr, name, fix string) Problem {
	return Problem(codec.DuplicateProblem(ptr, name, fix))
}
