package jsonpatch

import (
	"fmt"
	"strings"
)

// OperationError reports a failure tied to one operation of a patch, whether
// found while decoding, validating or applying it. Err wraps one of the
// package's sentinel errors.
type OperationError struct {
	Index int       // position of the operation in the patch, from 0
	Op    Operation // the operation as given
	Err   error
}

func (e *OperationError) Error() string {
	what := e.Op.Op
	if what == "" {
		what = "?"
	}
	where := e.Op.Path
	if e.Op.Op == OpMove || e.Op.Op == OpCopy {
		where = fmt.Sprintf("%s from %s", e.Op.Path, e.Op.From)
	}
	msg := "unknown error"
	if e.Err != nil {
		msg = strings.TrimPrefix(e.Err.Error(), "jsonpatch: ")
	}
	return fmt.Sprintf("jsonpatch: operation %d (%s %s): %s", e.Index, what, where, msg)
}

func (e *OperationError) Unwrap() error { return e.Err }

// detailError is a sentinel plus the facts a reader needs to fix the input.
// Its message is "<sentinel>: <detail>"; errors.Is matches every sentinel.
type detailError struct {
	sentinels []error
	detail    string
}

func (e *detailError) Error() string {
	var b strings.Builder
	for i, s := range e.sentinels {
		m := s.Error()
		if i > 0 {
			b.WriteString(": ")
			m = strings.TrimPrefix(m, "jsonpatch: ")
		}
		b.WriteString(m)
	}
	if e.detail != "" {
		b.WriteString(": ")
		b.WriteString(e.detail)
	}
	return b.String()
}

func (e *detailError) Unwrap() []error { return e.sentinels }

func errorf(sentinel error, format string, args ...any) error {
	return &detailError{sentinels: []error{sentinel}, detail: fmt.Sprintf(format, args...)}
}

// also adds sentinel to err's sentinels (used for "test failed: path not found").
func also(sentinel error, err error) error {
	if d, ok := err.(*detailError); ok {
		return &detailError{sentinels: append([]error{sentinel}, d.sentinels...), detail: d.detail}
	}
	return &detailError{sentinels: []error{sentinel, err}}
}

func opError(i int, op Operation, err error) error {
	return &OperationError{Index: i, Op: op, Err: err}
}
