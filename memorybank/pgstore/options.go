package pgstore

import (
	"fmt"
	"log/slog"
	"time"
	"unicode"
	"unicode/utf8"
)

// Defaults for Options fields left empty.
const (
	DefaultTable         = "mnemobank_objects"
	DefaultMemoriesTable = "mnemobank_memories"
	DefaultNamespace     = "default"
	DefaultLockWait      = time.Second
)

// maxNamespaceLen bounds Options.Namespace, which is stored in every row.
const maxNamespaceLen = 255

// listPageSize is how many rows List fetches per query. List releases its
// connection between pages, so a caller may use the Store (or a pool with a
// single connection) inside the loop without deadlocking.
const listPageSize = 1000

// Options configure a Store. A nil *Options means all defaults.
type Options struct {
	// Table is the table holding memory-bank objects; "" means
	// DefaultTable. A lower-case SQL identifier (letters, digits,
	// underscores); to use another schema, set search_path in the DSN.
	Table string
	// MemoriesTable is the table holding memories files (see
	// Store.Memories); "" means DefaultMemoriesTable. Same rules as Table.
	MemoriesTable string
	// Namespace separates banks sharing one table: each Store sees only the
	// rows of its namespace. "" means DefaultNamespace. Any UTF-8 text
	// without control characters, up to 255 bytes.
	Namespace string
	// LockWait bounds how long LockKey waits for a lock that another
	// session holds (another server, a stopped one, or any role of the
	// database, since advisory locks need no rights) before it gives up
	// with ErrLockTimeout, so the caller writes under compare-and-swap
	// alone; 0 means DefaultLockWait.
	LockWait time.Duration
	// Logger receives what an operator should know and no caller is told:
	// a lock given up on. nil discards.
	Logger *slog.Logger
}

func (o *Options) withDefaults() (Options, error) {
	var c Options
	if o != nil {
		c = *o
	}
	if c.Table == "" {
		c.Table = DefaultTable
	}
	if c.MemoriesTable == "" {
		c.MemoriesTable = DefaultMemoriesTable
	}
	if c.Namespace == "" {
		c.Namespace = DefaultNamespace
	}
	if c.LockWait <= 0 {
		c.LockWait = DefaultLockWait
	}
	if c.Logger == nil {
		c.Logger = slog.New(slog.DiscardHandler)
	}
	if err := validateTable("Table", c.Table); err != nil {
		return c, err
	}
	if err := validateTable("MemoriesTable", c.MemoriesTable); err != nil {
		return c, err
	}
	if c.Table == c.MemoriesTable {
		return c, &OptionError{Field: "MemoriesTable", Value: c.MemoriesTable, Reason: "is the same as Table; the two need different tables"}
	}
	if err := validateNamespace(c.Namespace); err != nil {
		return c, err
	}
	return c, nil
}

func validateNamespace(ns string) error {
	bad := func(reason string) error { return &OptionError{Field: "Namespace", Value: ns, Reason: reason} }
	if len(ns) > maxNamespaceLen {
		return bad(fmt.Sprintf("is %d bytes long, the maximum is %d", len(ns), maxNamespaceLen))
	}
	if !utf8.ValidString(ns) {
		return bad("is not valid UTF-8")
	}
	for i, r := range ns {
		if unicode.IsControl(r) {
			return bad(fmt.Sprintf("has control character %U at byte %d", r, i))
		}
	}
	return nil
}
