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
// row in SchemaTable is not newer than the version this pgstore knows (see
// schemaGuard: a subquery PostgreSQL runs once per execution, before any
// row); a newer version fails the statement with SQLSTATE schemaNewerCode
// (raised by schemaRefuseFunc) before it reads or writes. A statement that
// fails before that check runs (the newer schema renamed a column it plans
// with) reads the row on its error path. Either way the caller gets a
// *SchemaError wrapping ErrSchemaNewer, on the first statement after the
// migration committed.
//
// schemaRefuseFunc's contract is fixed for every release: (table name,
// version recorded, version known) raises schemaNewerCode with the
// recorded version as its DETAIL. A release that needs another check adds
// another function.

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

// schemaRefuseFunc is the SQL function a statement calls to fail when its
// table's schema is newer; schemaNewerCode the SQLSTATE it raises.
const (
	schemaRefuseFunc = "mnemobank_schema_refuse"
	schemaNewerCode  = "MB001"
)

// createSchemaRefuse creates schemaRefuseFunc unless it exists (so a role
// without CREATE can use the function another made, and an older release
// never replaces a newer body). Run under the migration lock. STABLE, so
// that PostgreSQL may call it inside a read-only statement.
var createSchemaRefuse = `DO $do$ BEGIN
	IF to_regprocedure('` + schemaRefuseFunc + `(text, integer, integer)') IS NULL THEN
		CREATE FUNCTION ` + schemaRefuseFunc + `(t text, have integer, v integer) RETURNS boolean
		LANGUAGE plpgsql STABLE AS $f$
		BEGIN
			RAISE EXCEPTION USING ERRCODE = '` + schemaNewerCode + `', DETAIL = have::text,
				MESSAGE = format('table %s has schema version %s, newer than the %s this client knows', t, have, v);
		END $f$;
	END IF;
END $do$`

// schemaGuard is the condition a statement on table adds to its WHERE
// clause. It refers to no column of the statement, so PostgreSQL runs the
// subquery once per execution (an InitPlan: one lookup in SchemaTable)
// and tests it before any row (a One-Time Filter), even when no row
// matches; the function is called only when the version is newer. A
// missing row passes: the migration deals with that.
func schemaGuard(table string, version int) string {
	v := strconv.Itoa(version)
	return `(SELECT CASE WHEN version > ` + v + ` THEN ` + schemaRefuseFunc + `('` + table + `', version, ` + v + `) ELSE true END
		FROM ` + SchemaTable + ` WHERE table_name = '` + table + `') IS NOT FALSE`
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
