package pgstore_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// bumpSchema changes the version of table by delta as a migration of
// another release does, in one transaction: it records the version in
// SchemaTable, drops the marker of the version it had and creates the
// marker of the new one.
func bumpSchema(t *testing.T, pool *pgxpool.Pool, table string, delta int) {
	t.Helper()
	ctx := context.Background()
	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	var have int
	require.NoError(t, tx.QueryRow(ctx, `UPDATE `+pgstore.SchemaTable+` SET version = version + $2 WHERE table_name = $1 RETURNING version - $2`,
		table, delta).Scan(&have))
	_, err = tx.Exec(ctx, `DROP FUNCTION "`+pgstore.SchemaMarker(table, have)+`"()`)
	require.NoError(t, err)
	_, err = tx.Exec(ctx, pgstore.CreateSchemaMarker(table, have+delta))
	require.NoError(t, err)
	require.NoError(t, tx.Commit(ctx))
}

// requireNewer checks that err is the refusal of a table at version have by
// a pgstore that knows want.
func requireNewer(t *testing.T, err error, table string, have, want int, what string) *pgstore.SchemaError {
	t.Helper()
	require.ErrorIs(t, err, pgstore.ErrSchemaNewer, what)
	var se *pgstore.SchemaError
	require.ErrorAs(t, err, &se, what)
	assert.Equal(t, table, se.Table, what)
	assert.Equal(t, have, se.Have, what)
	assert.Equal(t, want, se.Want, what)
	var opErr *pgstore.OpError
	assert.ErrorAs(t, err, &opErr, "%s: the operation and key are said too", what)
	return se
}

// A Store that is already running when a newer pgstore migrates its tables
// (a rolling upgrade) refuses on its next statement, of every kind, with a
// *SchemaError, instead of reading what the new schema may no longer mean
// or failing with the SQL error of the change; and it writes nothing. The
// newer release is simulated with this code, by doing what every
// migration does in its transaction (record the new version in SchemaTable,
// drop the old version's marker, create the new one's): alone, then with a
// change the old statements cannot even plan (a renamed column). A store at
// version N refuses a schema at N+1.
func TestRunningStoreRefusesNewerSchema(t *testing.T) {
	ctx := t.Context()
	s, pool, opts := newTestStore(t)
	old, err := s.Put(ctx, "a.md", []byte("old"), memorybank.Condition{})
	require.NoError(t, err)
	before, err := s.Changes(ctx)
	require.NoError(t, err)

	calls := []struct {
		name string
		call func() error
	}{
		{"get", func() error { _, err := s.Get(ctx, "a.md"); return err }},
		{"get of a missing key", func() error { _, err := s.Get(ctx, "missing.md"); return err }},
		{"put", func() error { _, err := s.Put(ctx, "a.md", []byte("new"), memorybank.Condition{}); return err }},
		{"put if absent", func() error {
			_, err := s.Put(ctx, "b.md", []byte("new"), memorybank.Condition{IfAbsent: true})
			return err
		}},
		{"put if version", func() error {
			_, err := s.Put(ctx, "a.md", []byte("new"), memorybank.Condition{IfVersion: old.Version})
			return err
		}},
		{"delete", func() error { return s.Delete(ctx, "a.md", memorybank.Condition{}) }},
		{"delete if version", func() error { return s.Delete(ctx, "a.md", memorybank.Condition{IfVersion: old.Version}) }},
		{"list", func() error {
			for _, err := range s.List(ctx, "") {
				if err != nil {
					return err
				}
			}
			return nil
		}},
		{"changes", func() error { _, err := s.Changes(ctx); return err }},
	}
	for range 6 { // prepared and planned, generic plans included
		for _, c := range calls[:2] {
			err := c.call()
			require.True(t, err == nil || errors.Is(err, memorybank.ErrNotFound), "%s: %v", c.name, err)
		}
	}

	bumpSchema(t, pool, opts.Table, 1)
	for _, c := range calls {
		requireNewer(t, c.call(), opts.Table, pgstore.SchemaVersion+1, pgstore.SchemaVersion, c.name)
	}
	bumpSchema(t, pool, opts.Table, -1)
	got, err := s.Get(ctx, "a.md")
	require.NoError(t, err, "back at its version, the table is served again")
	assert.Equal(t, "old", string(got.Data), "no refused write was applied")
	assert.Equal(t, old.Version, got.Version)
	_, err = s.Get(ctx, "b.md")
	assert.ErrorIs(t, err, memorybank.ErrNotFound, "no refused write was applied")
	after, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.Equal(t, before, after, "no refused write was counted")

	// Also with a change the old statements cannot plan: the error is
	// still a SchemaError, with the SQL error inside.
	bumpSchema(t, pool, opts.Table, 1)
	_, err = pool.Exec(ctx, `ALTER TABLE "`+opts.Table+`" RENAME COLUMN data TO body`)
	require.NoError(t, err)
	for _, c := range calls[:3] {
		se := requireNewer(t, c.call(), opts.Table, pgstore.SchemaVersion+1, pgstore.SchemaVersion, c.name+" (renamed column)")
		var pgErr *pgconn.PgError
		assert.ErrorAs(t, se, &pgErr, "the statement's own error is kept")
	}
	_, err = pool.Exec(ctx, `ALTER TABLE "`+opts.Table+`" RENAME COLUMN body TO data`)
	require.NoError(t, err)
	bumpSchema(t, pool, opts.Table, -1)

	// A new Store (a restarted old server) refuses too, before any
	// statement on the table.
	bumpSchema(t, pool, opts.Table, 1)
	fresh, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	t.Cleanup(fresh.Close)
	requireNewer(t, fresh.Migrate(ctx), opts.Table, pgstore.SchemaVersion+1, pgstore.SchemaVersion, "migrate")
	bumpSchema(t, pool, opts.Table, -1)
}

// The memories table is guarded the same way.
func TestRunningMemoriesStoreRefusesNewerSchema(t *testing.T) {
	ctx := t.Context()
	s, pool, opts := newTestStore(t)
	mem, err := s.Memories("memories.md")
	require.NoError(t, err)
	_, version, err := mem.Append(ctx, []byte("# Memories\n\n"), []byte("- one\n"))
	require.NoError(t, err)

	bumpSchema(t, pool, opts.MemoriesTable, 1)
	have, want := pgstore.MemoriesSchemaVersion+1, pgstore.MemoriesSchemaVersion
	_, _, err = mem.Load(ctx)
	requireNewer(t, err, opts.MemoriesTable, have, want, "load")
	_, err = mem.Size(ctx)
	requireNewer(t, err, opts.MemoriesTable, have, want, "size")
	_, err = mem.Peek(ctx, 4)
	requireNewer(t, err, opts.MemoriesTable, have, want, "peek")
	_, _, err = mem.Append(ctx, []byte("# Memories\n\n"), []byte("- two\n"))
	requireNewer(t, err, opts.MemoriesTable, have, want, "append")
	_, err = mem.Save(ctx, []byte("replaced"), version)
	requireNewer(t, err, opts.MemoriesTable, have, want, "save")
	other, err := s.Memories("other.md")
	require.NoError(t, err)
	_, err = other.Save(ctx, []byte("new"), "")
	requireNewer(t, err, opts.MemoriesTable, have, want, "save of a new file")

	bumpSchema(t, pool, opts.MemoriesTable, -1)
	data, got, err := mem.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, "# Memories\n\n- one\n", string(data), "no refused write was applied")
	assert.Equal(t, version, got)
}

// A Bank over a running Store, whose listing and search index are cached,
// neither lists nor searches what it cached once the table is newer: it
// returns the SchemaError (before, it served its cache indefinitely).
func TestBankRefusesNewerSchema(t *testing.T) {
	ctx := t.Context()
	s, pool, opts := newTestStore(t)
	bank := memorybank.New(s, nil)
	_, err := bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeGlobal, Path: "decisions.json",
		Content: json.RawMessage(`{"decision": "We refresh tokens every hour."}`), Mode: memorybank.ModeCreate,
	})
	require.NoError(t, err)
	listed, err := bank.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	require.Len(t, listed, 1)
	hits, err := bank.Search(ctx, memorybank.TextSearchRequest{Query: "refresh tokens", Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	require.NotEmpty(t, hits)

	bumpSchema(t, pool, opts.Table, 1)
	defer bumpSchema(t, pool, opts.Table, -1) // so the tables can be dropped as usual
	_, err = bank.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	requireNewer(t, err, opts.Table, pgstore.SchemaVersion+1, pgstore.SchemaVersion, "list through a Bank")
	_, err = bank.Search(ctx, memorybank.TextSearchRequest{Query: "refresh tokens", Scope: memorybank.ScopeGlobal})
	requireNewer(t, err, opts.Table, pgstore.SchemaVersion+1, pgstore.SchemaVersion, "search through a Bank")
	_, err = bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "decisions.json"})
	requireNewer(t, err, opts.Table, pgstore.SchemaVersion+1, pgstore.SchemaVersion, "read through a Bank")
}
