package fsstore

import "github.com/mnemobank/mnemobank/memorybank"

var _ memorybank.LazyWriter = (*Store)(nil)

// Lazy returns a view of the Store whose Put and Delete skip the fsyncs
// (see [memorybank.LazyWriter]): a Put still writes a temporary file and
// renames it over the key under the store lock, with the same
// compare-and-swap, versions and change count, so readers in every process
// see the old file or the new one; but after a crash of the machine the key
// may hold its earlier file, none, or an empty or torn one. Directories a
// Put creates are still synced, so a later durable Put into them is never
// lost with them. A Bank writes its history entries this way, after the
// document's own durable Put. Closing the view does nothing; close the
// Store.
func (s *Store) Lazy() memorybank.Store {
	if s == nil {
		return s
	}
	v := *s
	v.lazy = true
	return &v
}
