package pgstore

import (
	"context"
	"errors"
	"fmt"
)

// ErrInvalidOptions is wrapped by every *OptionError.
var ErrInvalidOptions = errors.New("pgstore: invalid options")

// ErrLockTimeout is wrapped by the error of a LockKey that gave up waiting
// for a lock another session holds (see Options.LockWait).
var ErrLockTimeout = errors.New("pgstore: lock not granted in time")

// OptionError reports an Options field that cannot be used. It wraps
// ErrInvalidOptions.
type OptionError struct {
	Field  string // "Table", "MemoriesTable", "Namespace", or "name" for a memories file name
	Value  string // the value given
	Reason string // what is wrong with it
}

func (e *OptionError) Error() string {
	return fmt.Sprintf("%s: %s %q %s", ErrInvalidOptions, e.Field, e.Value, e.Reason)
}

// Unwrap returns ErrInvalidOptions.
func (e *OptionError) Unwrap() error { return ErrInvalidOptions }

// OpError reports a failure of the database itself (connection lost, server
// error, cancelled context) during an operation. The contract errors of
// memorybank.Store (ErrNotFound, ErrConflict, ErrInvalidKey,
// ErrInvalidCondition) and memories.ErrConflict are returned as they are, not
// wrapped in an OpError.
type OpError struct {
	Op        string // "get", "put", "delete", "list", "migrate", "load", "size", "save", "append"
	Table     string
	Namespace string
	Key       string // the key, prefix or memories file name; may be ""
	Err       error
}

func (e *OpError) Error() string {
	return fmt.Sprintf("pgstore: %s %q (table %s, namespace %q): %v", e.Op, e.Key, e.Table, e.Namespace, e.Err)
}

// Unwrap returns the underlying error.
func (e *OpError) Unwrap() error { return e.Err }

// opError wraps a database error. When ctx is done, the result also wraps
// ctx.Err(), because pgx does not always do so when a query is interrupted.
func opError(ctx context.Context, op, table, namespace, key string, err error) error {
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		err = fmt.Errorf("%w (%v)", cerr, err)
	}
	return &OpError{Op: op, Table: table, Namespace: namespace, Key: key, Err: err}
}
