package pgstore

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
)

// During a rolling upgrade a server of the previous release keeps running
// while a newer one migrates the tables. Its statements may still run on
// the new schema (then it would read and write as if nothing had changed)
// or fail with whatever SQL error the change causes. So the schema version
// of a table is also in its statements: each calls the table's schema
// marker, a function named after the table and the version
// ("<table>_schema_v3()", see schemaMarker), which the migration to a
// newer version drops in its transaction. The marker is an IMMUTABLE SQL
// function returning true, so PostgreSQL folds it away when it plans the
// statement (it costs nothing per execution) but remembers the plan
// depends on it: once it is dropped, the next execution of a statement
// naming it, prepared or not, fails with undefined_function before it
// reads or writes. On that error (or any other server error, such as a
// column the new schema renamed) the Store reads the table's version in
// SchemaTable, and when it is newer returns a *SchemaError wrapping
// ErrSchemaNewer: on the first statement after the migration committed.
//
// The rule is fixed for every release: a migration of a table to version
// N+1 drops the markers of versions up to N and creates the marker of N+1.

// ErrSchemaNewer is wrapped by every *SchemaError.
var ErrSchemaNewer = errors.New("pgstore: the table's schema is newer than this pgstore")

// SchemaError reports a table migrated by a newer pgstore than this one:
// this process refuses to read or write it, rather than serving what the
// newer schema no longer means. Upgrade it to the release that migrated
// the table.
type SchemaError struct {
	Table string
	Have  int   // the version recorded in SchemaTable
	Want  int   // the latest version this pgstore knows
	Err   error // the statement's error, if it failed with another one
}

func (e *SchemaError) Error() string {
	return fmt.Sprintf("%s: table %s has schema version %d, and this pgstore knows versions up to %d: a newer release migrated it; upgrade this process (github.com/mnemobank/mnemobank/memorybank/pgstore) to that release, it refuses to read or write the table meanwhile",
		ErrSchemaNewer, e.Table, e.Have, e.Want)
}

// Is reports whether target is ErrSchemaNewer.
func (e *SchemaError) Is(target error) bool { return target == ErrSchemaNewer }

// Unwrap returns the statement's own error, if any.
func (e *SchemaError) Unwrap() error { return e.Err }

// schemaMarker is the name of the function that says table is at version.
// Table names are at most maxTableLen (51) bytes, so the name fits in
// PostgreSQL's 63.
func schemaMarker(table string, version int) string {
	return table + "_schema_v" + strconv.Itoa(version)
}

// createSchemaMarker creates the marker of table at version unless it
// exists (so that a role without CREATE can use the marker another made).
func createSchemaMarker(table string, version int) string {
	m := ident(schemaMarker(table, version))
	return `DO $do$ BEGIN
	IF to_regprocedure('` + m + `()') IS NULL THEN
		CREATE FUNCTION ` + m + `() RETURNS boolean LANGUAGE sql IMMUTABLE AS 'SELECT true';
	END IF;
END $do$`
}

// schemaGuard is the condition a statement on table adds to its WHERE
// clause: the call of the table's schema marker.
func schemaGuard(table string, version int) string {
	return ident(schemaMarker(table, version)) + `()`
}

// schemaNewer turns a server error of a statement on table into a
// *SchemaError when the table's recorded version (read here, on the error
// path only) is newer than version. It returns nil otherwise.
func schemaNewer(ctx context.Context, pool *pgxpool.Pool, table string, version int, err error) *SchemaError {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || ctx.Err() != nil {
		return nil
	}
	var have int
	qerr := pool.QueryRow(ctx, `SELECT version FROM `+ident(SchemaTable)+` WHERE table_name = $1`, table).Scan(&have)
	if qerr != nil && !errors.Is(qerr, pgx.ErrNoRows) {
		return nil
	}
	if have > version {
		return &SchemaError{Table: table, Have: have, Want: version, Err: err}
	}
	return nil
}
