package pgstore

// Hooks for the external tests (package pgstore_test).

// ListQuery returns the SQL of List's first page, with ($3) or without an
// upper bound.
func ListQuery(s *Store, bounded bool) string {
	if bounded {
		return s.q.list[0][1]
	}
	return s.q.list[0][0]
}

// PrefixRange exposes prefixRange.
var PrefixRange = prefixRange

// ListPageSize exposes listPageSize.
const ListPageSize = listPageSize

// SchemaVersion is the latest schema version of the objects table.
var SchemaVersion = len(objectsMigration("t").steps)
