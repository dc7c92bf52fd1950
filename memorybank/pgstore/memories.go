package pgstore

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// MemoriesStore is a memories.Store, memories.Appender,
// memories.CondAppender and memories.Sizer holding one memories file as one
// row (namespace, name) of the memories table, so the agents of a team share
// learned memories through the same database as their memory bank.
//
// Save is a compare-and-swap in one statement. Append is one statement too,
// UPDATE ... SET data = data || entry (an upsert when the file does not exist
// yet), so adding a memory sends only the entry over the network however
// large the file is, and concurrent Appends from any number of machines
// never lose one another. (The server still writes a new copy of the row, as
// PostgreSQL does for every update.) AppendIf (memories.CondAppender) is
// Append in the same transaction as a check of the row's version, taken
// under the row's lock, so nothing can be written between the two.
type MemoriesStore struct {
	pool  *pgxpool.Pool
	table string
	ns    string
	name  string
	once  *schemaOnce
	mig   migration
	q     memoriesQueries
}

var (
	_ memories.Store        = (*MemoriesStore)(nil)
	_ memories.Appender     = (*MemoriesStore)(nil)
	_ memories.CondAppender = (*MemoriesStore)(nil)
	_ memories.Sizer        = (*MemoriesStore)(nil)
	_ memories.Peeker       = (*MemoriesStore)(nil)
)

type memoriesQueries struct {
	load, peek, size, saveNew, saveIfVersion, lockTail, bump, addEntry string
}

// A file is its row's data followed by its entries (see the migration):
// load concatenates them; a Save replaces data and removes the entries in
// one statement; an Append locks the row, then bumps its size, tail and
// version and inserts one entry row, in one transaction.
func newMemoriesQueries(table string) memoriesQueries {
	version := len(memoriesMigration(table).steps)
	sqlf := func(template, table string) string { return guarded(template, table, version) }
	return memoriesQueries{
		load: sqlf(`SELECT m.data || COALESCE((SELECT string_agg(e.data, ''::bytea ORDER BY e.seq) FROM {e} e
				WHERE e.namespace = $1 AND e.name = $2), ''::bytea), m.version
			FROM {t} m WHERE m.namespace = $1 AND m.name = $2 AND {check}`, table),
		peek: sqlf(`SELECT CASE WHEN octet_length(m.data) >= $3 THEN substring(m.data FROM 1 FOR $3)
				ELSE substring(m.data || COALESCE((SELECT string_agg(e.data, ''::bytea ORDER BY e.seq) FROM {e} e
					WHERE e.namespace = $1 AND e.name = $2), ''::bytea) FROM 1 FOR $3) END
			FROM {t} m WHERE m.namespace = $1 AND m.name = $2 AND {check}`, table),
		size: sqlf(`SELECT size FROM {t} WHERE namespace = $1 AND name = $2 AND {check}`, table),
		saveNew: sqlf(`WITH w AS (INSERT INTO {t} (namespace, name, data, size, tail, version, mod_time)
				VALUES ($1, $2, $3::bytea, octet_length($3::bytea), substring($3::bytea FROM octet_length($3::bytea)), nextval({seq}), clock_timestamp())
				ON CONFLICT (namespace, name) DO NOTHING
				RETURNING version),
			d AS (DELETE FROM {e} WHERE namespace = $1 AND name = $2 AND EXISTS (SELECT 1 FROM w))
			SELECT version FROM w WHERE {check}`, table),
		saveIfVersion: sqlf(`WITH w AS (UPDATE {t} SET data = $3::bytea, size = octet_length($3::bytea), tail = substring($3::bytea FROM octet_length($3::bytea)),
				version = nextval({seq}), mod_time = clock_timestamp()
				WHERE namespace = $1 AND name = $2 AND version = $4
				RETURNING version),
			d AS (DELETE FROM {e} WHERE namespace = $1 AND name = $2 AND EXISTS (SELECT 1 FROM w))
			SELECT version FROM w WHERE {check}`, table),
		lockTail: sqlf(`SELECT size, tail, version FROM {t} WHERE namespace = $1 AND name = $2 AND {check} FOR UPDATE`, table),
		bump: sqlf(`UPDATE {t} SET size = size + octet_length($3::bytea), tail = substring($3::bytea FROM octet_length($3::bytea)),
				version = nextval({seq}), mod_time = clock_timestamp()
			WHERE namespace = $1 AND name = $2 RETURNING size, version`, table),
		addEntry: sqlf(`INSERT INTO {e} (namespace, name, seq, data) VALUES ($1, $2, $3, $4)`, table),
	}
}

// Memories returns the memories file called name in this Store's namespace
// and memories table (Options.MemoriesTable). name follows the rules of
// memorybank.ValidateKey, for example "memories.md"; an invalid name gives
// an error wrapping memorybank.ErrInvalidKey.
func (s *Store) Memories(name string) (*MemoriesStore, error) {
	if err := memorybank.ValidateKey(name); err != nil {
		return nil, fmt.Errorf("pgstore: memories file name: %w", err)
	}
	return &MemoriesStore{
		pool: s.pool, table: s.opts.MemoriesTable, ns: s.opts.Namespace, name: name,
		once: &s.memories, mig: s.memMig, q: newMemoriesQueries(s.opts.MemoriesTable),
	}, nil
}

// NewMemoriesStore returns the memories file called name in the namespace
// and memories table given by opts, using pool, which the caller keeps
// owning. The table is created on first use.
func NewMemoriesStore(pool *pgxpool.Pool, name string, opts *Options) (*MemoriesStore, error) {
	s, err := New(pool, opts)
	if err != nil {
		return nil, err
	}
	return s.Memories(name)
}

// Name returns the memories file's name.
func (m *MemoriesStore) Name() string { return m.name }

func (m *MemoriesStore) begin(ctx context.Context, op string) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := m.once.ensure(ctx, m.pool, m.mig); err != nil {
		return m.fail(ctx, op, err)
	}
	return nil
}

func (m *MemoriesStore) fail(ctx context.Context, op string, err error) error {
	if se := schemaNewer(ctx, m.pool, m.table, len(m.mig.steps), err); se != nil {
		return opError(ctx, op, m.table, m.ns, m.name, se)
	}
	m.once.forgetIfDropped(err)
	return opError(ctx, op, m.table, m.ns, m.name, err)
}

// Load returns the file's bytes and version; (nil, "", nil) if it does not
// exist.
func (m *MemoriesStore) Load(ctx context.Context) ([]byte, string, error) {
	if err := m.begin(ctx, "load"); err != nil {
		return nil, "", err
	}
	var (
		data    []byte
		version int64
	)
	err := m.pool.QueryRow(ctx, m.q.load, m.ns, m.name).Scan(&data, &version)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, "", nil
	}
	if err != nil {
		return nil, "", m.fail(ctx, "load", err)
	}
	if data == nil {
		data = []byte{}
	}
	return data, formatVersion(version), nil
}

// Size returns the file's size in bytes, 0 if it does not exist, in one
// query that does not send the data (memories.Sizer): MemoryManager uses it
// to enforce MaxBytes before an Append.
func (m *MemoriesStore) Size(ctx context.Context) (int64, error) {
	if err := m.begin(ctx, "size"); err != nil {
		return 0, err
	}
	var size int64
	err := m.pool.QueryRow(ctx, m.q.size, m.ns, m.name).Scan(&size)
	if errors.Is(err, pgx.ErrNoRows) {
		return 0, nil
	}
	if err != nil {
		return 0, m.fail(ctx, "size", err)
	}
	return size, nil
}

// Save replaces the file if its version is ifVersion ("" = it must not
// exist), in one statement; otherwise it returns an error wrapping
// memories.ErrConflict and changes nothing.
func (m *MemoriesStore) Save(ctx context.Context, data []byte, ifVersion string) (string, error) {
	if err := m.begin(ctx, "save"); err != nil {
		return "", err
	}
	if data == nil {
		data = []byte{}
	}
	var row pgx.Row
	if ifVersion == "" {
		row = m.pool.QueryRow(ctx, m.q.saveNew, m.ns, m.name, data)
	} else {
		want, ok := parseVersion(ifVersion)
		if !ok {
			return "", m.conflict(ifVersion)
		}
		row = m.pool.QueryRow(ctx, m.q.saveIfVersion, m.ns, m.name, data, want)
	}
	var version int64
	err := row.Scan(&version)
	if errors.Is(err, pgx.ErrNoRows) {
		return "", m.conflict(ifVersion)
	}
	if err != nil {
		return "", m.fail(ctx, "save", err)
	}
	return formatVersion(version), nil
}

func (m *MemoriesStore) conflict(ifVersion string) error {
	if ifVersion == "" {
		return fmt.Errorf("%w: memories file %q (namespace %q) already exists; load it and save with its version",
			memories.ErrConflict, m.name, m.ns)
	}
	return fmt.Errorf("%w: memories file %q (namespace %q) is no longer at version %q (written or removed since it was loaded); load it again and retry",
		memories.ErrConflict, m.name, m.ns, ifVersion)
}

// Append adds entry at the end of the file in one statement, writing header
// first if the file is missing or empty and a newline first if the file does
// not end with one. It returns the file's new size in bytes and version.
func (m *MemoriesStore) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	if err := m.begin(ctx, "append"); err != nil {
		return 0, "", err
	}
	for {
		size, version, again, err := m.appendOnce(ctx, header, entry, nil)
		if err != nil {
			return 0, "", m.fail(ctx, "append", err)
		}
		if !again {
			return size, formatVersion(version), nil
		}
	}
}

// AppendIf is Append done only if the file's version is still ifVersion
// ("" = the file must not exist), checked under the row's lock in the
// append's own transaction; otherwise it returns an error wrapping
// memories.ErrConflict and writes nothing (memories.CondAppender).
func (m *MemoriesStore) AppendIf(ctx context.Context, header, entry []byte, ifVersion string) (int64, string, error) {
	if err := m.begin(ctx, "append"); err != nil {
		return 0, "", err
	}
	want := int64(0) // the file must be missing
	if ifVersion != "" {
		var ok bool
		if want, ok = parseVersion(ifVersion); !ok {
			return 0, "", m.conflict(ifVersion)
		}
	}
	size, version, conflict, err := m.appendOnce(ctx, header, entry, &want)
	if err != nil {
		return 0, "", m.fail(ctx, "append", err)
	}
	if conflict {
		return 0, "", m.conflict(ifVersion)
	}
	return size, formatVersion(version), nil
}

// appendOnce appends in one transaction: the whole file as the row when
// there is none (again when another writer created it first), else one
// entry row holding what appendEntry would add to the file. With ifVersion
// it appends only if the row's version is *ifVersion (0: there is no row),
// and again then means a conflict, with nothing written.
func (m *MemoriesStore) appendOnce(ctx context.Context, header, entry []byte, ifVersion *int64) (size, version int64, again bool, err error) {
	tx, err := m.pool.Begin(ctx)
	if err != nil {
		return 0, 0, false, err
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	var tail []byte
	err = tx.QueryRow(ctx, m.q.lockTail, m.ns, m.name).Scan(&size, &tail, &version)
	if errors.Is(err, pgx.ErrNoRows) {
		if ifVersion != nil && *ifVersion != 0 {
			return 0, 0, true, nil // removed since it was read
		}
		whole := appendEntry(nil, header, entry)
		err = tx.QueryRow(ctx, m.q.saveNew, m.ns, m.name, whole).Scan(&version) // the file, created as a whole
		if errors.Is(err, pgx.ErrNoRows) {
			return 0, 0, true, nil // created meanwhile: append to it, or a conflict
		}
		if err != nil {
			return 0, 0, false, err
		}
		return int64(len(whole)), version, false, tx.Commit(ctx)
	}
	if err != nil {
		return 0, 0, false, err
	}
	if ifVersion != nil && version != *ifVersion {
		return 0, 0, true, nil // written since it was read; the row stays locked until the rollback
	}
	var piece []byte
	if size == 0 {
		piece = append(piece, header...)
	} else {
		piece = append(piece, tail...) // stands for the file's end below
	}
	piece = appendEntry(piece, header, entry)
	if size > 0 {
		piece = piece[len(tail):]
	}
	if err := tx.QueryRow(ctx, m.q.bump, m.ns, m.name, piece).Scan(&size, &version); err != nil {
		return 0, 0, false, err
	}
	if _, err := tx.Exec(ctx, m.q.addEntry, m.ns, m.name, version, piece); err != nil {
		return 0, 0, false, err
	}
	return size, version, false, tx.Commit(ctx)
}

func appendEntry(data, header, entry []byte) []byte {
	if len(data) == 0 {
		data = append(data, header...)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	data = append(data, entry...)
	if data == nil {
		data = []byte{}
	}
	return data
}

// Peek returns the first n bytes of the file (nil when it is missing), so
// Manager.Add learns the file's format without transferring it.
func (m *MemoriesStore) Peek(ctx context.Context, n int) ([]byte, error) {
	if n < 0 {
		return nil, fmt.Errorf("%w: Peek of %d bytes: n must be 0 or more", memories.ErrInvalid, n)
	}
	if err := m.begin(ctx, "peek"); err != nil {
		return nil, err
	}
	var head []byte
	err := m.pool.QueryRow(ctx, m.q.peek, m.ns, m.name, n).Scan(&head)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, m.fail(ctx, "peek", err)
	}
	if head == nil {
		head = []byte{}
	}
	return head, nil
}
