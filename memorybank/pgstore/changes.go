package pgstore

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"

	"github.com/mnemobank/mnemobank/memorybank"
)

// The change count of a namespace is changeShards rows of "<table>_changes"
// (namespace, shard, n, epoch); the count is the sum of n, the epoch shard
// 0's. A write adds one to a shard in its own statement, with a plain
// UPDATE of a row that exists: an upsert (INSERT ... ON CONFLICT DO UPDATE)
// there cost writers of distinct documents 0.7x of their throughput at 16
// clients, the UPDATE about 0.85x. So a Store makes its namespace's rows
// once, before its first write, and spreads its concurrent writes over the
// shards in turn, so that two of them never wait for each other's row (the
// row lock is held until commit). A write whose UPDATE found no row (the
// rows were deleted since: a reset, which changes the epoch) is counted by
// a second statement at once.

// changeShards is how many rows a namespace's change count is split into.
const changeShards = 64

// counter is the per-Store state of the change count.
type counter struct {
	next atomic.Uint32 // the shard of the next write is next % changeShards
	made atomic.Bool   // the namespace's rows were made by this Store
	mu   sync.Mutex    // held while making them, so one writer does
}

// countChange is the CTE that adds one to shard $param of the namespace's
// change count when the write CTE w changed a row; the write's final SELECT
// reads whether it found its row (see counted).
func countChange(param int) string {
	return `, c AS (UPDATE {c} SET n = n + 1 WHERE namespace = $1 AND shard = $` + strconv.Itoa(param) + `
			AND EXISTS (SELECT FROM w) RETURNING 1) `
}

// countedColumn is the column a write's final SELECT adds to say whether
// the change was counted; without the count (the benchmark's variants) it
// is always true.
const countedColumn = `, EXISTS (SELECT FROM c)`

// notifyChange is the column a write's final SELECT adds to notify the
// listeners of the table's channel, with the namespace as the payload, for
// the row it changed (none when it changed nothing); PostgreSQL delivers it
// when the statement's transaction commits. notifyChangeCount is the same
// for the count Delete returns.
const (
	notifyChange      = `, pg_notify({n}, $1) IS NULL`
	notifyChangeCount = `count(pg_notify({n}, $1) IS NULL)`
)

// makeShards creates the namespace's rows that do not exist, in shard
// order, so that Stores making them at once wait for each other instead of
// deadlocking; addChange adds $3 to shard $2.
var (
	makeShards = `INSERT INTO {c} (namespace, shard, n) SELECT $1, g, 0 FROM generate_series(0, ` +
		strconv.Itoa(changeShards-1) + `) g WHERE {check} ON CONFLICT (namespace, shard) DO NOTHING`
	addChange = `UPDATE {c} SET n = n + $3 WHERE namespace = $1 AND shard = $2 AND {check}`
)

// countShard returns the shard the next write adds to, having made the
// namespace's rows if this Store has not yet.
func (s *Store) countShard(ctx context.Context, op, key string) (int32, error) {
	shard := int32(s.count.next.Add(1) % changeShards)
	if !s.q.counted || s.count.made.Load() {
		return shard, nil
	}
	s.count.mu.Lock()
	defer s.count.mu.Unlock()
	if !s.count.made.Load() {
		if err := s.recount(ctx, shard, 0); err != nil {
			return 0, s.fail(ctx, op, key, err)
		}
	}
	return shard, nil
}

// recount makes the namespace's rows and adds n to shard, in one
// transaction: the UPDATE, a statement of its own, sees the rows however
// many Stores made them.
func (s *Store) recount(ctx context.Context, shard int32, n int64) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, s.q.makeShards, s.opts.Namespace); err != nil {
			return err
		}
		if n == 0 {
			return nil
		}
		_, err := tx.Exec(ctx, s.q.addChange, s.opts.Namespace, shard, n)
		return err
	})
	if err == nil {
		s.count.made.Store(true)
	}
	return err
}

// recounted follows a write that changed a row: if its UPDATE found no row
// to count it in, the rows are made again and the change counted now. If
// that fails the write is applied but not counted, so the caller gets the
// error of a write whose outcome is unknown.
func (s *Store) recounted(ctx context.Context, op, key string, shard int32, counted bool) error {
	if counted {
		return nil
	}
	s.count.made.Store(false)
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), CancelTimeout)
	defer cancel()
	if err := s.recount(ctx, shard, 1); err != nil {
		return s.fail(ctx, op, key, errors.Join(errors.New("the write was applied but its change count could not be updated (readers may not notice it until the next write)"), err))
	}
	return nil
}

// Changes returns the namespace's change count: every Put and Delete that
// changed a row added one, in the same statement (see
// memorybank.ChangeCounter), whichever process or machine ran it. The count
// is kept in shards so that writers of different documents do not queue on
// one row; a reading sums them, one index range scan of changeShards rows.
func (s *Store) Changes(ctx context.Context) (memorybank.ChangeCount, error) {
	if err := s.begin(ctx, "changes", ""); err != nil {
		return memorybank.ChangeCount{}, err
	}
	for range 2 {
		var (
			n     int64
			rows  int64
			epoch *string
		)
		err := s.pool.QueryRow(ctx, s.q.changes, s.opts.Namespace).Scan(&n, &rows, &epoch)
		if err != nil {
			return memorybank.ChangeCount{}, s.fail(ctx, "changes", "", err)
		}
		if rows == 0 {
			return memorybank.ChangeCount{Epoch: "none"}, nil
		}
		if epoch != nil {
			return memorybank.ChangeCount{Epoch: *epoch, N: uint64(n)}, nil
		}
		// Writers counted in other shards before any in shard 0, which
		// holds the epoch (pgstore before the rows were made at once did):
		// create it (its count is 0) and read again.
		if _, err := s.pool.Exec(ctx, s.q.epoch, s.opts.Namespace); err != nil {
			return memorybank.ChangeCount{}, s.fail(ctx, "changes", "", err)
		}
	}
	return memorybank.ChangeCount{}, s.fail(ctx, "changes", "", errors.New("the epoch row of the change count vanished as it was created"))
}
