package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
	"github.com/mnemobank/mnemobank/memorybank/storetest"
)

// The conformance suite, every subtest in its own namespace of one table:
// so it also shows that namespaces do not see each other's keys.
func TestConformance(t *testing.T) {
	pool := testPool(t)
	opts := freshOptions(t, pool)
	storetest.TestStore(t, func(t *testing.T) memorybank.Store {
		o := *opts
		o.Namespace = "conformance-" + randomSuffix(t)
		s, err := pgstore.New(pool, &o)
		require.NoError(t, err)
		return s
	})
}

// And once more on a table of its own per subtest, through Open, so the
// lazy migration of New and the eager one of Open are both exercised.
func TestConformanceFreshTables(t *testing.T) {
	dsn := requireDSN(t)
	pool := testPool(t)
	storetest.TestStore(t, func(t *testing.T) memorybank.Store {
		s, err := pgstore.Open(context.Background(), dsn, freshOptions(t, pool))
		require.NoError(t, err)
		t.Cleanup(s.Close)
		return s
	})
}

func TestNamespacesAreSeparate(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	opts := freshOptions(t, pool)
	a, err := pgstore.New(pool, &pgstore.Options{Table: opts.Table, MemoriesTable: opts.MemoriesTable, Namespace: "team-a"})
	require.NoError(t, err)
	b, err := pgstore.New(pool, &pgstore.Options{Table: opts.Table, MemoriesTable: opts.MemoriesTable, Namespace: "team-b"})
	require.NoError(t, err)

	_, err = a.Put(ctx, "notes.md", []byte("from a"), memorybank.Condition{})
	require.NoError(t, err)
	_, err = b.Put(ctx, "notes.md", []byte("from b"), memorybank.Condition{IfAbsent: true})
	require.NoError(t, err, "IfAbsent in b must not see a's key")
	_, err = a.Put(ctx, "only-a.md", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)

	got, err := a.Get(ctx, "notes.md")
	require.NoError(t, err)
	assert.Equal(t, "from a", string(got.Data))
	got, err = b.Get(ctx, "notes.md")
	require.NoError(t, err)
	assert.Equal(t, "from b", string(got.Data))

	assert.Equal(t, []string{"notes.md", "only-a.md"}, listKeys(t, a, ""))
	assert.Equal(t, []string{"notes.md"}, listKeys(t, b, ""))

	require.NoError(t, b.Delete(ctx, "notes.md", memorybank.Condition{}))
	_, err = a.Get(ctx, "notes.md")
	assert.NoError(t, err, "deleting in b removed a's key")
	assert.ErrorIs(t, b.Delete(ctx, "only-a.md", memorybank.Condition{}), memorybank.ErrNotFound)
}

// A key deleted and written again gets a version it never had, so a caller
// holding the old version cannot overwrite the new value (no ABA).
func TestVersionsNeverRepeat(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	seen := map[string]bool{}
	for i := range 5 {
		o, err := s.Put(ctx, "doc.md", []byte("same"), memorybank.Condition{})
		require.NoError(t, err)
		assert.False(t, seen[o.Version], "write %d reused version %q", i, o.Version)
		seen[o.Version] = true
		require.NoError(t, s.Delete(ctx, "doc.md", memorybank.Condition{IfVersion: o.Version}))
	}
	old, err := s.Put(ctx, "doc.md", []byte("v1"), memorybank.Condition{})
	require.NoError(t, err)
	require.NoError(t, s.Delete(ctx, "doc.md", memorybank.Condition{}))
	_, err = s.Put(ctx, "doc.md", []byte("v2"), memorybank.Condition{})
	require.NoError(t, err)
	_, err = s.Put(ctx, "doc.md", []byte("stale"), memorybank.Condition{IfVersion: old.Version})
	assert.ErrorIs(t, err, memorybank.ErrConflict)
	err = s.Delete(ctx, "doc.md", memorybank.Condition{IfVersion: old.Version})
	assert.ErrorIs(t, err, memorybank.ErrConflict)
}

func TestConditionErrorsNameTheCurrentState(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	o, err := s.Put(ctx, "a.md", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)

	tests := []struct {
		name string
		run  func() error
		is   error
		want string // part of the message
	}{
		{"put IfAbsent on existing", func() error {
			_, err := s.Put(ctx, "a.md", nil, memorybank.Condition{IfAbsent: true})
			return err
		}, memorybank.ErrConflict, "exists at version " + strconv.Quote(o.Version)},
		{"put stale IfVersion", func() error {
			_, err := s.Put(ctx, "a.md", nil, memorybank.Condition{IfVersion: "999999999"})
			return err
		}, memorybank.ErrConflict, "current version is " + strconv.Quote(o.Version)},
		{"put IfVersion not a version", func() error {
			_, err := s.Put(ctx, "a.md", nil, memorybank.Condition{IfVersion: "v1"})
			return err
		}, memorybank.ErrConflict, "current version is " + strconv.Quote(o.Version)},
		{"put IfVersion on missing", func() error {
			_, err := s.Put(ctx, "missing.md", nil, memorybank.Condition{IfVersion: o.Version})
			return err
		}, memorybank.ErrConflict, "does not exist"},
		{"delete missing with IfVersion", func() error {
			return s.Delete(ctx, "missing.md", memorybank.Condition{IfVersion: o.Version})
		}, memorybank.ErrNotFound, `"missing.md"`},
		{"delete IfAbsent on existing", func() error {
			return s.Delete(ctx, "a.md", memorybank.Condition{IfAbsent: true})
		}, memorybank.ErrConflict, "exists"},
		{"delete stale IfVersion", func() error {
			return s.Delete(ctx, "a.md", memorybank.Condition{IfVersion: "0042"})
		}, memorybank.ErrConflict, "current version is " + strconv.Quote(o.Version)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.run()
			require.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.want)
		})
	}
	got, err := s.Get(ctx, "a.md")
	require.NoError(t, err)
	assert.Equal(t, "x", string(got.Data), "a failed conditional write changed the value")
	assert.Equal(t, o.Version, got.Version)
}

func listKeys(t *testing.T, s memorybank.Store, prefix string) []string {
	t.Helper()
	var keys []string
	for o, err := range s.List(context.Background(), prefix) {
		require.NoError(t, err)
		assert.Nil(t, o.Data, "List must not return Data")
		keys = append(keys, o.Key)
	}
	return keys
}

// List gives the same answers as MemStore (plain byte prefixes, byte order)
// for prefixes that stress the index range: multi-byte characters, a
// truncated character, the last code point, characters around the
// surrogate gap, and prefixes no key can start with.
func TestListMatchesMemStore(t *testing.T) {
	ctx := context.Background()
	s, pool, _ := newTestStore(t)
	var mem memorybank.MemStore
	keys := []string{
		"a.md", "a/b.md", "a/c/d.md", "ab.md", "b.md", "B.md", "_x.md", "z~.md",
		// Byte order differs from most locales' here (see .ci/postgres.sh).
		"a-b", "a/b", "aB", "ab", "a_b", "a_b/c.md", "a-b/c.md",
		"é/1.md", "éa.md", "ê.md", "e.md", "日本/メモ.md", "日本語.md",
		"\U0010FFFF/x.md", "\U0010FFFF\U0010FFFF.md", "\U0010FFFFa.md",
		"\uD7FF.md", "\uE000.md", "\uFFFD.md", "x\u007e.md", "x\u00a1y.md",
	}
	for _, k := range keys {
		require.NoError(t, memorybank.ValidateKey(k), "test key %q", k)
		_, err := s.Put(ctx, k, []byte(k), memorybank.Condition{})
		require.NoError(t, err)
		_, err = mem.Put(ctx, k, []byte(k), memorybank.Condition{})
		require.NoError(t, err)
	}
	prefixes := []string{
		"", "a", "a/", "a/c/", "A", "b", "é", "é/", "\xc3", "\xe6\x97", "日本", "日本/",
		"\U0010FFFF", "\U0010FFFF\U0010FFFF", "\uD7FF", "\uFFFD", "x", "x\u007e", "x\u0080", "x\u00a1", "x\xc2",
		"\xff", "a\x00", "../", "zz", "~", "a-", "a_", "aB", "a-b/", "a_b",
		"a\xffb", "\xc3a",
	}
	for _, p := range prefixes {
		want := listKeys(t, &mem, p)
		assert.Equal(t, want, listKeys(t, s, p), "List(%q)", p)
	}
	all := listKeys(t, s, "")
	assert.True(t, slices.IsSorted(all), "List is not in byte order: %q", all)
	assert.Len(t, all, len(keys))

	// Say whether this server could tell: with a byte-order default
	// collation, a missing COLLATE "C" would go unnoticed.
	var localeOrder bool
	require.NoError(t, pool.QueryRow(ctx, `SELECT 'a_b' < 'aB'`).Scan(&localeOrder))
	if !localeOrder {
		t.Logf("the database's default collation sorts like byte order: this test cannot show that List's order does not depend on it (.ci/postgres.sh creates an ICU database)")
	}
}

// List pages through the table and holds no connection while the caller's
// loop body runs: with a pool of one connection, calling the store inside
// the loop must not deadlock.
func TestListPagesAndReleasesConnection(t *testing.T) {
	ctx := context.Background()
	dsn := requireDSN(t)
	shared := testPool(t)
	opts := freshOptions(t, shared)
	cfg, err := pgxpool.ParseConfig(dsn)
	require.NoError(t, err)
	cfg.MaxConns = 1
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	require.NoError(t, err)
	t.Cleanup(pool.Close)
	s, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	require.NoError(t, s.Migrate(ctx))

	n := 2*pgstore.ListPageSize + 17
	// Bulk insert in one statement, with versions from the table's sequence
	// as Put would take them.
	_, err = pool.Exec(ctx, fmt.Sprintf(`INSERT INTO %q (namespace, key, data, version, mod_time)
		SELECT $1, 'dir/' || lpad(i::text, 6, '0') || '.md', '\x'::bytea, nextval('%s'), now()
		FROM generate_series(1, $2) AS i`, opts.Table, opts.Table+"_version_seq"), opts.Namespace, n)
	require.NoError(t, err)
	_, err = s.Put(ctx, "dis.md", []byte("outside the prefix"), memorybank.Condition{})
	require.NoError(t, err)

	var keys []string
	for o, err := range s.List(ctx, "dir/") {
		require.NoError(t, err)
		keys = append(keys, o.Key)
		if len(keys)%pgstore.ListPageSize == 1 {
			_, err := s.Get(ctx, o.Key) // needs the only connection
			require.NoError(t, err)
		}
	}
	require.Len(t, keys, n)
	assert.Equal(t, "dir/000001.md", keys[0])
	assert.Equal(t, fmt.Sprintf("dir/%06d.md", n), keys[n-1])
	assert.True(t, slices.IsSorted(keys))

	// Breaking out early stops the iteration.
	count := 0
	for _, err := range s.List(ctx, "dir/") {
		require.NoError(t, err)
		count++
		if count == 3 {
			break
		}
	}
	assert.Equal(t, 3, count)
}

// The List query is an index range scan on the primary key and needs no
// sort, with the values given (custom plan) and for the cached prepared
// statement's generic plan alike.
func TestListUsesIndex(t *testing.T) {
	ctx := context.Background()
	s, pool, opts := newTestStore(t)
	require.NoError(t, s.Migrate(ctx))
	table := opts.Table
	// Enough rows, in several namespaces, that a scan would cost more.
	_, err := pool.Exec(ctx, `INSERT INTO `+table+` (namespace, key, data, version, mod_time)
		SELECT 'ns' || (i % 4), 'dir' || (i % 50) || '/' || i || '.md', '\x'::bytea, i, now()
		FROM generate_series(1, 20000) AS i`)
	require.NoError(t, err)
	_, err = pool.Exec(ctx, `ANALYZE `+table)
	require.NoError(t, err)

	lo, hi, hasHi, ok := pgstore.PrefixRange("dir7/")
	require.True(t, ok)
	require.True(t, hasHi)
	conn, err := pool.Acquire(ctx)
	require.NoError(t, err)
	defer conn.Release()
	// EXPLAIN EXECUTE of a prepared statement shows the plan PostgreSQL
	// uses for it, generic (as for pgx's cached statements) or custom.
	_, err = conn.Exec(ctx, `PREPARE list_page(text, text, text) AS `+pgstore.ListQuery(s, true))
	require.NoError(t, err)
	for _, mode := range []string{"force_custom_plan", "force_generic_plan", "no bitmap scans"} {
		if mode == "no bitmap scans" {
			// For few rows the planner may prefer a bitmap index scan and
			// a sort. Without bitmap scans it must read the index in key
			// order, which it can only do if the ORDER BY's collation is
			// the index's: then there is no Sort node at all.
			_, err := conn.Exec(ctx, `SET plan_cache_mode = force_custom_plan; SET enable_bitmapscan = off`)
			require.NoError(t, err)
		} else {
			_, err := conn.Exec(ctx, `SET plan_cache_mode = `+mode)
			require.NoError(t, err)
		}
		var plan strings.Builder
		rows, err := conn.Query(ctx, fmt.Sprintf(`EXPLAIN EXECUTE list_page('ns1', '%s', '%s')`, lo, hi))
		require.NoError(t, err)
		for rows.Next() {
			var line string
			require.NoError(t, rows.Scan(&line))
			plan.WriteString(line + "\n")
		}
		require.NoError(t, rows.Err())
		p := plan.String()
		t.Logf("%s:\n%s", mode, p)
		assert.Contains(t, p, "Index", "%s: List is not an index scan:\n%s", mode, p)
		assert.Contains(t, p, "_pkey", "%s: List does not use the primary key:\n%s", mode, p)
		assert.NotContains(t, p, "Seq Scan", "%s: List scans the table:\n%s", mode, p)
		if mode == "no bitmap scans" {
			assert.NotContains(t, p, "Sort", "%s: List sorts instead of reading the index in order:\n%s", mode, p)
		}
		assert.Contains(t, p, "key >=", "%s: the prefix is not an index condition:\n%s", mode, p)
	}
	_, err = conn.Exec(ctx, `RESET plan_cache_mode; RESET enable_bitmapscan; DEALLOCATE list_page`)
	require.NoError(t, err)
}

// A context cancelled before the first use fails without poisoning the
// lazy migration: the next call with a live context works.
func TestCancelledFirstUseDoesNotPoison(t *testing.T) {
	s, _, _ := newTestStore(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := s.Get(ctx, "a.md")
	require.ErrorIs(t, err, context.Canceled)
	_, err = s.Put(context.Background(), "a.md", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)
}

// A context cancelled while a write waits on a row lock held by another
// transaction returns an error matching context.Canceled, and the write does
// not happen, not even once the lock is released (with pgx's default
// cancellation it would: the server would apply it after the caller was
// told it failed).
func TestCancelWhileWaiting(t *testing.T) {
	ctx := context.Background()
	dsn := requireDSN(t)
	shared := testPool(t)
	opts := freshOptions(t, shared)
	s, err := pgstore.Open(ctx, dsn, opts)
	require.NoError(t, err)
	t.Cleanup(s.Close)
	pool := shared
	o, err := s.Put(ctx, "locked.md", []byte("before"), memorybank.Condition{})
	require.NoError(t, err)
	table := opts.Table

	tx, err := pool.Begin(ctx)
	require.NoError(t, err)
	defer func() { _ = tx.Rollback(ctx) }()
	_, err = tx.Exec(ctx, `SELECT 1 FROM `+table+` WHERE key = 'locked.md' FOR UPDATE`)
	require.NoError(t, err)

	wctx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		_, err := s.Put(wctx, "locked.md", []byte("after"), memorybank.Condition{IfVersion: o.Version})
		done <- err
	}()
	// Wait until the Put is blocked on the lock, as the server reports it.
	waitForLockWaiter(t, pool, table, done)
	cancel()
	err = <-done
	require.ErrorIs(t, err, context.Canceled)
	require.NoError(t, tx.Rollback(ctx))

	got, err := s.Get(ctx, "locked.md")
	require.NoError(t, err)
	assert.Equal(t, "before", string(got.Data))
	assert.Equal(t, o.Version, got.Version)
}

// deadlineTB is a testing.TB that knows its deadline, as *testing.T does.
type deadlineTB interface {
	testing.TB
	Deadline() (time.Time, bool)
}

// fatalRecorder records Fatalf instead of failing the test, and stops the
// goroutine as Fatalf does.
type fatalRecorder struct {
	*testing.T
	fatal string
}

func (r *fatalRecorder) Fatalf(format string, args ...any) {
	r.fatal = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

// When the write does not block (here: nothing holds the lock, and it has
// already returned), waitForLockWaiter fails at once instead of polling the
// server until the test times out.
func TestWaitForLockWaiterStopsWhenWriteReturns(t *testing.T) {
	pool := testPool(t)
	done := make(chan error, 1)
	done <- errors.New("write failed")
	r := &fatalRecorder{T: t}
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		waitForLockWaiter(r, pool, "no_such_table_"+randomSuffix(t), done)
	}()
	<-finished
	assert.Contains(t, r.fatal, "write failed")
	assert.Contains(t, r.fatal, "before waiting for the lock")
}

// waitForLockWaiter returns once a backend running a statement on table
// waits for a lock, as the server reports it (polling the server, not
// sleeping for the event). It fails the test if the write returns on done
// first (it did not block, so the test cannot show what it means to), or if
// the test's deadline comes near.
func waitForLockWaiter(t deadlineTB, pool *pgxpool.Pool, table string, done <-chan error) {
	t.Helper()
	limit := time.Minute
	if deadline, ok := t.Deadline(); ok {
		limit = min(limit, time.Until(deadline)*9/10)
	}
	ctx, cancel := context.WithTimeout(context.Background(), limit)
	defer cancel()
	const poll = 2 * time.Millisecond
	timer := time.NewTimer(0)
	defer timer.Stop()
	for {
		select {
		case err := <-done:
			t.Fatalf("the write returned (error: %v) before waiting for the lock on %s", err, table)
		case <-ctx.Done():
			t.Fatalf("no statement on %s waited for a lock within %v", table, limit)
		case <-timer.C:
		}
		var waiting bool
		err := pool.QueryRow(ctx, `SELECT EXISTS (
			SELECT 1 FROM pg_stat_activity
			WHERE datname = current_database() AND position($1 in query) > 0
			AND cardinality(pg_blocking_pids(pid)) > 0)`, table).Scan(&waiting)
		if ctx.Err() != nil {
			continue // reported by the select
		}
		require.NoError(t, err)
		if waiting {
			return
		}
		timer.Reset(poll)
	}
}

func TestOptionsValidation(t *testing.T) {
	tests := []struct {
		name  string
		opts  pgstore.Options
		field string
	}{
		{"upper case table", pgstore.Options{Table: "Objects"}, "Table"},
		{"quote in table", pgstore.Options{Table: `objects"; DROP TABLE x; --`}, "Table"},
		{"schema-qualified table", pgstore.Options{Table: "public.objects"}, "Table"},
		{"table starting with a digit", pgstore.Options{Table: "1objects"}, "Table"},
		{"table too long", pgstore.Options{Table: strings.Repeat("t", 52)}, "Table"},
		{"memories table invalid", pgstore.Options{MemoriesTable: "mem-ories"}, "MemoriesTable"},
		{"same tables", pgstore.Options{Table: "x", MemoriesTable: "x"}, "MemoriesTable"},
		{"table is the default memories table", pgstore.Options{Table: pgstore.DefaultMemoriesTable}, "MemoriesTable"},
		{"memories table is the default table", pgstore.Options{MemoriesTable: pgstore.DefaultTable}, "MemoriesTable"},
		{"table is the schema table", pgstore.Options{Table: pgstore.SchemaTable}, "Table"},
		{"memories table is the schema table", pgstore.Options{MemoriesTable: pgstore.SchemaTable}, "MemoriesTable"},
		{"table is a sequence name", pgstore.Options{Table: pgstore.DefaultMemoriesTable + "_version_seq"}, "Table"},
		{"memories table is the table's sequence", pgstore.Options{Table: "x", MemoriesTable: "x_version_seq"}, "MemoriesTable"},
		{"namespace with NUL", pgstore.Options{Namespace: "a\x00b"}, "Namespace"},
		{"namespace not UTF-8", pgstore.Options{Namespace: "a\xffb"}, "Namespace"},
		{"namespace too long", pgstore.Options{Namespace: strings.Repeat("n", 256)}, "Namespace"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// Options are checked before the DSN is used: no server needed.
			_, err := pgstore.Open(context.Background(), "postgres://127.0.0.1:1/none", &tt.opts)
			require.ErrorIs(t, err, pgstore.ErrInvalidOptions)
			var oe *pgstore.OptionError
			require.ErrorAs(t, err, &oe)
			assert.Equal(t, tt.field, oe.Field)
		})
	}
	ok := []pgstore.Options{
		{}, {Table: "objects", MemoriesTable: "memories", Namespace: "team/プロジェクト"},
		{Table: "_t" + strings.Repeat("x", 49)},
	}
	for _, o := range ok {
		_, err := pgstore.New(new(pgxpool.Pool), &o)
		assert.NoError(t, err, "%+v", o)
	}
}

func TestOpenBadDSN(t *testing.T) {
	_, err := pgstore.Open(context.Background(), "host=127.0.0.1 port=notaport", nil)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "DSN")
	// The message quotes the DSN (to show the mistake) with the password
	// masked.
	for _, dsn := range []string{
		"postgres://agent:s3cr3t@dbhost7:notaport/bank",
		"postgres://agent@dbhost7/bank?sslmode=bogus&password=s3cr3t",
		"host=dbhost7 port=notaport password=s3cr3t",
		"host=dbhost7 port=notaport password='s3cr3t x'",
	} {
		_, err := pgstore.Open(context.Background(), dsn, nil)
		require.Error(t, err, dsn)
		assert.NotContains(t, err.Error(), "s3cr3t", "the error shows the password of %s", dsn)
		assert.Contains(t, err.Error(), "dbhost7", "the error does not quote the DSN")
	}
	_, err = pgstore.New(nil, nil)
	require.Error(t, err)
}
