package jsonpatch

import (
	"encoding/json"
	"errors"
)

// Operation is one RFC 6902 operation.
type Operation struct {
	Op    string          `json:"op"`
	Path  string          `json:"path"`
	From  string          `json:"from,omitempty"`
	Value json.RawMessage `json:"value,omitempty"` // nil = absent; "null" = JSON null
}

// Patch is an RFC 6902 JSON Patch document: operations applied in order.
type Patch []Operation

// Patcher applies patches. Implementations are safe for concurrent use.
type Patcher interface {
	Apply(doc []byte, p Patch) ([]byte, error)
}

// Sentinel errors, tested with errors.Is. Failures tied to one operation are
// *OperationError values wrapping one of these.
var (
	ErrInvalidPatch    = errors.New("jsonpatch: invalid patch")
	ErrInvalidPointer  = errors.New("jsonpatch: invalid pointer")
	ErrPathNotFound    = errors.New("jsonpatch: path not found")
	ErrInvalidIndex    = errors.New("jsonpatch: invalid array index")
	ErrTestFailed      = errors.New("jsonpatch: test failed")
	ErrInvalidDocument = errors.New("jsonpatch: invalid document")
	ErrLimitExceeded   = errors.New("jsonpatch: limit exceeded")
)

// The operation names of RFC 6902.
const (
	OpAdd     = "add"
	OpRemove  = "remove"
	OpReplace = "replace"
	OpMove    = "move"
	OpCopy    = "copy"
	OpTest    = "test"
)

// Default limits, used where an Options field is zero.
const (
	DefaultMaxOperations    = 10_000
	DefaultMaxCopyBytes     = 1 << 20  // 1 MiB added by "copy" operations in one patch
	DefaultMaxDocumentBytes = 16 << 20 // 16 MiB, input and output
)

// Options configures a Patcher. A nil *Options, or a zero field, means the
// strict default. A negative limit means "no limit".
type Options struct {
	// MaxOperations is the largest number of operations a patch may hold.
	MaxOperations int
	// MaxCopyBytes bounds the total size, in bytes of compact JSON, of the
	// values duplicated by "copy" operations of one patch, so that a short
	// patch cannot grow a document exponentially.
	MaxCopyBytes int64
	// MaxDocumentBytes bounds the size of the input and of the output.
	MaxDocumentBytes int
	// AllowNegativeIndices accepts array indices such as "-1" (counted from
	// the end), a non-standard extension. RFC 6901 forbids them, so the
	// default rejects them with ErrInvalidIndex.
	AllowNegativeIndices bool
}

// Applier is the package's Patcher, configured by New. Its fields never
// change after New, so it is safe for concurrent use.
type Applier struct {
	maxOps      int
	maxCopy     int64
	maxDoc      int
	negativeIdx bool
}

var _ Patcher = (*Applier)(nil)

// New returns an Applier configured by opts, which is copied; nil means
// the strict defaults.
func New(opts *Options) *Applier {
	var o Options
	if opts != nil {
		o = *opts
	}
	p := &Applier{
		maxOps:      limitInt(o.MaxOperations, DefaultMaxOperations),
		maxCopy:     int64(limitInt(int(o.MaxCopyBytes), DefaultMaxCopyBytes)),
		maxDoc:      limitInt(o.MaxDocumentBytes, DefaultMaxDocumentBytes),
		negativeIdx: o.AllowNegativeIndices,
	}
	return p
}

// limitInt maps 0 to def and a negative value to "unlimited" (-1).
func limitInt(v, def int) int {
	switch {
	case v == 0:
		return def
	case v < 0:
		return -1
	}
	return v
}

var defaultPatcher = New(nil)

// Apply applies p to doc with the strict defaults (New(nil)) and returns the
// patched document as compact JSON. doc is never modified; on any error the
// result is nil.
func Apply(doc []byte, p Patch) ([]byte, error) {
	return defaultPatcher.Apply(doc, p)
}
