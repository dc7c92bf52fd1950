package pgstore_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// Processes starting at once against an empty database all migrate without
// error (the advisory lock serialises them), and migrating again is a no-op.
func TestMigrateConcurrently(t *testing.T) {
	ctx := context.Background()
	dsn := requireDSN(t)
	shared := testPool(t)
	opts := freshOptions(t, shared)
	const n = 6
	var wg sync.WaitGroup
	errs := make([]error, n)
	for i := range n {
		wg.Go(func() {
			// Each with its own pool, as separate processes would be.
			s, err := pgstore.Open(ctx, dsn, opts)
			if err == nil {
				err = s.Migrate(ctx)
				s.Close()
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		assert.NoError(t, err, "migration %d", i)
	}
	var version int
	err := shared.QueryRow(ctx, `SELECT version FROM `+pgstore.SchemaTable+` WHERE table_name = $1`, opts.Table).Scan(&version)
	require.NoError(t, err)
	assert.Equal(t, pgstore.SchemaVersion, version)

	s, err := pgstore.New(shared, opts)
	require.NoError(t, err)
	require.NoError(t, s.Migrate(ctx), "migrating an up-to-date table again")
}

// A table migrated by a newer pgstore is refused with a message that says
// what to do, rather than used with a schema this code does not know.
func TestMigrateRefusesNewerSchema(t *testing.T) {
	ctx := context.Background()
	s, pool, opts := newTestStore(t)
	require.NoError(t, s.Migrate(ctx))
	table := opts.Table
	_, err := pool.Exec(ctx, `UPDATE `+pgstore.SchemaTable+` SET version = version + 1 WHERE table_name = $1`, table)
	require.NoError(t, err)

	fresh, err := pgstore.New(pool, &pgstore.Options{Table: table, MemoriesTable: table + "_m"})
	require.NoError(t, err)
	t.Cleanup(func() { dropTables(t, pool, table+"_m") })
	_, err = fresh.Get(ctx, "a.md")
	require.Error(t, err)
	var opErr *pgstore.OpError
	require.ErrorAs(t, err, &opErr)
	assert.ErrorIs(t, err, pgstore.ErrSchemaNewer)
	assert.Contains(t, err.Error(), "upgrade")
}

// A table dropped by hand while its schema version row stays is created
// again: by the next Store, and by a running Store on its next call (after
// the call that found it missing fails), instead of failing until restart.
func TestMigrateRecreatesDroppedTable(t *testing.T) {
	ctx := context.Background()
	s, pool, opts := newTestStore(t)
	m, err := s.Memories("memories.md")
	require.NoError(t, err)
	_, err = s.Put(ctx, "a.md", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)
	_, _, err = m.Append(ctx, nil, []byte("- e\n"))
	require.NoError(t, err)

	for _, table := range []string{opts.Table, opts.MemoriesTable} {
		_, err = pool.Exec(ctx, `DROP TABLE `+table)
		require.NoError(t, err)
	}

	// A new Store (a restarted process) re-creates both tables.
	fresh, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	require.NoError(t, fresh.Migrate(ctx))
	_, err = fresh.Get(ctx, "a.md")
	assert.ErrorIs(t, err, memorybank.ErrNotFound, "the dropped table's rows are gone")

	// The running Store: the first call after the drop fails (its table
	// was gone when it ran), the next re-migrates and works.
	_, err = pool.Exec(ctx, `DROP TABLE `+opts.Table)
	require.NoError(t, err)
	_, err = s.Get(ctx, "a.md")
	var opErr *pgstore.OpError
	require.ErrorAs(t, err, &opErr)
	o, err := s.Put(ctx, "a.md", []byte("y"), memorybank.Condition{})
	require.NoError(t, err)
	got, err := s.Get(ctx, "a.md")
	require.NoError(t, err)
	assert.Equal(t, "y", string(got.Data))
	assert.Equal(t, o.Version, got.Version)

	_, err = pool.Exec(ctx, `DROP TABLE `+opts.MemoriesTable)
	require.NoError(t, err)
	_, err = m.Size(ctx)
	require.ErrorAs(t, err, &opErr)
	size, _, err := m.Append(ctx, nil, []byte("- f\n"))
	require.NoError(t, err)
	assert.Equal(t, int64(len("- f\n")), size)

	var version int
	err = pool.QueryRow(ctx, `SELECT version FROM `+pgstore.SchemaTable+` WHERE table_name = $1`, opts.Table).Scan(&version)
	require.NoError(t, err)
	assert.Equal(t, pgstore.SchemaVersion, version)
}

// A table of the chosen name that pgstore did not create is refused with a
// message naming it and saying what to do, rather than failing with the
// server's "already exists" or being used with an unknown schema.
func TestMigrateRefusesForeignTable(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	other, err := pgstore.New(pool, freshOptions(t, pool))
	require.NoError(t, err)
	require.NoError(t, other.Migrate(ctx), "creating the schema version table")
	opts := freshOptions(t, pool)
	_, err = pool.Exec(ctx, `CREATE TABLE `+opts.Table+` (id int)`)
	require.NoError(t, err)
	s, err := pgstore.New(pool, opts)
	require.NoError(t, err)

	err = s.Migrate(ctx)
	var opErr *pgstore.OpError
	require.ErrorAs(t, err, &opErr)
	assert.Contains(t, err.Error(), "not created by pgstore")
	assert.Contains(t, err.Error(), "Options.Table")
	// Nothing was created or recorded for it.
	var n int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(*) FROM `+pgstore.SchemaTable+` WHERE table_name = $1`, opts.Table).Scan(&n))
	assert.Zero(t, n)
	var seq bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, opts.Table+"_version_seq").Scan(&seq))
	assert.False(t, seq, "a sequence was left behind")
}
