package pgstore_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// lockRecorder is a Store that remembers the names its Bank locks, so a
// test can take the same advisory lock from outside.
type lockRecorder struct {
	*pgstore.Store
	mu    sync.Mutex
	names []string
}

func (r *lockRecorder) LockKey(ctx context.Context, name string) (func(), error) {
	r.mu.Lock()
	r.names = append(r.names, name)
	r.mu.Unlock()
	return r.Store.LockKey(ctx, name)
}

// syncBuffer is a bytes.Buffer safe for the concurrent writes of a logger.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// intruderConn connects as a new role that has no rights on any table (the
// advisory lock functions need none), or as the test's own role when it
// may not create roles, and drops that role when the test ends.
func intruderConn(t *testing.T) *pgx.Conn {
	t.Helper()
	ctx := context.Background()
	cfg, err := pgx.ParseConfig(requireDSN(t))
	require.NoError(t, err)
	pool := testPool(t)
	role := "mnemobank_intruder_" + randomSuffix(t)
	_, err = pool.Exec(ctx, `CREATE ROLE `+pgx.Identifier{role}.Sanitize()+` LOGIN`)
	var pgErr *pgconn.PgError
	switch {
	case errors.As(err, &pgErr) && pgErr.Code == "42501": // insufficient_privilege
		t.Logf("cannot create a role (%v): the test's own role holds the lock instead", err)
	case err != nil:
		require.NoError(t, err)
	default:
		cfg.User = role
		t.Cleanup(func() {
			_, err := pool.Exec(ctx, `DROP ROLE IF EXISTS `+pgx.Identifier{role}.Sanitize())
			assert.NoError(t, err)
		})
	}
	conn, err := pgx.ConnectConfig(ctx, cfg)
	if err != nil && cfg.User == role {
		t.Logf("cannot connect as the new role (%v): the test's own role holds the lock instead", err)
		cfg, _ = pgx.ParseConfig(requireDSN(t))
		conn, err = pgx.ConnectConfig(ctx, cfg)
	}
	require.NoError(t, err)
	t.Cleanup(func() { _ = conn.Close(ctx) })
	return conn
}

// Another session, of a role with no rights on the tables, holds a
// document's advisory lock and never lets go (as would a stopped server):
// writes of that document through two Banks, from four goroutines at once,
// still finish (each waiting at most LockWait for the lock, then under
// compare-and-swap alone), none is lost, and the log says what happened.
// Before writes waited for the lock with no deadline, this test ran into
// its context's.
func TestWritesGoOnWhileAnotherSessionHoldsTheLock(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*failAfter)
	defer cancel()
	pool := testPool(t)
	opts := freshOptions(t, pool)
	var logs syncBuffer
	opts.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	opts.LockWait = 50 * time.Millisecond
	a, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	t.Cleanup(a.Close)
	b, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	t.Cleanup(b.Close)

	rec := &lockRecorder{Store: a}
	_, err = memorybank.New(rec, nil).Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeGlobal, Path: counterPath,
		Content: json.RawMessage(`{"count": 0, "by": []}`), Mode: memorybank.ModeCreate,
	})
	require.NoError(t, err)
	require.NotEmpty(t, rec.names, "the Bank locks the document it writes")
	k1, k2 := pgstore.LockKeys(a, rec.names[0])

	intruder := intruderConn(t)
	_, err = intruder.Exec(ctx, `SELECT pg_advisory_lock($1, $2)`, k1, k2)
	require.NoError(t, err)

	const writers, perWriter = 4, 10
	banks := []*memorybank.Bank{memorybank.New(a, nil), memorybank.New(b, nil)}
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			_, err := incrementCounter(ctx, banks[w%len(banks)], w, perWriter)
			assert.NoError(t, err, "writer %d", w)
		})
	}
	wg.Wait()

	count, by, err := readCounter(ctx, banks[0])
	require.NoError(t, err)
	assert.Equal(t, writers*perWriter, count, "no increment lost")
	assert.Len(t, by, writers*perWriter)
	t.Logf("the store logged:\n%s", logs.String())
	assert.Contains(t, logs.String(), "compare-and-swap", "the log says the writes went on without the lock")
	var holder string
	require.NoError(t, intruder.QueryRow(ctx, `SELECT current_user`).Scan(&holder))
	assert.Contains(t, logs.String(), holder, "the log names the role holding the lock")

	// The lock is free again: LockKey takes it (and waits for it) as before.
	_, err = intruder.Exec(ctx, `SELECT pg_advisory_unlock($1, $2)`, k1, k2)
	require.NoError(t, err)
	unlock, err := a.LockKey(ctx, rec.names[0])
	require.NoError(t, err)
	unlock()
}

// LockKey on a lock another session holds returns ErrLockTimeout after
// LockWait, not when the caller's context ends; a lock it holds itself
// makes the other Store wait as long as its context allows, but no longer
// than LockWait.
func TestLockKeyGivesUpAfterLockWait(t *testing.T) {
	ctx, cancel := context.WithTimeout(t.Context(), 3*failAfter)
	defer cancel()
	pool := testPool(t)
	opts := freshOptions(t, pool)
	opts.LockWait = 20 * time.Millisecond
	a, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	t.Cleanup(a.Close)
	b, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	t.Cleanup(b.Close)

	unlock, err := a.LockKey(ctx, "held.md")
	require.NoError(t, err)
	defer unlock() // Close waits for the locks held
	for range 3 {  // the first waits LockWait; the next ones try once
		_, err = b.LockKey(ctx, "held.md")
		require.ErrorIs(t, err, pgstore.ErrLockTimeout)
		require.NoError(t, ctx.Err())
	}
	unlock()
	unlock, err = b.LockKey(ctx, "held.md")
	require.NoError(t, err, "a free lock is granted")
	unlock()
}
