package memorybank

import (
	"context"
	"iter"
	"time"
)

// Store is the storage a Bank runs on: a flat namespace of keys holding byte
// values, each with an opaque version, and compare-and-swap writes.
// [MemStore] is the in-memory implementation; fsstore and pgstore keep the
// same contract on a directory and on PostgreSQL, and
// [github.com/mnemobank/mnemobank/memorybank/storetest.TestStore] checks it
// for any implementation. Each method's contract is on the method.
//
// Rules shared by every method:
//
//   - Keys are slash-separated relative paths accepted by [ValidateKey]. A
//     key ValidateKey rejects gives an error for which
//     errors.Is(err, ErrInvalidKey) holds, before any I/O. A store may
//     reject more keys (names it keeps for itself), also with ErrInvalidKey.
//   - A store backed by a file system cannot hold both "a" and "a/b" (a file
//     is not also a directory); it refuses the second Put with an error that
//     is neither ErrConflict nor ErrNotFound. Portable callers avoid keys
//     that are a directory of other keys.
//   - Every method honours ctx: an already cancelled context returns an
//     error for which errors.Is(err, ctx.Err()) holds, and changes nothing.
//   - Concurrency: safe for concurrent use by multiple goroutines; a
//     compare-and-swap is atomic with respect to every other writer the
//     implementation can see (other goroutines, and for shared backends
//     other processes and machines).
type Store interface {
	// Get returns the object stored at key, with its Data, Version and
	// ModTime. It returns ErrNotFound (wrapped or not) when the key holds
	// nothing. The returned Data belongs to the caller, who may modify it.
	Get(ctx context.Context, key string) (Object, error)

	// Put stores data at key if cond holds and returns the new Object (its
	// new Version and ModTime; Data may be nil). Versions are opaque,
	// non-empty strings that change on every successful write, including a
	// write of identical bytes. When cond is not met it returns ErrConflict
	// and changes nothing; a Condition setting both fields returns
	// ErrInvalidCondition before any I/O (implementations use
	// [Condition.Validate] for that and [Condition.Check] inside their
	// read-check-write, so every store words its errors alike). Put must
	// not retain data after it returns.
	Put(ctx context.Context, key string, data []byte, cond Condition) (Object, error)

	// Delete removes the object at key if cond holds. It returns
	// ErrNotFound when the key holds nothing (checked before cond),
	// ErrConflict when cond is not met (nothing is removed), and
	// ErrInvalidCondition, before any I/O, for a Condition setting both
	// fields.
	Delete(ctx context.Context, key string, cond Condition) error

	// List yields the objects whose key starts with prefix, sorted by key
	// in byte order, without Data. The prefix is not a key: it is a plain
	// byte prefix, may be "" (all keys) or end with a slash ("a/" lists the
	// keys under "a/"; "a" also lists "a.json" and "ab"), and a prefix no
	// valid key starts with lists nothing. An error is yielded once, as the
	// last pair. Objects written or deleted during the iteration may or may
	// not be seen.
	List(ctx context.Context, prefix string) iter.Seq2[Object, error]
}

// ChangeCounter is the optional interface of a Store that counts its
// changes, so that a Bank learns with one cheap call whether anything
// changed since it last looked instead of listing the store. A Bank over a
// Store without it lists the bank on every List, ReadContext and search
// (correct, but proportional to the bank).
type ChangeCounter interface {
	Store
	// Changes returns a count of the changes made so far to the data
	// behind the store by every writer the implementation can see (other
	// goroutines, other Stores on the same data, other processes): every
	// successful Put and Delete adds exactly one; a call refused for its
	// key or condition adds nothing; a call that fails after it began to
	// change the data may add one (a Bank then only looks again). Changes
	// made behind the store's back (a person editing a directory) need not
	// be counted. The Epoch changes whenever a count cannot be compared
	// with one read earlier (the counter was reset).
	Changes(ctx context.Context) (ChangeCount, error)
}

// ChangeNotifier is the optional interface of a ChangeCounter that says
// when its count may have changed, so that a watcher (an MCP server's
// subscriptions, an index kept warm) reacts to a write at once instead of
// polling Changes. The count stays the source of truth: a signal only means
// "read Changes now"; signals are coalesced (one may stand for many
// changes) and may be spurious, and a store that cannot hear some writers
// (another process, a dropped connection) polls Changes itself and signals
// what it finds.
type ChangeNotifier interface {
	ChangeCounter
	// WatchChanges returns a channel that receives a value soon after the
	// count may have changed, until ctx ends; then it is closed. Each call
	// gets its own channel (buffered by one, never blocking the store).
	WatchChanges(ctx context.Context) <-chan struct{}
}

// KeyLocker is the optional interface of a Store whose writers of one
// document can wait for each other, across every process it can see,
// instead of racing their compare-and-swap and retrying. The lock is
// advisory and only spares the retries: writes still carry their
// Condition, and a lock lost with its connection costs one retry, never an
// update.
type KeyLocker interface {
	Store
	// LockKey waits until the caller holds the lock called name (any
	// string of up to MaxLockNameBytes bytes; callers choose their own
	// names) or ctx ends, and returns the function that releases it.
	LockKey(ctx context.Context, name string) (unlock func(), err error)
}

// LazyWriter is the optional interface of a Store whose Put and Delete are
// durable (they wait for the disk, as fsstore's fsync does) and that can
// also write without waiting. A Bank writes a document's history entry, and
// drops entries out of retention, through the Lazy view, after the
// document's own durable Put: a write then waits for the disk once, and a
// crash can cost the entry of a write that happened (a gap, which history
// readers already allow) but never leave an entry for a write that did not.
type LazyWriter interface {
	Store
	// Lazy returns a Store on the same data, with the same keys,
	// compare-and-swap, lock and change count, whose Put and Delete need
	// not be durable when they return: after a crash of the machine a key
	// it wrote may hold its earlier value, nothing, or bytes that are not
	// what was written (a reader treats them as unreadable). Readers in
	// any process see its writes at once, whole, as they see Put's.
	// Closing the view, if it has a Close, does nothing.
	Lazy() Store
}

// BatchPutter is the optional interface of a Store that writes many keys at
// once as durably as one Put each, with fewer waits for the disk (fsstore
// syncs a whole batch at once). Importers use it; a Bank does not need it.
type BatchPutter interface {
	Store
	// PutBatch writes each object's Data at its Key if cond holds for that
	// key, and returns one error per object: nil when written, an error
	// matching ErrConflict when cond did not hold (nothing written for
	// it), or the key's own error (ErrInvalidKey, ErrPathConflict). The
	// second result is an error that stopped the batch (a cancelled ctx,
	// an I/O failure, ErrInvalidCondition before any I/O); objects before
	// the point it stopped may have been written, and each has its own
	// error or nil. When it returns nil, every object written is durable
	// and visible to readers, and each key counts as one change.
	PutBatch(ctx context.Context, objs []Object, cond Condition) ([]error, error)
}

// OrderedWriter is the optional interface of a Store whose durable writes
// can carry an earlier write with them. A Bank writes a delete's tombstone
// (the version the delete consumes) through the Ordered view just before
// the durable Delete of the document: the delete then waits for the disk
// once, and a crash never keeps the delete without its tombstone.
type OrderedWriter interface {
	Store
	// Ordered returns a Store on the same data, with the same keys,
	// compare-and-swap, lock and change count, whose Put and Delete become
	// durable no later than the next durable Put or Delete of the Store
	// returns (fsstore: they are journalled without their own sync). After
	// a crash of the machine a key it wrote holds the new value or the
	// earlier one, whole. Closing the view, if it has a Close, does
	// nothing.
	Ordered() Store
}

// ChangeCount is a reading of a ChangeCounter.
type ChangeCount struct {
	Epoch string
	N     uint64
}

// Object is a stored value and its metadata.
type Object struct {
	Key     string
	Data    []byte // nil in List results
	Version string // opaque; changes on every successful write
	ModTime time.Time
}

// Condition is the precondition of a Put or Delete. The zero value is
// unconditional. Setting both fields is an error that matches ErrInvalidCondition.
type Condition struct {
	// IfAbsent makes the write succeed only if the key holds nothing.
	IfAbsent bool
	// IfVersion makes the write succeed only if the key's current version is
	// exactly this value.
	IfVersion string
}

// The errors of the Store contract (ErrNotFound, ErrConflict,
// ErrInvalidKey, ErrInvalidCondition) are in errors.go with the Bank's.
