// Package histio is what memorybank and memorybank/history share about a
// document's history: where it lies in the Store, and the few Bank
// internals history reading needs (locating a document, its current
// state, waiting for this Bank's writers). The Bank writes history as part
// of Write and Delete; the history package reads it. The hooks are set by
// memorybank when it is initialised, so the Bank's exported API does not
// grow for them; only packages under memorybank can import this one.
package histio

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
)

// Prefix is the root of every document's history: the history of a
// document lives under Prefix + <bank prefix> + <SHA-256 of its path>/.
const Prefix = ".history/"

// TombstoneName is the name, in a history directory, of the record of the
// version the last delete consumed.
const TombstoneName = "deleted.json"

// Dir is the directory of the history of the document at path in the bank
// at prefix: its length is bounded whatever the path, and it holds nothing
// but the entries and the tombstone of that document.
func Dir(prefix, path string) string {
	sum := sha256.Sum256([]byte(path))
	return Prefix + prefix + hex.EncodeToString(sum[:]) + "/"
}

// Key is the key of the entry of one version.
func Key(prefix, path string, version int64) string {
	return fmt.Sprintf("%s%020d.json", Dir(prefix, path), version)
}

// Tombstone is the key of the tombstone.
func Tombstone(prefix, path string) string { return Dir(prefix, path) + TombstoneName }

// Loc is a located document: its bank (Scope, Branch, Prefix), Path, Key,
// and Where, which names its bank in messages.
type Loc struct {
	Scope, Branch, Prefix, Path, Key, Where string
}

// Hooks memorybank sets at init. bank is a *memorybank.Bank; Document
// returns a *memorybank.Document.
var (
	// Locate validates and places a document, as every Bank method does.
	Locate func(ctx context.Context, bank any, scope, branch, path string) (Loc, error)
	// Current reads the document's canonical form (nil when absent), its
	// version (for an absent one, the version its delete consumed), and
	// its store version ("" when absent); ErrNotFound when it has no
	// history at all.
	Current func(ctx context.Context, bank any, l Loc) (state []byte, version int64, storeVersion string, err error)
	// AwaitWriters returns once the Bank's writers of the document that
	// started before the call are done (they record their entry before).
	AwaitWriters func(ctx context.Context, bank any, l Loc) error
	// Document turns a canonical document into what Read returns.
	Document func(l Loc, canonical []byte) (any, error)
	// Backoff waits before retry number attempt, as the Bank's writers do.
	Backoff func(ctx context.Context, attempt int) error
	// LockDocument takes the lock the Bank's writers of the document at
	// store key take (its own and, on a KeyLocker, the store's), so an
	// import writes a document and its history as one write does.
	LockDocument func(ctx context.Context, bank any, key string) (unlock func(), err error)
)
