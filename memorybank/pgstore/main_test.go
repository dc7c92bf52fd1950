package pgstore_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"sync"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// dsnEnv names the environment variable holding the DSN of the PostgreSQL
// server the tests use. Without it every test that needs the server skips.
const dsnEnv = "MNEMOBANK_PG_DSN"

func TestMain(m *testing.M) {
	// A child process of a multi-process test runs its role and exits
	// instead of running the tests.
	if role := os.Getenv(roleEnv); role != "" {
		os.Exit(runChild(role))
	}
	code := m.Run()
	if sharedPool != nil {
		sharedPool.Close()
	}
	os.Exit(code)
}

var (
	sharedPoolOnce sync.Once
	sharedPool     *pgxpool.Pool
	sharedPoolErr  error
)

// requireDSN returns the server's DSN, or skips the test when there is none.
func requireDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(dsnEnv)
	if dsn == "" {
		t.Skipf("%s is not set: this test needs a PostgreSQL server (bash .ci/run starts a throwaway one; see memorybank/pgstore/README.md)", dsnEnv)
	}
	return dsn
}

// testPool returns a pool shared by the tests of this process, or skips.
func testPool(t testing.TB) *pgxpool.Pool {
	t.Helper()
	dsn := requireDSN(t)
	sharedPoolOnce.Do(func() {
		var cfg *pgxpool.Config
		cfg, sharedPoolErr = pgstore.ParseConfig(dsn)
		if sharedPoolErr == nil {
			sharedPool, sharedPoolErr = pgxpool.NewWithConfig(context.Background(), cfg)
		}
		if sharedPoolErr == nil {
			sharedPoolErr = sharedPool.Ping(context.Background())
		}
	})
	require.NoError(t, sharedPoolErr, "connecting to %s", dsnEnv)
	return sharedPool
}

func randomSuffix(t testing.TB) string {
	var b [6]byte
	_, err := rand.Read(b[:])
	require.NoError(t, err)
	return hex.EncodeToString(b[:])
}

// freshOptions returns Options naming an objects table and a memories table
// that no other test uses, dropped (with their schema version rows) when
// the test ends.
func freshOptions(t testing.TB, pool *pgxpool.Pool) *pgstore.Options {
	t.Helper()
	suffix := randomSuffix(t)
	opts := &pgstore.Options{
		Table:         "test_objects_" + suffix,
		MemoriesTable: "test_memories_" + suffix,
		Namespace:     "ns-" + suffix,
	}
	t.Cleanup(func() {
		dropTables(t, pool, opts.Table, opts.MemoriesTable, opts.Table+"_changes", opts.MemoriesTable+"_entries")
	})
	return opts
}

func dropTables(t testing.TB, pool *pgxpool.Pool, tables ...string) {
	ctx := context.Background()
	for _, table := range tables {
		_, err := pool.Exec(ctx, fmt.Sprintf(`DROP TABLE IF EXISTS %q CASCADE`, table))
		if err != nil {
			t.Errorf("dropping test table %s: %v", table, err)
		}
		_, err = pool.Exec(ctx, `DELETE FROM `+pgstore.SchemaTable+` WHERE table_name = $1`, table)
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "42P01" {
			err = nil // undefined_table: nothing was ever migrated
		}
		if err != nil {
			t.Errorf("forgetting test table %s: %v", table, err)
		}
		for v := 1; v <= 9; v++ {
			if _, err := pool.Exec(ctx, fmt.Sprintf(`DROP FUNCTION IF EXISTS %q()`, pgstore.SchemaMarker(table, v))); err != nil {
				t.Errorf("dropping the schema marker of test table %s: %v", table, err)
			}
		}
	}
}

// newTestStore returns a Store on fresh tables, its pool and its options.
func newTestStore(t testing.TB) (*pgstore.Store, *pgxpool.Pool, *pgstore.Options) {
	t.Helper()
	pool := testPool(t)
	opts := freshOptions(t, pool)
	s, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	t.Cleanup(s.Close) // its LockKey connections; the pool is shared
	return s, pool, opts
}
