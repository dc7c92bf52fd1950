package claudememory

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"time"

	"github.com/mnemobank/mnemobank/internal/jsontext"
)

// Default limits (see Options).
const (
	DefaultMaxFileBytes  = 256 << 10
	DefaultMaxDirEntries = 1000
	DefaultMaxFiles      = 10000
	DefaultMaxViewBytes  = 32 << 10
	DefaultMaxPathBytes  = 512
	DefaultMaxRetries    = 16
)

// Options configure a Handler. The zero value, and a nil *Options, give the
// defaults. Options are copied by New.
type Options struct {
	// MaxFileBytes limits the text of one file, checked before every write.
	// Default 256 KiB.
	MaxFileBytes int
	// MaxDirEntries limits the files and subdirectories directly in one
	// directory, checked before create and rename add one. Default 1000.
	MaxDirEntries int
	// MaxFiles limits the files under /memories in all, checked before
	// create adds one. Default 10000.
	MaxFiles int
	// MaxViewBytes limits the text of one view result. A longer file view
	// ends at a line boundary with a note naming the view_range that shows
	// the next lines; a longer listing ends with a note to view a
	// subdirectory. Default 32 KiB.
	MaxViewBytes int
	// MaxPathBytes limits a path after its "/memories/" prefix. Default 512.
	MaxPathBytes int
	// MaxRetries bounds how often str_replace, insert, delete and rename
	// are re-applied on the latest text after another writer changed the
	// file between their read and their compare-and-swap write. Retries
	// wait a jittered pause growing from 1 ms to 32 ms. Default 16.
	MaxRetries int
}

// Handler executes the commands of Claude's memory tool (memory_20250818)
// on Files. It is safe for concurrent use, and any number of Handlers, in
// one process or many, may share one Files.
type Handler struct {
	files Files
	opts  Options
}

// New returns a Handler over files. opts may be nil.
func New(files Files, opts *Options) *Handler {
	h := &Handler{files: files}
	if opts != nil {
		h.opts = *opts
	}
	o := &h.opts
	def := func(v *int, d int) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&o.MaxFileBytes, DefaultMaxFileBytes)
	def(&o.MaxDirEntries, DefaultMaxDirEntries)
	def(&o.MaxFiles, DefaultMaxFiles)
	def(&o.MaxViewBytes, DefaultMaxViewBytes)
	def(&o.MaxPathBytes, DefaultMaxPathBytes)
	def(&o.MaxRetries, DefaultMaxRetries)
	return h
}

// Options returns the Handler's options, defaults filled in.
func (h *Handler) Options() Options { return h.opts }

// maxInputBytes bounds the tool input: str_replace carries two texts of up
// to MaxFileBytes each, and JSON escaping can double them.
func (h *Handler) maxInputBytes() int { return 4*h.opts.MaxFileBytes + 4*h.opts.MaxPathBytes + 4096 }

// Input is the input of one memory tool call, as the API delivers it in a
// tool_use block. Which fields a command uses:
//
//	view         path, view_range (optional)
//	create       path, file_text
//	str_replace  path, old_str, new_str
//	insert       path, insert_line, insert_text
//	delete       path
//	rename       old_path, new_path
type Input struct {
	Command    string  `json:"command"`
	Path       *string `json:"path,omitempty"`
	ViewRange  []int   `json:"view_range,omitempty"`
	FileText   *string `json:"file_text,omitempty"`
	OldStr     *string `json:"old_str,omitempty"`
	NewStr     *string `json:"new_str,omitempty"`
	InsertLine *int    `json:"insert_line,omitempty"`
	InsertText *string `json:"insert_text,omitempty"`
	OldPath    *string `json:"old_path,omitempty"`
	NewPath    *string `json:"new_path,omitempty"`
}

// Handle executes one tool call whose input is the JSON object of a
// tool_use block, and returns the text to send back in the tool_result.
//
// When it returns an error, the tool_result carries err.Error() with
// is_error set: a *ToolError (matching one of the sentinel errors) for a
// command the input or the memory directory refused, written for the model
// in the words of the SDKs' reference backends; any other error is a
// failure of Files (I/O, cancellation). Handle never panics on any input.
func (h *Handler) Handle(ctx context.Context, input json.RawMessage) (string, error) {
	if n := len(input); n > h.maxInputBytes() {
		return "", &ToolError{Err: ErrLimit, Text: fmt.Sprintf(
			"The tool input is %d bytes; the limit is %d bytes (files hold at most %d bytes). Split the content into several smaller files.",
			n, h.maxInputBytes(), h.opts.MaxFileBytes)}
	}
	if at, reason := jsontext.Check(input); at >= 0 {
		return "", &ToolError{Err: ErrInvalidInput, Text: fmt.Sprintf(
			"The tool input is not UTF-8 text: %s. Decoding would read it as U+FFFD, so a path would name another file; send paths and text as UTF-8.", reason)}
	}
	var in Input
	dec := json.NewDecoder(bytes.NewReader(input))
	if err := dec.Decode(&in); err != nil {
		return "", &ToolError{Err: ErrInvalidInput, Text: fmt.Sprintf(
			"The tool input is not a valid memory command: %v. Send a JSON object such as {\"command\": \"view\", \"path\": \"/memories\"}.", err)}
	}
	if dec.More() {
		return "", &ToolError{Err: ErrInvalidInput, Text: "The tool input has data after its JSON object; send one object per call."}
	}
	return h.Do(ctx, in)
}

// Do executes one decoded tool call; see Handle.
func (h *Handler) Do(ctx context.Context, in Input) (string, error) {
	switch in.Command {
	case "view":
		return h.view(ctx, in)
	case "create":
		return h.create(ctx, in)
	case "str_replace":
		return h.strReplace(ctx, in)
	case "insert":
		return h.insert(ctx, in)
	case "delete":
		return h.delete(ctx, in)
	case "rename":
		return h.rename(ctx, in)
	case "":
		return "", &ToolError{Err: ErrInvalidInput, Text: "The tool input has no command; use one of view, create, str_replace, insert, delete, rename."}
	}
	return "", &ToolError{Command: in.Command, Err: ErrInvalidInput, Text: fmt.Sprintf(
		"Unknown command: %.40q; use one of view, create, str_replace, insert, delete, rename.", in.Command)}
}

// required returns the value of a required string parameter.
func required(cmd, name string, v *string) (string, error) {
	if v == nil {
		return "", &ToolError{Command: cmd, Err: ErrInvalidInput, Text: fmt.Sprintf("Parameter `%s` is required for command: %s", name, cmd)}
	}
	return *v, nil
}

// backoff waits before retry attempt (0-based) of a compare-and-swap.
func backoff(ctx context.Context, attempt int) error {
	d := time.Millisecond << min(attempt, 5)
	d = d/2 + rand.N(d)
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		return nil
	}
}
