// Package pgtokens keeps tokens (see package tokens) in a table of a
// PostgreSQL database, one set per namespace, so every server of a
// namespace sees a token created or revoked on any of them. It stores only
// each token's hash. It does I/O only through the pgx pool it is given.
package pgtokens

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
)

// Table is the table of the tokens.
const Table = "mnemobank_tokens"

const schema = `CREATE TABLE IF NOT EXISTS ` + Table + ` (
	namespace text NOT NULL,
	name      text NOT NULL,
	scope     smallint NOT NULL,
	hash      text NOT NULL,
	created   timestamptz NOT NULL,
	last_used timestamptz,
	expires   timestamptz,
	revoked   timestamptz,
	PRIMARY KEY (namespace, name)
);
CREATE UNIQUE INDEX IF NOT EXISTS ` + Table + `_hash ON ` + Table + ` (hash);`

// Store is the tokens of one namespace.
type Store struct {
	pool      *pgxpool.Pool
	namespace string
	once      sync.Mutex
	ready     bool
}

var _ tokens.Store = (*Store)(nil)

// New returns the tokens of namespace in the database of pool; the table
// is created on first use.
func New(pool *pgxpool.Pool, namespace string) *Store {
	return &Store{pool: pool, namespace: namespace}
}

func (s *Store) ensure(ctx context.Context) error {
	s.once.Lock()
	defer s.once.Unlock()
	if s.ready {
		return nil
	}
	// Two servers creating the table at once would race on the catalog;
	// a transaction-scoped advisory lock orders them.
	tx, err := s.pool.Begin(ctx)
	if err != nil {
		return err
	}
	defer tx.Rollback(ctx)
	if _, err := tx.Exec(ctx, `SELECT pg_advisory_xact_lock(hashtext('`+Table+`'))`); err != nil {
		return err
	}
	if _, err := tx.Exec(ctx, schema); err != nil {
		return fmt.Errorf("pgtokens: creating %s: %w", Table, err)
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	s.ready = true
	return nil
}

func nullTime(t time.Time) any {
	if t.IsZero() {
		return nil
	}
	return t
}

func (s *Store) Create(ctx context.Context, t tokens.Token) error {
	if err := tokens.ValidateName(t.Name); err != nil {
		return err
	}
	if err := s.ensure(ctx); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `INSERT INTO `+Table+` (namespace, name, scope, hash, created, last_used, expires, revoked)
		VALUES ($1, $2, $3, $4, $5, NULL, $6, NULL)
		ON CONFLICT (namespace, name) DO UPDATE SET scope = EXCLUDED.scope, hash = EXCLUDED.hash, created = EXCLUDED.created,
			last_used = NULL, expires = EXCLUDED.expires, revoked = NULL
		WHERE `+Table+`.revoked IS NOT NULL`,
		s.namespace, t.Name, int16(t.Scope), t.Hash, t.Created, nullTime(t.Expires))
	if err != nil {
		return fmt.Errorf("pgtokens: creating %q: %w", t.Name, err)
	}
	if tag.RowsAffected() == 0 {
		return fmt.Errorf("%w: %q (revoke it first: mnemobank token revoke %s)", tokens.ErrExists, t.Name, t.Name)
	}
	return nil
}

const columns = `name, scope, hash, created, last_used, expires, revoked`

func scan(row pgx.Row) (tokens.Token, error) {
	var t tokens.Token
	var scope int16
	var last, exp, rev *time.Time
	if err := row.Scan(&t.Name, &scope, &t.Hash, &t.Created, &last, &exp, &rev); err != nil {
		return t, err
	}
	t.Scope = tokens.Scope(scope)
	for _, p := range []struct {
		dst *time.Time
		src *time.Time
	}{{&t.LastUsed, last}, {&t.Expires, exp}, {&t.Revoked, rev}} {
		if p.src != nil {
			*p.dst = p.src.UTC()
		}
	}
	t.Created = t.Created.UTC()
	return t, nil
}

// Lookup finds the token by its hash through the table's index. The hash
// is of a 256-bit random token, so how long the index takes to answer
// tells a guesser nothing usable.
func (s *Store) Lookup(ctx context.Context, hash string) (tokens.Token, error) {
	if err := s.ensure(ctx); err != nil {
		return tokens.Token{}, err
	}
	t, err := scan(s.pool.QueryRow(ctx, `SELECT `+columns+` FROM `+Table+` WHERE namespace = $1 AND hash = $2`, s.namespace, hash))
	if errors.Is(err, pgx.ErrNoRows) {
		return t, tokens.ErrNotFound
	}
	return t, err
}

func (s *Store) List(ctx context.Context) ([]tokens.Token, error) {
	if err := s.ensure(ctx); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, `SELECT `+columns+` FROM `+Table+` WHERE namespace = $1 ORDER BY name`, s.namespace)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []tokens.Token
	for rows.Next() {
		t, err := scan(rows)
		if err != nil {
			return nil, err
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *Store) Revoke(ctx context.Context, name string, at time.Time) error {
	if err := s.ensure(ctx); err != nil {
		return err
	}
	tag, err := s.pool.Exec(ctx, `UPDATE `+Table+` SET revoked = COALESCE(revoked, $3) WHERE namespace = $1 AND name = $2`, s.namespace, name, at)
	if err != nil {
		return err
	}
	if tag.RowsAffected() == 0 {
		return s.notFound(ctx, name)
	}
	return nil
}

func (s *Store) Touch(ctx context.Context, name string, at time.Time) error {
	if err := s.ensure(ctx); err != nil {
		return err
	}
	_, err := s.pool.Exec(ctx, `UPDATE `+Table+` SET last_used = $3 WHERE namespace = $1 AND name = $2 AND (last_used IS NULL OR last_used < $3)`,
		s.namespace, name, at)
	return err
}

func (s *Store) notFound(ctx context.Context, name string) error {
	ts, err := s.List(ctx)
	if err != nil {
		return fmt.Errorf("%w: %q", tokens.ErrNotFound, name)
	}
	names := make([]string, 0, len(ts))
	for _, t := range ts {
		names = append(names, t.Name)
	}
	return fmt.Errorf("%w: %q in namespace %q; the tokens are %q", tokens.ErrNotFound, name, s.namespace, names)
}
