package pgstore_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// failAfter bounds a wait that a correct store ends at once.
const failAfter = 10 * time.Second

func waitSignal(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case _, ok := <-ch:
		require.True(t, ok, "%s: the channel closed", what)
	case <-time.After(failAfter):
		t.Fatalf("%s: no signal within %s", what, failAfter)
	}
}

// drain empties ch of pending signals (the catch-up ones).
func drain(ch <-chan struct{}) {
	for {
		select {
		case <-ch:
		default:
			return
		}
	}
}

// A write through one Store is heard by another on the same table and
// namespace, through NOTIFY; after the listening connection is killed it
// is still heard (polling), and the count agrees.
func TestWatchChangesAcrossStores(t *testing.T) {
	ctx := t.Context()
	a, pool, opts := newTestStore(t)
	b, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	require.NoError(t, a.Migrate(ctx))
	wctx, cancel := context.WithCancel(ctx)
	ch := a.WatchChanges(wctx)
	waitSignal(t, ch, "the catch-up signal when listening starts")
	drain(ch)

	before, err := a.Changes(ctx)
	require.NoError(t, err)
	_, err = b.Put(ctx, "progress.md", []byte("one"), memorybank.Condition{})
	require.NoError(t, err)
	waitSignal(t, ch, "a write through another Store")
	after, err := a.Changes(ctx)
	require.NoError(t, err)
	assert.Equal(t, before.N+1, after.N)

	// Kill the listening connection: the watcher polls, then listens again.
	var killed int
	require.NoError(t, pool.QueryRow(ctx, `SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE query = $1`,
		`LISTEN "`+pgstore.ChangeChannel(opts.Table)+`"`).Scan(&killed))
	require.Equal(t, 1, killed, "one listening connection")
	waitSignal(t, ch, "the signal on losing the connection")
	drain(ch)
	require.NoError(t, b.Delete(ctx, "progress.md", memorybank.Condition{}))
	waitSignal(t, ch, "a delete while polling or listening again")

	cancel()
	for range ch {
	}
}

// The change count is summed over shards: writers on many connections all
// count, exactly.
func TestChangesCountsEveryWriterExactly(t *testing.T) {
	ctx := t.Context()
	s, _, _ := newTestStore(t)
	before, err := s.Changes(ctx)
	require.NoError(t, err)
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Go(func() {
			for i := range 10 {
				_, err := s.Put(ctx, fmt.Sprintf("w%d/doc%d.md", w, i), []byte("x"), memorybank.Condition{})
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	after, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.Equal(t, uint64(80), after.N-before.N)
	if before.Epoch != "none" {
		assert.Equal(t, before.Epoch, after.Epoch)
	}
	again, err := s.Changes(ctx)
	require.NoError(t, err)
	assert.Equal(t, after, again, "a reading is stable")
}

// Holders of one lock name take turns, across Stores (processes), so
// read-modify-write under it never loses its compare-and-swap.
func TestLockKeySerialisesWriters(t *testing.T) {
	ctx := t.Context()
	a, pool, opts := newTestStore(t)
	b, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	t.Cleanup(b.Close)
	_, err = a.Put(ctx, "hot.md", []byte(""), memorybank.Condition{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	for _, s := range []*pgstore.Store{a, b, a, b} {
		wg.Go(func() {
			for range 10 {
				unlock, err := s.LockKey(ctx, "hot.md")
				if !assert.NoError(t, err) {
					return
				}
				o, err := s.Get(ctx, "hot.md")
				if assert.NoError(t, err) {
					_, err = s.Put(ctx, "hot.md", append(o.Data, 'x'), memorybank.Condition{IfVersion: o.Version})
					assert.NoError(t, err, "under the lock the compare-and-swap never loses")
				}
				unlock()
			}
		})
	}
	wg.Wait()
	o, err := a.Get(ctx, "hot.md")
	require.NoError(t, err)
	assert.Len(t, o.Data, 40)

	// A held lock makes the other wait until its context ends.
	unlock, err := a.LockKey(ctx, "hot.md")
	require.NoError(t, err)
	short, cancel := context.WithTimeout(ctx, 50*time.Millisecond)
	defer cancel()
	_, err = b.LockKey(short, "hot.md")
	require.ErrorIs(t, err, context.DeadlineExceeded)
	unlock()
	unlock() // twice is harmless
	unlock, err = b.LockKey(ctx, "hot.md")
	require.NoError(t, err)
	unlock()

	_, err = a.LockKey(ctx, strings.Repeat("x", memorybank.MaxLockNameBytes+1))
	require.ErrorIs(t, err, pgstore.ErrLockName)
}

// Writes of distinct documents by 16 clients, with the change count and
// notification and without, measured alternately in rounds of 16×50
// writes (each variant starting an iteration in turn); reports each variant's writes/s and their ratio
// (signal/nosignal, higher is better).
//
//	MNEMOBANK_PG_DSN=... go test -run '^$' -bench DistinctWrites16 -benchtime 10x
func BenchmarkDistinctWrites16(b *testing.B) {
	const clients, perClient = 16, 50
	dsn := requireDSN(b)
	cfg, err := pgstore.ParseConfig(dsn)
	require.NoError(b, err)
	cfg.MaxConns = clients
	pool, err := pgxpool.NewWithConfig(context.Background(), cfg)
	require.NoError(b, err)
	b.Cleanup(pool.Close) // after the tables are dropped
	opts := freshOptions(b, pool)
	s, err := pgstore.New(pool, opts)
	require.NoError(b, err)
	require.NoError(b, s.Migrate(context.Background()))
	variants := []struct {
		name  string
		store *pgstore.Store
		total time.Duration
	}{
		{name: "signal", store: s},
		{name: "nosignal", store: pgstore.NewWithSignal(s, false, false)},
		{name: "countonly", store: pgstore.NewWithSignal(s, true, false)},
		{name: "notifyonly", store: pgstore.NewWithSignal(s, false, true)},
	}
	round := func(st *pgstore.Store) time.Duration {
		start := time.Now()
		var wg sync.WaitGroup
		for c := range clients {
			wg.Go(func() {
				key := fmt.Sprintf("distinct/doc%d.md", c)
				for range perClient {
					if _, err := st.Put(context.Background(), key, benchValue, memorybank.Condition{}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		}
		wg.Wait()
		return time.Since(start)
	}
	// Each iteration starts with the next variant, so none always runs
	// first (after the previous iteration's dead rows) or last.
	for i := 0; b.Loop(); i++ {
		for j := range variants {
			v := &variants[(i+j)%len(variants)]
			v.total += round(v.store)
		}
	}
	writes := float64(b.N * clients * perClient)
	for _, v := range variants {
		b.ReportMetric(writes/v.total.Seconds(), v.name+"-writes/s")
	}
	b.ReportMetric(variants[1].total.Seconds()/variants[0].total.Seconds(), "signal/nosignal")
}

// Any role may NOTIFY a table's channel with a namespace as the payload. A
// flood of 2,000 such notifications (each its own transaction, so
// PostgreSQL does not fold them into one) followed by one real write makes
// WatchChanges signal once, for the write: a notification only makes it
// read the change count (at most once per WatchCheckInterval), and it
// signals only when the count moved. Each signal costs whoever receives it
// a refresh (the viewer's live feed lists the bank), so the signals are the
// work counted here; before, every notification heard was a signal.
func TestWatchChangesSignalsNoFloodOfNotifications(t *testing.T) {
	ctx := t.Context()
	a, pool, opts := newTestStore(t)
	b, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	require.NoError(t, a.Migrate(ctx))
	_, err = b.Put(ctx, "progress.md", []byte("zero"), memorybank.Condition{})
	require.NoError(t, err)
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	ch := a.WatchChanges(wctx)
	waitSignal(t, ch, "the catch-up signal when listening starts")
	drain(ch)

	// The receiver refreshes on every signal, during the flood too, until
	// it sees the write that follows the flood.
	before, err := a.Changes(ctx)
	require.NoError(t, err)
	signals := make(chan int, 1)
	go func() {
		n := 0
		defer func() { signals <- n }()
		for range ch {
			n++
			c, err := a.Changes(ctx)
			if !assert.NoError(t, err) || c.N > before.N {
				return
			}
		}
	}()

	const flood = 2000
	var script strings.Builder
	payload := strings.ReplaceAll(opts.Namespace, "'", "''")
	for range flood {
		fmt.Fprintf(&script, "BEGIN; SELECT pg_notify('%s', '%s'); COMMIT;\n", pgstore.ChangeChannel(opts.Table), payload)
	}
	intruder := intruderConn(t)
	_, err = intruder.PgConn().Exec(ctx, script.String()).ReadAll()
	require.NoError(t, err)
	_, err = b.Put(ctx, "progress.md", []byte("one"), memorybank.Condition{})
	require.NoError(t, err)
	select {
	case n := <-signals:
		assert.Equal(t, 1, n, "signals (each a refresh by the receiver) until the write after the flood was seen")
	case <-time.After(failAfter):
		t.Fatalf("the write after the flood was not signalled within %s", failAfter)
	}
}
