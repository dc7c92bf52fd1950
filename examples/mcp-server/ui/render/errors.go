package render

import (
	"context"
	"errors"
	"fmt"
	"strings"
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
	Format string // "JSON", "DOT" or "SVG"
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

// Errors of GraphSVG's renderer program.
var (
	// ErrNoRenderer: no program to draw a graph with was found
	// (*NoRendererError says where GraphSVG looked).
	ErrNoRenderer = errors.New("render: no graph renderer installed")
	// ErrRenderer: the renderer program failed, or wrote something that is
	// not an SVG (*RendererError says which program and what it said).
	ErrRenderer = errors.New("render: the graph renderer failed")
)

// InstallHint says how to install a renderer GraphSVG finds.
const InstallHint = "install mnemobank-dot beside mnemobank or on PATH (go install github.com/mnemobank/mnemobank/examples/mcp-server/cmd/mnemobank-dot@latest), " +
	"or Graphviz's dot (Debian: apt-get install graphviz), or set " + RendererEnv + " to such a program"

// NoRendererError is GraphSVG finding no renderer program. It wraps
// ErrNoRenderer.
type NoRendererError struct {
	// Searched are the places looked at, in order, each with why it was
	// not used.
	Searched []string
}

func (e *NoRendererError) Error() string {
	return fmt.Sprintf("render: no program to draw the graph with: searched %s; %s", strings.Join(e.Searched, "; "), InstallHint)
}

func (e *NoRendererError) Unwrap() error { return ErrNoRenderer }

// RendererError is a renderer program that failed, was stopped, or wrote
// output GraphSVG refuses. Err is ErrRenderer, ErrSyntax (mnemobank-dot's
// exit status 3), ErrTooLarge (its status 2, or more than MaxSVGBytes of
// output) or ctx's error when the program was stopped for it.
type RendererError struct {
	Program string // the path run
	Status  int    // its exit status; -1 when it did not exit by itself
	Stderr  string // what it wrote on standard error, cut at maxStderrBytes
	Err     error
}

func (e *RendererError) Error() string {
	msg := fmt.Sprintf("render: %s", e.Program)
	switch {
	case errors.Is(e.Err, context.DeadlineExceeded) || errors.Is(e.Err, context.Canceled):
		msg += " was stopped: " + e.Err.Error()
	case e.Status > 0:
		msg += fmt.Sprintf(" exited with status %d", e.Status)
	default:
		msg += ": " + e.Err.Error()
	}
	if e.Stderr != "" {
		msg += ": " + e.Stderr
	}
	return msg
}

func (e *RendererError) Unwrap() error { return e.Err }
