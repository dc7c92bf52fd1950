// Package storetest is the conformance suite for [memorybank.Store]
// implementations, in the manner of testing/fstest.TestFS: a host that
// plugs in its own storage (Redis, PostgreSQL, S3, ...) runs
//
//	func TestMyStore(t *testing.T) {
//		storetest.TestStore(t, func(t *testing.T) memorybank.Store {
//			return newEmptyStoreForTest(t) // register cleanup with t.Cleanup
//		})
//	}
//
// and gets one subtest per part of the contract documented on
// memorybank.Store: get/put/delete, versions that change on every write
// (including identical rewrites), every [memorybank.Condition] case,
// ErrNotFound and ErrConflict through errors.Is, listing order and prefixes,
// copy-not-alias, invalid keys on every method, cancelled contexts, and a
// concurrent compare-and-swap counter that must not lose an update. Each
// optional interface the store offers is checked too, by type assertion, as
// go-git's storage suite does (a subtest that skips, saying so, when the
// store lacks it): [memorybank.ChangeCounter] counts exactly,
// [memorybank.ChangeNotifier] signals every watcher and closes its channel,
// [memorybank.KeyLocker] excludes the other holders of a name,
// [memorybank.LazyWriter]'s and [memorybank.OrderedWriter]'s views share
// keys, versions and counts, and
// [memorybank.BatchPutter] gives each object its own error.
//
// The package does no I/O of its own beyond calling the store. Subtests run
// sequentially, each on a fresh store from newStore; only the counter
// subtest calls the store from several goroutines at once. The exported
// [Increment] helper lets a host repeat the counter test across processes
// or machines (fsstore does so across two OS processes).
//
// Decisions where the contract is silent: List prefixes are plain byte
// prefixes of keys ("a" matches "a.json", "a/b" and "ab"; "a/" only keys
// under the directory "a"); a prefix that no valid key can start with
// (such as "../") yields nothing rather than an error. The suite never
// stores a key that is also a "directory" of another key ("a" and "a/b"),
// because a store that maps keys to files cannot hold both.
package storetest
