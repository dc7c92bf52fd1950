package render

import (
	"errors"
	"fmt"
)

var (
	// ErrTooLarge: the input is above a size or count limit.
	ErrTooLarge = errors.New("render: input too large")
	// ErrTooDeep: JSON nested deeper than MaxJSONDepth.
	ErrTooDeep = errors.New("render: input nested too deeply")
	// ErrSyntax: the input is not valid JSON or DOT.
	ErrSyntax = errors.New("render: syntax error")
)

// LimitError says which limit an input broke and by how much. It wraps
// ErrTooLarge or ErrTooDeep.
type LimitError struct {
	What  string // "JSON document bytes", "DOT graph nodes", ...
	Limit int64
	Got   int64 // the size seen; for streams it may be just past Limit
	Err   error // ErrTooLarge or ErrTooDeep
}

func (e *LimitError) Error() string {
	return fmt.Sprintf("render: %s: %d is above the limit of %d", e.What, e.Got, e.Limit)
}

func (e *LimitError) Unwrap() error { return e.Err }

// SyntaxError is a malformed JSON or DOT input. It wraps ErrSyntax.
type SyntaxError struct {
	Format string // "JSON" or "DOT"
	Offset int64  // byte offset of the problem when known, else -1
	Msg    string
}

func (e *SyntaxError) Error() string {
	if e.Offset >= 0 {
		return fmt.Sprintf("render: invalid %s at byte %d: %s", e.Format, e.Offset, e.Msg)
	}
	return fmt.Sprintf("render: invalid %s: %s", e.Format, e.Msg)
}

func (e *SyntaxError) Unwrap() error { return ErrSyntax }
