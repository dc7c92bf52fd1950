package pgstore

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"math/rand/v2"
	"strconv"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Store is a memorybank.Store in a PostgreSQL table. It is safe for
// concurrent use, and compare-and-swap writes are atomic with respect to
// every other Store on the same table and namespace, in any process on any
// machine.
type Store struct {
	pool     *pgxpool.Pool
	ownsPool bool
	opts     Options
	objects  schemaOnce
	memories schemaOnce
	objMig   migration
	memMig   migration
	q        queries // writes notify the table's channel
	quiet    queries // writes do not (a trailing notification follows)
	notes    notifier
	count    counter
	locks    *keyLocks // LockKey's stripes and connections
}

var (
	_ memorybank.Store         = (*Store)(nil)
	_ memorybank.ChangeCounter = (*Store)(nil)
)

// queries are the SQL texts of a Store, built once with its table name.
type queries struct {
	get, put, putAbsent, putIfVersion, del, delIfVersion, version, changes, epoch string
	makeShards, addChange                                                         string
	list                                                                          [2][2]string // [after][bounded]
	// counted: the writes count themselves and take the shard as their
	// last argument.
	counted bool
}

// newQueries builds the SQL of a Store on table. counted false leaves out
// the change count, notified false the notification, for the benchmark
// that measures what they cost.
func newQueries(table string, counted, notified bool) queries {
	version := len(objectsMigration(table).steps)
	sqlf := func(template, table string) string { return guarded(template, table, version) }
	count := countChange
	countedCol := countedColumn
	if !counted {
		count = func(int) string { return "" }
		countedCol = ", true"
	}
	notify, notifyCount := notifyChange, notifyChangeCount
	if !notified {
		notify, notifyCount = ", true", "count(*)"
	}
	// The guard is in the final SELECT: if it fails, so does the
	// statement, and the write in w is undone with it.
	putEnd := `SELECT version, mod_time` + notify + countedCol + ` FROM w WHERE {check}`
	delEnd := `SELECT ` + notifyCount + countedCol + ` FROM w WHERE {check}`
	q := queries{
		get: sqlf(`SELECT data, version, mod_time FROM {t} WHERE namespace = $1 AND key = $2 AND {check}`, table),
		// Every write counts itself in the namespace's change count, in the
		// same statement, only when it changed a row, and notifies the
		// servers listening (Store.WatchChanges) when it commits.
		put: sqlf(`WITH w AS (INSERT INTO {t} (namespace, key, data, version, mod_time)
			VALUES ($1, $2, $3, nextval({seq}), clock_timestamp())
			ON CONFLICT (namespace, key) DO UPDATE
			SET data = EXCLUDED.data, version = EXCLUDED.version, mod_time = EXCLUDED.mod_time
			RETURNING version, mod_time)`+count(4)+putEnd, table),
		putAbsent: sqlf(`WITH w AS (INSERT INTO {t} (namespace, key, data, version, mod_time)
			VALUES ($1, $2, $3, nextval({seq}), clock_timestamp())
			ON CONFLICT (namespace, key) DO NOTHING
			RETURNING version, mod_time)`+count(4)+putEnd, table),
		putIfVersion: sqlf(`WITH w AS (UPDATE {t} SET data = $3, version = nextval({seq}), mod_time = clock_timestamp()
			WHERE namespace = $1 AND key = $2 AND version = $4
			RETURNING version, mod_time)`+count(5)+putEnd, table),
		del: sqlf(`WITH w AS (DELETE FROM {t} WHERE namespace = $1 AND key = $2 RETURNING 1)`+count(3)+delEnd, table),
		delIfVersion: sqlf(`WITH w AS (DELETE FROM {t} WHERE namespace = $1 AND key = $2 AND version = $3 RETURNING 1)`+
			count(4)+delEnd, table),
		changes:    sqlf(`SELECT coalesce(sum(n), 0)::bigint, count(*), max(epoch) FILTER (WHERE shard = 0) FROM {c} WHERE namespace = $1 AND {check}`, table),
		epoch:      sqlf(`INSERT INTO {c} (namespace, shard, n) SELECT $1::text, 0, 0 WHERE {check} ON CONFLICT (namespace, shard) DO NOTHING`, table),
		makeShards: sqlf(makeShards, table),
		addChange:  sqlf(addChange, table),
		counted:    counted,
		version:    sqlf(`SELECT version FROM {t} WHERE namespace = $1 AND key = $2 AND {check}`, table),
	}
	// List pages by key: the first page starts at the prefix (>=), the next
	// ones after the last key seen (>). Separate texts rather than
	// "$3 IS NULL OR key < $3", which would keep a cached generic plan from
	// using the bound as an index condition.
	for after, lower := range [2]string{">=", ">"} {
		for bounded, upper := range [2]string{"", " AND key < $3"} {
			q.list[after][bounded] = sqlf(`SELECT key, version, mod_time FROM {t}
				WHERE namespace = $1 AND key `+lower+` $2`+upper+` AND {check}
				ORDER BY key LIMIT `+strconv.Itoa(listPageSize), table)
		}
	}
	return q
}

// New returns a Store using pool, which the caller keeps owning (Close does
// not close it). The tables are created on first use. It returns an error
// wrapping ErrInvalidOptions if opts has an invalid field; it does no I/O.
func New(pool *pgxpool.Pool, opts *Options) (*Store, error) {
	if pool == nil {
		return nil, errors.New("pgstore: New: pool is nil; create one with pgxpool.New, or use pgstore.Open with a DSN")
	}
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	return newStore(pool, false, o), nil
}

func newStore(pool *pgxpool.Pool, ownsPool bool, o Options) *Store {
	s := &Store{
		pool: pool, ownsPool: ownsPool, opts: o,
		objMig: objectsMigration(o.Table), memMig: memoriesMigration(o.MemoriesTable),
		q: newQueries(o.Table, true, true), quiet: newQueries(o.Table, true, false), locks: newKeyLocks(),
	}
	// Stores of other processes start elsewhere, so that their writes
	// rarely share a shard either.
	s.count.next.Store(rand.Uint32())
	return s
}

// Open connects to the database named by dsn (a PostgreSQL URL or key=value
// string, as accepted by pgxpool.ParseConfig) with a pool configured by
// ParseConfig, creates or upgrades the tables, and returns a Store that owns
// its connection pool: call Close when done.
func Open(ctx context.Context, dsn string, opts *Options) (*Store, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	cfg, err := ParseConfig(dsn)
	if err != nil {
		return nil, err
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pgstore: Open: %w", err)
	}
	s := newStore(pool, true, o)
	if err := s.Migrate(ctx); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// CancelTimeout is how long a statement interrupted by its context may take
// to be cancelled by the server (see ParseConfig) before the connection is
// dropped.
const CancelTimeout = 5 * time.Second

// ParseConfig parses dsn like pgxpool.ParseConfig and changes what happens
// when a context is cancelled while a statement runs: pgx's default closes
// the connection at once, and the server, which does not notice until it
// answers, may still apply the write afterwards (for example once a row lock
// it was waiting for is released), after the caller was told it failed.
// Instead the pool asks the server to cancel the statement and waits for
// its answer (up to CancelTimeout), so a write that returns an error was
// not applied, unless the server could not be reached at all (then, as with
// any remote database, the outcome is unknown).
//
// Open uses it; build the pool you pass to New with it too.
func ParseConfig(dsn string) (*pgxpool.Config, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		// pgx's message quotes the DSN with its passwords masked (user:xxxxx@,
		// password=xxxxx, ?password=xxxxx), which helps the reader find the
		// mistake; pgx says the masking is best effort for a DSN so malformed
		// that its parts cannot be told apart. The unmasked DSN stays in the
		// wrapped *pgconn.ParseConfigError's ConnString field only.
		return nil, fmt.Errorf("pgstore: the DSN is not a PostgreSQL URL (postgres://user:password@host:5432/db) or key=value string (host=... dbname=...): %w", err)
	}
	cfg.ConnConfig.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: CancelTimeout}
	}
	return cfg, nil
}

// Close closes the connections LockKey opened, and the connection pool if
// Open created it (a Store from New leaves its pool to the caller).
func (s *Store) Close() {
	s.locks.close()
	if s.ownsPool {
		s.pool.Close()
	}
}

// Namespace returns the namespace this Store reads and writes.
func (s *Store) Namespace() string { return s.opts.Namespace }

// Migrate creates or upgrades the objects table and the memories table now
// rather than on first use. It is idempotent, and safe to run from several
// processes at once.
func (s *Store) Migrate(ctx context.Context) error {
	if err := s.objects.ensure(ctx, s.pool, s.objMig); err != nil {
		return opError(ctx, "migrate", s.opts.Table, s.opts.Namespace, "", err)
	}
	if err := s.memories.ensure(ctx, s.pool, s.memMig); err != nil {
		return opError(ctx, "migrate", s.opts.MemoriesTable, s.opts.Namespace, "", err)
	}
	return nil
}

// begin does what every method does before its query: check ctx, then
// create the table if this is the first use.
func (s *Store) begin(ctx context.Context, op, key string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := s.objects.ensure(ctx, s.pool, s.objMig); err != nil {
		return s.fail(ctx, op, key, err)
	}
	return nil
}

func (s *Store) fail(ctx context.Context, op, key string, err error) error {
	if se := schemaNewer(ctx, s.pool, s.opts.Table, len(s.objMig.steps), err); se != nil {
		return opError(ctx, op, s.opts.Table, s.opts.Namespace, key, se)
	}
	if s.objects.forgetIfDropped(err) {
		// Re-creating the table resets the change count: make its rows
		// again before the next write.
		s.count.made.Store(false)
	}
	return opError(ctx, op, s.opts.Table, s.opts.Namespace, key, err)
}

// Get returns the object at key, or an error wrapping memorybank.ErrNotFound.
func (s *Store) Get(ctx context.Context, key string) (memorybank.Object, error) {
	if err := memorybank.ValidateKey(key); err != nil {
		return memorybank.Object{}, err
	}
	if err := s.begin(ctx, "get", key); err != nil {
		return memorybank.Object{}, err
	}
	var (
		data    []byte
		version int64
		modTime time.Time
	)
	err := s.pool.QueryRow(ctx, s.q.get, s.opts.Namespace, key).Scan(&data, &version, &modTime)
	if errors.Is(err, pgx.ErrNoRows) {
		return memorybank.Object{}, fmt.Errorf("%w: key %q (namespace %q)", memorybank.ErrNotFound, key, s.opts.Namespace)
	}
	if err != nil {
		return memorybank.Object{}, s.fail(ctx, "get", key, err)
	}
	if data == nil {
		data = []byte{}
	}
	return memorybank.Object{Key: key, Data: data, Version: formatVersion(version), ModTime: modTime}, nil
}

// Put writes data at key if cond holds, in one statement: an upsert when
// unconditional, INSERT ... ON CONFLICT DO NOTHING for IfAbsent, and
// UPDATE ... WHERE version = $v for IfVersion. When cond does not hold it
// returns an error wrapping memorybank.ErrConflict and changes nothing.
func (s *Store) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	if err := memorybank.ValidateKey(key); err != nil {
		return memorybank.Object{}, err
	}
	if err := cond.Validate(); err != nil {
		return memorybank.Object{}, err
	}
	if err := s.begin(ctx, "put", key); err != nil {
		return memorybank.Object{}, err
	}
	if data == nil {
		data = []byte{} // pgx sends a nil slice as NULL
	}
	var want int64
	if cond.IfVersion != "" {
		var ok bool
		if want, ok = parseVersion(cond.IfVersion); !ok {
			return memorybank.Object{}, s.conflict(ctx, key, cond)
		}
	}
	shard, err := s.countShard(ctx, "put", key)
	if err != nil {
		return memorybank.Object{}, err
	}
	q, inline := s.writeQueries()
	query, args := q.put, []any{s.opts.Namespace, key, data}
	switch {
	case cond.IfAbsent:
		query = q.putAbsent
	case cond.IfVersion != "":
		query, args = q.putIfVersion, append(args, want)
	}
	if q.counted {
		args = append(args, shard)
	}
	var (
		version           int64
		modTime           time.Time
		notified, counted bool
	)
	err = s.pool.QueryRow(ctx, query, args...).Scan(&version, &modTime, &notified, &counted)
	if errors.Is(err, pgx.ErrNoRows) {
		return memorybank.Object{}, s.conflict(ctx, key, cond)
	}
	if err != nil {
		return memorybank.Object{}, s.fail(ctx, "put", key, err)
	}
	s.notified(inline)
	if err := s.recounted(ctx, "put", key, shard, counted); err != nil {
		return memorybank.Object{}, err
	}
	return memorybank.Object{Key: key, Version: formatVersion(version), ModTime: modTime}, nil
}

// Delete removes key in one statement (DELETE ... WHERE version = $v when
// cond has IfVersion). It returns an error wrapping memorybank.ErrNotFound
// if the key holds nothing, and memorybank.ErrConflict if cond does not
// hold; which of the two is decided by reading the key again, on the failure
// path only.
func (s *Store) Delete(ctx context.Context, key string, cond memorybank.Condition) error {
	if err := memorybank.ValidateKey(key); err != nil {
		return err
	}
	if err := cond.Validate(); err != nil {
		return err
	}
	if err := s.begin(ctx, "delete", key); err != nil {
		return err
	}
	if cond.IfAbsent {
		// Never deletes anything: NotFound if absent, else Conflict.
		return s.classify(ctx, "delete", key, cond)
	}
	var want int64
	if cond.IfVersion != "" {
		var ok bool
		if want, ok = parseVersion(cond.IfVersion); !ok {
			return s.classify(ctx, "delete", key, cond)
		}
	}
	shard, err := s.countShard(ctx, "delete", key)
	if err != nil {
		return err
	}
	q, inline := s.writeQueries()
	query, args := q.del, []any{s.opts.Namespace, key}
	if cond.IfVersion != "" {
		query, args = q.delIfVersion, append(args, want)
	}
	if q.counted {
		args = append(args, shard)
	}
	var (
		n       int64
		counted bool
	)
	if err := s.pool.QueryRow(ctx, query, args...).Scan(&n, &counted); err != nil {
		return s.fail(ctx, "delete", key, err)
	}
	if n == 0 {
		return s.classify(ctx, "delete", key, cond)
	}
	s.notified(inline)
	return s.recounted(ctx, "delete", key, shard, counted)
}

// currentVersion reads the key's version; exists is false if it holds nothing.
func (s *Store) currentVersion(ctx context.Context, key string) (version string, exists bool, err error) {
	var v int64
	err = s.pool.QueryRow(ctx, s.q.version, s.opts.Namespace, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", false, nil
	}
	if err != nil {
		return "", false, err
	}
	return formatVersion(v), true, nil
}

// conflict builds the ErrConflict of a failed conditional Put, with the
// key's current state in the message so the caller knows what to do.
func (s *Store) conflict(ctx context.Context, key string, cond memorybank.Condition) error {
	version, exists, err := s.currentVersion(ctx, key)
	if err == nil {
		if cerr := cond.Check(key, exists, version); cerr != nil {
			return cerr
		}
	}
	// The key changed again since the write failed (or the read failed):
	// the write still did not happen.
	return fmt.Errorf("%w: key %q: the condition (IfAbsent %v, IfVersion %q) did not hold when the write ran; read the key again and retry",
		memorybank.ErrConflict, key, cond.IfAbsent, cond.IfVersion)
}

// classify explains why a Delete removed nothing: the key holds nothing
// (ErrNotFound) or cond does not hold (ErrConflict).
func (s *Store) classify(ctx context.Context, op, key string, cond memorybank.Condition) error {
	version, exists, err := s.currentVersion(ctx, key)
	if err != nil {
		return s.fail(ctx, op, key, err)
	}
	if !exists {
		return fmt.Errorf("%w: key %q (namespace %q)", memorybank.ErrNotFound, key, s.opts.Namespace)
	}
	if cerr := cond.Check(key, true, version); cerr != nil {
		return cerr
	}
	// Deleted and written again between the DELETE and the read: the
	// DELETE saw a different version, so it is still a conflict.
	return fmt.Errorf("%w: key %q: it was written again while being deleted (now at version %q); read it again and retry",
		memorybank.ErrConflict, key, version)
}

// List yields the objects whose key starts with prefix, sorted by key in
// byte order, without Data. It reads pages of up to 1000 rows, each an
// index range scan of the primary key, and holds no connection while the
// caller's loop body runs.
func (s *Store) List(ctx context.Context, prefix string) iter.Seq2[memorybank.Object, error] {
	return func(yield func(memorybank.Object, error) bool) {
		if err := s.begin(ctx, "list", prefix); err != nil {
			yield(memorybank.Object{}, err)
			return
		}
		lo, hi, hasHi, ok := prefixRange(prefix)
		if !ok {
			return
		}
		bounded := 0
		if hasHi {
			bounded = 1
		}
		after := 0
		for {
			page, err := s.listPage(ctx, s.q.list[after][bounded], lo, hi, hasHi)
			if err != nil {
				yield(memorybank.Object{}, s.fail(ctx, "list", prefix, err))
				return
			}
			for _, o := range page {
				if !strings.HasPrefix(o.Key, prefix) {
					continue // lo was cut short at an invalid byte of prefix
				}
				if err := ctx.Err(); err != nil {
					yield(memorybank.Object{}, err)
					return
				}
				if !yield(o, nil) {
					return
				}
			}
			if len(page) < listPageSize {
				return
			}
			lo, after = page[len(page)-1].Key, 1
		}
	}
}

func (s *Store) listPage(ctx context.Context, query, lo, hi string, hasHi bool) ([]memorybank.Object, error) {
	args := []any{s.opts.Namespace, lo}
	if hasHi {
		args = append(args, hi)
	}
	rows, err := s.pool.Query(ctx, query, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var (
		page    []memorybank.Object
		key     string
		version int64
		modTime time.Time
	)
	_, err = pgx.ForEachRow(rows, []any{&key, &version, &modTime}, func() error {
		page = append(page, memorybank.Object{Key: key, Version: formatVersion(version), ModTime: modTime})
		return nil
	})
	return page, err
}

// formatVersion renders a version: a positive integer from the table's
// sequence, in decimal. Versions never repeat within a table, so a key
// deleted and written again does not get back a version a caller may still
// hold.
func formatVersion(v int64) string { return strconv.FormatInt(v, 10) }

// parseVersion accepts only what formatVersion produces; anything else can
// match no stored version.
func parseVersion(s string) (int64, bool) {
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || formatVersion(v) != s {
		return 0, false
	}
	return v, true
}
