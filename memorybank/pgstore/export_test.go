package pgstore

import "strings"

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

// NewWithSignal returns a Store like s whose writes run the same
// statements with or without the change count and the notification, for
// the benchmark that measures what they cost.
func NewWithSignal(s *Store, counted, notified bool) *Store {
	c := newStore(s.pool, false, s.opts)
	c.q = newQueries(s.opts.Table, counted, notified)
	c.quiet = newQueries(s.opts.Table, counted, false)
	return c
}

// ChangeChannel exposes changeChannel.
var ChangeChannel = changeChannel

// LockKeys returns the two advisory lock keys LockKey uses for name.
func LockKeys(s *Store, name string) (int32, int32) { return s.lockKeys(name) }

// MemoriesSchemaVersion is the latest schema version of the memories table.
var MemoriesSchemaVersion = len(memoriesMigration("t").steps)

// NewWithoutGuard returns a Store like s whose statements do not check the
// schema version, for the benchmark that measures what the check costs.
func NewWithoutGuard(s *Store) *Store {
	c := newStore(s.pool, false, s.opts)
	g := schemaGuard(s.opts.Table, len(s.objMig.steps))
	for _, q := range []*queries{&c.q, &c.quiet} {
		for _, p := range []*string{&q.get, &q.put, &q.putAbsent, &q.putIfVersion, &q.del, &q.delIfVersion,
			&q.version, &q.changes, &q.epoch, &q.makeShards, &q.addChange,
			&q.list[0][0], &q.list[0][1], &q.list[1][0], &q.list[1][1]} {
			*p = strings.ReplaceAll(*p, g, "true")
		}
	}
	return c
}

// SchemaMarker and CreateSchemaMarker expose the schema marker functions'
// name and DDL, so a test can migrate a table as a newer release would.
var (
	SchemaMarker       = schemaMarker
	CreateSchemaMarker = createSchemaMarker
)
