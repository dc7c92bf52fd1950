package claudememory

import (
	"errors"
)

// Errors of the Handler, tested with errors.Is on the error Handle returns.
// The error's text (Error()) is the message the model gets back as the tool
// result, worded as the reference backends of Anthropic's SDKs word it
// where they have one.
var (
	// ErrInvalidInput: the tool input is not a JSON object of the memory
	// tool (unknown command, missing or mistyped parameter, too large).
	ErrInvalidInput = errors.New("claudememory: invalid tool input")
	// ErrInvalidPath: a path is not under /memories or is not allowed there
	// (".." or "." segments, hidden names, characters the store refuses).
	ErrInvalidPath = errors.New("claudememory: invalid path")
	// ErrNotFound: the path names no file or directory.
	ErrNotFound = errors.New("claudememory: path does not exist")
	// ErrExists: create or rename found its destination taken.
	ErrExists = errors.New("claudememory: path already exists")
	// ErrNotFile: str_replace or insert was given a directory, or a path
	// below a file.
	ErrNotFile = errors.New("claudememory: path is not a file")
	// ErrNoMatch: str_replace's old_str does not occur in the file.
	ErrNoMatch = errors.New("claudememory: old_str not found")
	// ErrAmbiguous: str_replace's old_str occurs more than once.
	ErrAmbiguous = errors.New("claudememory: old_str is not unique")
	// ErrLineRange: insert_line or view_range lies outside the file.
	ErrLineRange = errors.New("claudememory: line out of range")
	// ErrLimit: a file, directory or input is larger than a limit of Options.
	ErrLimit = errors.New("claudememory: limit exceeded")
	// ErrContention: other writers kept changing a file for longer than the
	// Handler's retries; nothing was changed.
	ErrContention = errors.New("claudememory: file kept changing")
	// ErrPartial: a directory delete or rename left some files where they
	// were, because other writers changed them meanwhile. Nothing was lost.
	ErrPartial = errors.New("claudememory: directory operation incomplete")
)

// ToolError is a command that failed because of its input or the state of
// the memory directory. Its Error() is the text for the model; Err is one
// of the sentinel errors above.
type ToolError struct {
	Command string // "view", "create", ...; "" when the input has none
	Path    string // the path as the model gave it, if any
	Err     error
	Text    string
}

func (e *ToolError) Error() string { return e.Text }

// Unwrap returns the sentinel error.
func (e *ToolError) Unwrap() error { return e.Err }
