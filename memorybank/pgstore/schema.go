package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// SchemaTable is the table that records which migrations have been applied
// to each table pgstore manages, one row per table name. It is created, like
// the tables themselves, on first use.
const SchemaTable = "mnemobank_schema_versions"

// migrationLock is the key of the transaction-scoped advisory lock every
// migration holds, so that two processes starting at once against an empty
// database do not race on CREATE TABLE IF NOT EXISTS (which is not safe under
// concurrency: both can pass the existence check and one then fails on a
// duplicate catalog entry). The value is "agmem" in ASCII.
const migrationLock int64 = 0x61676d656d

// seqSuffix makes the name of a table's version sequence, changesSuffix
// the name of its change-count table.
// entriesSuffix the name of a memories table's table of appended entries.
const (
	seqSuffix     = "_version_seq"
	changesSuffix = "_changes"
	entriesSuffix = "_entries"
)

// maxTableLen keeps every derived name (the table plus seqSuffix) within
// PostgreSQL's 63-byte identifier limit, past which it silently truncates
// names (and two long names could then collide).
const maxTableLen = 63 - len(seqSuffix)

// validateTable checks a table name given in Options: a plain lower-case SQL
// identifier, so that it needs no quoting rules of its own and means the same
// thing quoted or not. To put the tables in another schema, set search_path
// in the DSN. Names pgstore uses for something else (SchemaTable, and any
// name ending in "_version_seq", the suffix of the sequences) are refused,
// so that creating the tables never collides with pgstore's own objects.
func validateTable(field, name string) error {
	bad := func(reason string) error {
		return &OptionError{Field: field, Value: name, Reason: reason}
	}
	switch {
	case name == "":
		return bad("is empty")
	case len(name) > maxTableLen:
		return bad(fmt.Sprintf("is %d bytes long, the maximum is %d", len(name), maxTableLen))
	case name[0] >= '0' && name[0] <= '9':
		return bad("starts with a digit")
	case name == SchemaTable:
		return bad("is the table where pgstore records schema versions; choose another name")
	case strings.HasSuffix(name, seqSuffix):
		return bad(fmt.Sprintf("ends in %q, which pgstore keeps for the sequences of its tables; choose another name", seqSuffix))
	case strings.HasSuffix(name, changesSuffix), strings.HasSuffix(name, entriesSuffix):
		return bad(fmt.Sprintf("ends in %q or %q, which pgstore keeps for tables of its own; choose another name", changesSuffix, entriesSuffix))
	}
	for i, r := range name {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_') {
			return bad(fmt.Sprintf("has %q at byte %d; use lower-case ASCII letters, digits and underscores (set search_path in the DSN to choose a schema)", r, i))
		}
	}
	return nil
}

// changeChannel is the LISTEN/NOTIFY channel of a table's writes: the name
// of its change-count table, which is a validated lower-case identifier, so
// it needs no quoting as a string literal either.
func changeChannel(table string) string { return table + changesSuffix }

// ident quotes a validated name for SQL text.
func ident(name string) string { return pgx.Identifier{name}.Sanitize() }

// migration is the ordered list of DDL statements that bring one table to
// each schema version: steps[i] brings it from version i to i+1. Applied
// steps are never edited; changes are new steps.
type migration struct {
	table string
	steps []string
}

func objectsMigration(table string) migration {
	t, seq := ident(table), ident(table+seqSuffix)
	return migration{table: table, steps: []string{
		// Version 1. COLLATE "C" makes key comparisons byte order, so the
		// primary key's btree both sorts List results and serves its prefix
		// range (key >= $p AND key < $next) whatever the database's locale.
		// IF NOT EXISTS on the sequence only: when the table is re-created
		// after being dropped (see apply), a sequence that survived it is
		// kept, so versions still never repeat.
		`CREATE SEQUENCE IF NOT EXISTS ` + seq + ` AS bigint;
		CREATE TABLE ` + t + ` (
			namespace text COLLATE "C" NOT NULL,
			key       text COLLATE "C" NOT NULL,
			data      bytea NOT NULL,
			version   bigint NOT NULL,
			mod_time  timestamptz NOT NULL,
			PRIMARY KEY (namespace, key)
		);
		ALTER SEQUENCE ` + seq + ` OWNED BY ` + t + `.version;`,
		// Version 2: the change count of each namespace (Store.Changes),
		// one row each, incremented in the statement of every Put and
		// Delete that changed a row. The epoch is random per row, so a
		// count that restarts (the row or table dropped) is never mistaken
		// for an old one. The count of an earlier objects table of this
		// name (dropped by hand, now created again) is deleted with it: a
		// reader that cached that table's keys must see a new epoch, not
		// the old count, or it would keep showing them.
		`CREATE TABLE IF NOT EXISTS ` + ident(table+changesSuffix) + ` (
			namespace text COLLATE "C" PRIMARY KEY,
			n         bigint NOT NULL,
			epoch     text NOT NULL DEFAULT md5(random()::text || clock_timestamp()::text)
		);
		DELETE FROM ` + ident(table+changesSuffix) + `;`,
		// Version 3: the count is split into shards (a writer adds to the
		// shard of its connection, pg_backend_pid() % changeShards), so
		// writers of different documents no longer queue on one row; a
		// reading sums the shards. The epoch is shard 0's, which is the
		// row version 2 had, so an upgrade does not look like a reset.
		// Idempotent: the table survives its objects table being dropped
		// and re-created (see apply).
		`ALTER TABLE ` + ident(table+changesSuffix) + ` ADD COLUMN IF NOT EXISTS shard integer NOT NULL DEFAULT 0;
		DO $$ DECLARE k text; n int; BEGIN
			SELECT conname, array_length(conkey, 1) INTO k, n FROM pg_constraint
				WHERE conrelid = '` + ident(table+changesSuffix) + `'::regclass AND contype = 'p';
			IF n = 1 THEN
				EXECUTE format('ALTER TABLE ` + ident(table+changesSuffix) + ` DROP CONSTRAINT %I', k);
				EXECUTE 'ALTER TABLE ` + ident(table+changesSuffix) + ` ADD PRIMARY KEY (namespace, shard)';
			END IF;
		END $$;`,
	}}
}

func memoriesMigration(table string) migration {
	t, seq := ident(table), ident(table+seqSuffix)
	return migration{table: table, steps: []string{
		`CREATE SEQUENCE IF NOT EXISTS ` + seq + ` AS bigint;
		CREATE TABLE ` + t + ` (
			namespace text COLLATE "C" NOT NULL,
			name      text COLLATE "C" NOT NULL,
			data      bytea NOT NULL,
			version   bigint NOT NULL,
			mod_time  timestamptz NOT NULL,
			PRIMARY KEY (namespace, name)
		);
		ALTER SEQUENCE ` + seq + ` OWNED BY ` + t + `.version;`,
		// Version 2: one row per appended entry, so an add writes one small
		// row instead of a new version of the whole file. A file is its
		// row's data (as of the last Save) followed by its entries in seq
		// order; size and tail (the last byte) let Append and Size work
		// without reading it. A Save folds the entries back into data.
		`ALTER TABLE ` + t + ` ADD COLUMN size bigint, ADD COLUMN tail bytea;
		UPDATE ` + t + ` SET size = octet_length(data), tail = substring(data FROM octet_length(data));
		ALTER TABLE ` + t + ` ALTER COLUMN size SET NOT NULL, ALTER COLUMN tail SET NOT NULL;
		CREATE TABLE IF NOT EXISTS ` + ident(table+entriesSuffix) + ` (
			namespace text COLLATE "C" NOT NULL,
			name      text COLLATE "C" NOT NULL,
			seq       bigint NOT NULL,
			data      bytea NOT NULL,
			PRIMARY KEY (namespace, name, seq)
		);`,
	}}
}

// apply brings m.table to the latest version in one transaction holding the
// migration advisory lock: idempotent, and safe when several processes
// (on several machines) start at once.
func (m migration) apply(ctx context.Context, pool *pgxpool.Pool) (err error) {
	tx, err := pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	if _, err = tx.Exec(ctx, `SELECT pg_advisory_xact_lock($1)`, migrationLock); err != nil {
		return err
	}
	if _, err = tx.Exec(ctx, `CREATE TABLE IF NOT EXISTS `+ident(SchemaTable)+` (
		table_name  text PRIMARY KEY,
		version     integer NOT NULL,
		migrated_at timestamptz NOT NULL DEFAULT now()
	)`); err != nil {
		return err
	}
	var have int
	err = tx.QueryRow(ctx, `SELECT version FROM `+ident(SchemaTable)+` WHERE table_name = $1`, m.table).Scan(&have)
	if errors.Is(err, pgx.ErrNoRows) {
		have, err = 0, nil
	}
	if err != nil {
		return err
	}
	if have > len(m.steps) {
		return &SchemaError{Table: m.table, Have: have, Want: len(m.steps)}
	}
	// The bookkeeping row and the table can disagree: someone dropped the
	// table (the row stays), or a table of that name was made by something
	// else (no row). to_regclass resolves the name through search_path, as
	// the queries do.
	var exists bool
	if err = tx.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL`, ident(m.table)).Scan(&exists); err != nil {
		return err
	}
	switch {
	case have > 0 && !exists:
		have = 0 // dropped: create it again from the first step
	case have == 0 && exists:
		return fmt.Errorf("table %s already exists but was not created by pgstore (it has no row in %s): set Options.Table or Options.MemoriesTable to another name, or drop that table if it is a leftover",
			m.table, SchemaTable)
	}
	for v := have; v < len(m.steps); v++ {
		if _, err = tx.Exec(ctx, m.steps[v]); err != nil {
			return fmt.Errorf("migrating table %s to schema version %d: %w", m.table, v+1, err)
		}
	}
	if have < len(m.steps) {
		if _, err = tx.Exec(ctx, `INSERT INTO `+ident(SchemaTable)+` (table_name, version) VALUES ($1, $2)
			ON CONFLICT (table_name) DO UPDATE SET version = EXCLUDED.version, migrated_at = now()`,
			m.table, len(m.steps)); err != nil {
			return err
		}
		// Processes of older releases still running fail on their next
		// statement: their versions' markers are gone.
		for v := 1; v < len(m.steps); v++ {
			if _, err = tx.Exec(ctx, `DROP FUNCTION IF EXISTS `+ident(schemaMarker(m.table, v))+`()`); err != nil {
				return err
			}
		}
	}
	if _, err = tx.Exec(ctx, createSchemaMarker(m.table, len(m.steps))); err != nil {
		return err
	}
	return tx.Commit(ctx)
}

// schemaOnce runs a migration once per process, on first use. Unlike
// sync.Once it does not remember a failure: a cancelled context or a
// database that was down is retried on the next call.
type schemaOnce struct {
	done atomic.Bool
	mu   sync.Mutex
}

func (o *schemaOnce) ensure(ctx context.Context, pool *pgxpool.Pool, m migration) error {
	if o.done.Load() {
		return nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.done.Load() {
		return nil
	}
	if err := m.apply(ctx, pool); err != nil {
		return err
	}
	o.done.Store(true)
	return nil
}

// undefinedTable is the SQLSTATE of a query on a table that does not
// exist, undefinedFunction of a call of a function that does not.
const (
	undefinedTable    = "42P01"
	undefinedFunction = "42883"
)

// forgetIfDropped makes the next ensure run the migration again when err
// says the table (or its schema marker) does not exist (someone
// dropped it while this process ran), so the store re-creates it instead of
// failing until restarted; it reports whether it did.
func (o *schemaOnce) forgetIfDropped(err error) bool {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) && (pgErr.Code == undefinedTable || pgErr.Code == undefinedFunction) {
		o.done.Store(false)
		return true
	}
	return false
}

// guarded is sqlf with {check} replaced by the schema guard of table at
// version (see schemaGuard).
func guarded(template, table string, version int) string {
	return strings.ReplaceAll(sqlf(template, table), "{check}", schemaGuard(table, version))
}

// sqlf replaces {t} and {seq} in a query template with the quoted table and
// sequence names; done once per Store, not per call.
func sqlf(template, table string) string {
	return strings.NewReplacer("{t}", ident(table), "{seq}", "'"+ident(table+seqSuffix)+"'", "{c}", ident(table+changesSuffix), "{e}", ident(table+entriesSuffix), "{n}", "'"+changeChannel(table)+"'").Replace(template)
}
