package memories

import (
	"errors"
	"fmt"
	"strconv"
	"unicode/utf8"
)

// Limits of the Manager's inputs, checked before any other work (before
// trimming, normalising or reading the file). Sizes are counted in bytes of
// UTF-8, never in characters: a string of n characters may be up to 4n
// bytes.
const (
	// MaxContentBytes bounds the content of Add (64 KiB).
	MaxContentBytes = 64 << 10
	// MaxTags bounds the number of tags of Add, the type included, counted
	// before empty and repeated tags are dropped.
	MaxTags = 20
	// MaxTagBytes bounds each tag of Add.
	MaxTagBytes = 64
	// MaxQueryBytes bounds the query of Search (1 KiB).
	MaxQueryBytes = 1 << 10
	// MaxIDBytes bounds the id given to Get, Delete and Restore.
	MaxIDBytes = 1 << 10
)

// ErrLimit: an input is over its limit (see MaxContentBytes and the
// others). Errors wrapping it wrap ErrInvalid too.
var ErrLimit = errors.New("memories: input over its limit")

// LimitError reports an input over its limit. It unwraps to ErrLimit and
// ErrInvalid.
type LimitError struct {
	Op     string // "add", "search", "get", "delete", "restore"
	Field  string // "content", "tags", "tags[i]", "query", "limit", "id"
	Size   int    // bytes; the number of tags for "tags"; the limit asked for "limit"
	Limit  int
	Prefix string // at most QuotePrefixBytes of the input, for the message
}

func (e *LimitError) Error() string {
	unit := "bytes"
	if e.Field == "tags" {
		unit = "tags"
	}
	if e.Field == "limit" {
		return fmt.Sprintf("memories: %s: limit %d is outside 0 to %d (0 means %d)", e.Op, e.Size, e.Limit, DefaultSearchLimit)
	}
	msg := fmt.Sprintf("memories: %s: %s has %d %s, over the limit of %d", e.Op, e.Field, e.Size, unit, e.Limit)
	if e.Prefix != "" {
		msg += fmt.Sprintf(" (it starts %s)", e.Prefix)
	}
	switch e.Field {
	case "content":
		msg += "; store a summary, or split it into several memories"
	case "tags":
		msg += "; keep the few tags it will be searched by"
	case "query":
		msg += "; search for a few distinctive words"
	}
	return msg
}

func (e *LimitError) Unwrap() []error { return []error{ErrLimit, ErrInvalid} }

// QuotePrefixBytes is the most of a client's input an error message quotes.
const QuotePrefixBytes = 100

// quote returns s quoted, cut to at most QuotePrefixBytes bytes at a
// character boundary, with "..." after the quote when cut.
func quote(s string) string {
	if len(s) <= QuotePrefixBytes {
		return strconv.Quote(s)
	}
	cut := QuotePrefixBytes
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return strconv.Quote(s[:cut]) + "..."
}

// checkLen returns a *LimitError when s is longer than limit bytes.
func checkLen(op, field, s string, limit int) error {
	if len(s) <= limit {
		return nil
	}
	return &LimitError{Op: op, Field: field, Size: len(s), Limit: limit, Prefix: quote(s)}
}

// checkAdd checks the inputs of Add against their limits.
func checkAdd(content string, tags []string) error {
	if err := checkLen("add", "content", content, MaxContentBytes); err != nil {
		return err
	}
	if len(tags) > MaxTags {
		return &LimitError{Op: "add", Field: "tags", Size: len(tags), Limit: MaxTags}
	}
	for i, t := range tags {
		if err := checkLen("add", "tags["+strconv.Itoa(i)+"]", t, MaxTagBytes); err != nil {
			return err
		}
	}
	return nil
}
