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
