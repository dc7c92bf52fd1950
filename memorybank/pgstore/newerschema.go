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
// or fail with whatever SQL error the change causes. So every statement a
// Store or MemoriesStore runs checks, in the statement, that its table's
// row in SchemaTable is not newer than the version this pgstore knows
// (schemaCheckFunc, one primary-key lookup); a newer version fails the
// statement with SQLSTATE schemaNewerCode before it reads or writes. A
// statement that fails before that check runs (the newer schema renamed a
// column it plans with) reads the row on its error path. Either way the
// caller gets a *SchemaError wrapping ErrSchemaNewer, on the first
// statement after the migration committed.
//
// schemaCheckFunc's contract is fixed for every release: (table name,
// version known) -> true, or that error when the table's recorded version
// is greater. A release that needs another check adds another function.

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

// schemaCheckFunc is the SQL function every statement calls; schemaNewerCode
// the SQLSTATE it raises, with the recorded version as the DETAIL.
const (
	schemaCheckFunc = "mnemobank_schema_check"
	schemaNewerCode = "MB001"
)

// createSchemaCheck creates schemaCheckFunc unless it exists (so a role
// without CREATE can use the function another made, and an older release
// never replaces a newer body). Run under the migration lock.
var createSchemaCheck = `DO $do$ BEGIN
	IF to_regprocedure('` + schemaCheckFunc + `(text, integer)') IS NULL THEN
		CREATE FUNCTION ` + schemaCheckFunc + `(t text, v integer) RETURNS boolean
		LANGUAGE plpgsql STABLE AS $f$
		DECLARE have integer;
		BEGIN
			SELECT version INTO have FROM ` + SchemaTable + ` WHERE table_name = t;
			IF have > v THEN
				RAISE EXCEPTION USING ERRCODE = '` + schemaNewerCode + `', DETAIL = have::text,
					MESSAGE = format('table %s has schema version %s, newer than the %s this client knows', t, have, v);
			END IF;
			RETURN true;
		END $f$;
	END IF;
END $do$`

// schemaGuard is the condition a statement on table adds to its WHERE
// clause: a constant one (no column in it), so PostgreSQL evaluates it
// once per execution, before any row, even when no row matches.
func schemaGuard(table string, version int) string {
	return schemaCheckFunc + `('` + table + `', ` + strconv.Itoa(version) + `)`
}

// schemaNewer turns the error of a statement on table into a *SchemaError
// when the table's schema is newer than version: the guard's own error, or
// any other server error when the recorded version says so (read again
// here, on the error path only). It returns nil otherwise.
func schemaNewer(ctx context.Context, pool *pgxpool.Pool, table string, version int, err error) *SchemaError {
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) {
		return nil
	}
	if pgErr.Code == schemaNewerCode {
		have, _ := strconv.Atoi(pgErr.Detail)
		return &SchemaError{Table: table, Have: have, Want: version}
	}
	if ctx.Err() != nil {
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
