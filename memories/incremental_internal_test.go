package memories

import (
	"context"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// pcgReader is a deterministic io.Reader for ids.
type pcgReader struct {
	mu sync.Mutex
	r  *rand.Rand
}

func (p *pcgReader) Read(b []byte) (int, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for i := range b {
		b[i] = byte(p.r.Uint32())
	}
	return len(b), nil
}

// incrWords make the memories and queries of the tests below: words that
// share substrings, stems and tokens, function words, numbers, accents,
// CJK and punctuation.
var incrWords = strings.Fields(`build builds building builder cache cached caching pool pools
	connection connections timeout retry retried the a of and to is 20 50 E0042 v1.2
	café CAFE Straße strasse データベース 接続 タイムアウト 設定 ﬁle file files
	adapter try-catch go-lang foo_bar x/y "quoted" (paren) zebra zebras deploy`)

func incrText(r *rand.Rand, n int) string {
	var b strings.Builder
	for k := range n {
		if k > 0 {
			b.WriteString([]string{" ", " ", " ", "\n", ", "}[r.IntN(5)])
		}
		b.WriteString(incrWords[r.IntN(len(incrWords))])
	}
	return b.String()
}

// incrQueries are searched after every step: single words, fragments,
// sentences, punctuation and the empty query.
func incrQueries(r *rand.Rand) []string {
	qs := []string{"", "build", "uild", "cache pool", "the", "E0042", "v1.2", "café", "strasse",
		"接続", "タイム", "file", "try-catch", "x/y", `"quoted"`, "zebra deploy", "20 connections", "a", ",", "nothing-here"}
	for range 10 {
		qs = append(qs, incrText(r, 1+r.IntN(4)))
	}
	return qs
}

// requireSameAsFresh checks that m answers as a Manager that never saw the
// file before: searches (hits, order, scores, snippets, totals), the
// complete ranking, injections, near-duplicates and pages.
func requireSameAsFresh(t *testing.T, m *Manager, store Store, r *rand.Rand, step int) {
	t.Helper()
	ctx := context.Background()
	fresh, err := New(store, &Options{InjectBudget: 2000})
	require.NoError(t, err)
	for _, q := range incrQueries(r) {
		for _, limit := range []int{1, 10, MaxSearchLimit} {
			want, err := fresh.Find(ctx, SearchRequest{Query: q, Limit: limit})
			require.NoError(t, err)
			got, err := m.Find(ctx, SearchRequest{Query: q, Limit: limit})
			require.NoError(t, err)
			require.Equal(t, want, got, "step %d: Find(%q, %d)", step, q, limit)
		}
		want, err := fresh.Search(ctx, q)
		require.NoError(t, err)
		got, err := m.Search(ctx, q)
		require.NoError(t, err)
		require.Equal(t, want, got, "step %d: Search(%q)", step, q)
		wantIn, err := fresh.InjectionFor(ctx, q)
		require.NoError(t, err)
		gotIn, err := m.InjectionFor(ctx, q)
		require.NoError(t, err)
		require.Equal(t, wantIn, gotIn, "step %d: InjectionFor(%q)", step, q)
	}
	text := incrText(r, 6)
	wantSim, err := fresh.Similar(ctx, text)
	require.NoError(t, err)
	gotSim, err := m.Similar(ctx, text)
	require.NoError(t, err)
	require.Equal(t, wantSim, gotSim, "step %d: Similar(%q)", step, text)
	wantPage, err := fresh.ListPage(ctx, 0, 0)
	require.NoError(t, err)
	gotPage, err := m.ListPage(ctx, 0, 0)
	require.NoError(t, err)
	require.Equal(t, wantPage, gotPage, "step %d: ListPage", step)
}

// After Adds through the same Manager the index is extended, not built
// again, and answers as a fresh Manager's; Deletes and writes by another
// Manager are seen (the index is built again).
func TestIncrementalIndexIsIdentical(t *testing.T) {
	ctx := context.Background()
	r := rand.New(rand.NewPCG(1, 2))
	store := &countingStore{}
	day := time.Date(2026, 1, 26, 9, 0, 0, 0, time.UTC)
	var clockMu sync.Mutex
	clock := func() time.Time { // mostly forward, sometimes a day back
		clockMu.Lock()
		defer clockMu.Unlock()
		if r.IntN(6) == 0 {
			day = day.AddDate(0, 0, -1)
		} else {
			day = day.Add(7 * time.Hour)
		}
		return day
	}
	opts := &Options{Now: clock, Location: time.UTC, Rand: &pcgReader{r: rand.New(rand.NewPCG(3, 4))}, InjectBudget: 2000}
	m, err := New(store, opts)
	require.NoError(t, err)
	other, err := New(store, &Options{Now: clock, Location: time.UTC, Rand: &pcgReader{r: rand.New(rand.NewPCG(5, 6))}})
	require.NoError(t, err)
	add := func(mgr *Manager) Memory {
		var tags []string
		for range r.IntN(3) {
			tags = append(tags, incrWords[r.IntN(len(incrWords))])
		}
		mem, err := mgr.Add(ctx, incrText(r, 1+r.IntN(30)), tags...)
		require.NoError(t, err)
		return mem
	}
	var ids []string
	for range 40 {
		ids = append(ids, add(m).ID)
	}
	requireSameAsFresh(t, m, store, r, 0)

	extended, rebuilt := 0, 0
	for step := 1; step <= 50; step++ {
		store.mu.Lock()
		loads := store.loads
		store.mu.Unlock()
		kind := r.IntN(10)
		switch {
		case kind < 7: // the common case: this Manager adds
			ids = append(ids, add(m).ID)
		case kind < 9: // another writer adds
			ids = append(ids, add(other).ID)
		default:
			k := r.IntN(len(ids))
			require.NoError(t, m.Delete(ctx, ids[k]))
			ids = append(ids[:k], ids[k+1:]...)
		}
		_, err := m.Find(ctx, SearchRequest{Query: "build"})
		require.NoError(t, err)
		store.mu.Lock()
		read := store.loads > loads
		if kind == 9 {
			read = store.loads > loads+1 // Delete itself loads once
		}
		store.mu.Unlock()
		if kind < 7 {
			require.False(t, read, "step %d: an Add through this Manager must not make the next search read the file", step)
			extended++
		} else {
			require.True(t, read, "step %d: a write by another Manager, or a Delete, must be read", step)
			rebuilt++
		}
		requireSameAsFresh(t, m, store, r, step)
	}
	require.Positive(t, extended)
	require.Positive(t, rebuilt)
}

// Searches running while Adds extend the index see one version or the
// next, never a half-extended index (run with -race), and the index ends
// as a fresh Manager's.
func TestIncrementalIndexUnderConcurrentSearches(t *testing.T) {
	ctx := context.Background()
	store := new(MemStore)
	m, err := New(store, &Options{InjectBudget: 2000}) // as requireSameAsFresh's
	require.NoError(t, err)
	for k := range 20 {
		_, err := m.Add(ctx, incrWords[k%len(incrWords)]+" build cache")
		require.NoError(t, err)
	}
	_, err = m.Find(ctx, SearchRequest{Query: "build"})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for g := range 3 {
		wg.Go(func() {
			for range 30 {
				res, err := m.Find(ctx, SearchRequest{Query: incrWords[g]})
				if err == nil && res.Total < len(res.Hits) {
					err = errTotal
				}
				if err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Go(func() {
		for k := range 30 {
			if _, err := m.Add(ctx, "concurrent note "+incrWords[k%len(incrWords)]); err != nil {
				errs <- err
				return
			}
		}
	})
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	requireSameAsFresh(t, m, store, rand.New(rand.NewPCG(7, 8)), 0)
}

var errTotal = errTotalError{}

type errTotalError struct{}

func (errTotalError) Error() string { return "a search reported fewer matches than hits" }
