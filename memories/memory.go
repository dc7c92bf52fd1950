package memories

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
)

// Memory is one learned memory: an entry of memories.md.
type Memory struct {
	// ID identifies the memory for Get and Delete. Entries written by Add
	// carry it in a "- ID:" line (mem-<unix seconds>-<8 hex>); entries
	// without one get a deterministic id derived from their text.
	ID string `json:"id"`
	// Title is the entry's "## " heading: the first line of the content,
	// cut at 50 runes with "..." appended when longer.
	Title string `json:"title"`
	// Tags in file order; for memories added with a type (CLI -t) the type
	// is the first tag.
	Tags []string `json:"tags"`
	// Date is YYYY-MM-DD in local time for entries written by Add; entries
	// read from a file keep whatever the file says.
	Date string `json:"date"`
	// Content is the learned text; it may span several lines.
	Content string `json:"content"`
}

// Inject modes of Config.Inject.
const (
	InjectAuto   = "auto"   // InjectionContent renders every memory
	InjectManual = "manual" // InjectionContent is empty; the agent searches itself
	InjectNone   = "none"   // InjectionContent is empty
)

// Config is the user-facing memories setting of an agent's config file.
// The zero value is NOT the default (Enabled would be false): use
// DefaultConfig, or unmarshal JSON, which fills in missing fields with the
// defaults as the reference config schema does.
type Config struct {
	Enabled bool   `json:"enabled"`
	Inject  string `json:"inject"`
}

// DefaultConfig returns {Enabled: true, Inject: "auto"}.
func DefaultConfig() Config { return Config{Enabled: true, Inject: InjectAuto} }

// Validate reports an Inject value other than auto, manual or none ("" is
// read as auto).
func (c Config) Validate() error {
	switch c.Inject {
	case "", InjectAuto, InjectManual, InjectNone:
		return nil
	}
	return &ConfigError{Field: "inject", Value: c.Inject,
		Reason: `must be one of "auto", "manual", "none"`}
}

func (c Config) injectMode() string {
	if c.Inject == "" {
		return InjectAuto
	}
	return c.Inject
}

// UnmarshalJSON reads {"enabled": bool, "inject": "auto"|"manual"|"none"},
// defaulting missing fields to true and "auto", and rejects unknown inject
// values.
func (c *Config) UnmarshalJSON(b []byte) error {
	var raw struct {
		Enabled *bool   `json:"enabled"`
		Inject  *string `json:"inject"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return &ConfigError{Field: "", Value: string(b), Reason: err.Error(), Err: err}
	}
	next := DefaultConfig()
	if raw.Enabled != nil {
		next.Enabled = *raw.Enabled
	}
	if raw.Inject != nil {
		next.Inject = *raw.Inject
	}
	if err := next.Validate(); err != nil {
		return err
	}
	*c = next
	return nil
}

// Sentinel errors, checked with errors.Is.
var (
	// ErrNotFound: no memory has the given id.
	ErrNotFound = errors.New("memories: memory not found")
	// ErrDisabled: a write was attempted while Config.Enabled is false.
	ErrDisabled = errors.New("memories: memories are disabled")
	// ErrTooLarge: the write would take the file past Options.MaxBytes.
	ErrTooLarge = errors.New("memories: file too large")
	// ErrInvalid: the content or a tag cannot be stored as given.
	ErrInvalid = errors.New("memories: invalid input")
	// ErrInvalidConfig: Config has a value outside its allowed set.
	ErrInvalidConfig = errors.New("memories: invalid config")
	// ErrUnreadable: the memories file exists but cannot be read (it is a
	// directory, or permission is denied). A Store's Load returns an error
	// wrapping it; Manager reads such a file as no memories, logging a
	// warning, and reports the error on writes.
	ErrUnreadable = errors.New("memories: memories file cannot be read")
)

// ConfigError reports a bad Config field. It unwraps to ErrInvalidConfig
// (and to the JSON error, if any).
type ConfigError struct {
	Field  string // "inject", or "" for malformed JSON
	Value  string
	Reason string
	Err    error
}

func (e *ConfigError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("memories: invalid config: %s", e.Reason)
	}
	return fmt.Sprintf("memories: invalid config: %s = %q %s", e.Field, e.Value, e.Reason)
}

func (e *ConfigError) Unwrap() []error {
	if e.Err != nil {
		return []error{ErrInvalidConfig, e.Err}
	}
	return []error{ErrInvalidConfig}
}

// OpError reports a failed MemoryManager operation: which, on what id, what
// was wrong and what exists instead. Err is one of the sentinels above or an
// error from the Store.
type OpError struct {
	Op     string // "add", "get", "delete", "search", "list", "inject"
	ID     string // the memory id, when the operation had one
	Detail string // what was wrong and what to do instead
	Err    error
}

func (e *OpError) Error() string {
	var b strings.Builder
	b.WriteString("memories: ")
	b.WriteString(e.Op)
	if e.ID != "" {
		b.WriteString(" ")
		b.WriteString(quote(e.ID))
	}
	b.WriteString(": ")
	b.WriteString(strings.TrimPrefix(e.Err.Error(), "memories: "))
	if e.Detail != "" {
		b.WriteString(": ")
		b.WriteString(e.Detail)
	}
	return b.String()
}

func (e *OpError) Unwrap() error { return e.Err }
