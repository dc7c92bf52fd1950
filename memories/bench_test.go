package memories_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// genDoc returns a memories file of about size bytes (≈250 bytes an entry).
func genDoc(b *testing.B, size int) []byte {
	data := []byte(memories.Header)
	day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; len(data) < size; i++ {
		content := fmt.Sprintf("Memory %d: when the build fails with error E%04d, rerun the generator and check the cache directory before retrying the job", i, i%10000)
		if i%10 == 0 {
			content = fmt.Sprintf("記憶 %d: データベース接続がタイムアウトしたら接続プールの設定を確認すること。エラー番号 E%04d", i, i%10000)
		}
		entry, err := memories.EncodeEntry(memories.Memory{
			ID: fmt.Sprintf("mem-%d-%08x", day.Unix()+int64(i), i), Tags: []string{"pattern", fmt.Sprintf("area-%d", i%50)},
			Date: day.AddDate(0, 0, i/40).Format(time.DateOnly), Content: content,
		})
		require.NoError(b, err)
		data = append(data, entry...)
	}
	return data
}

// BenchmarkParse10MB and BenchmarkMatch10MB split Search's cost: parsing the
// file and scanning every entry.
func BenchmarkParse10MB(b *testing.B) {
	data := genDoc(b, 10<<20)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		memories.Parse(data)
	}
}

func BenchmarkMatch10MB(b *testing.B) {
	ms := memories.Parse(genDoc(b, 10<<20)).Memories()
	for b.Loop() {
		if len(memories.Match(ms, "E0042")) == 0 {
			b.Fatal("no match")
		}
	}
}

// BenchmarkAddMemStore: Manager.Add over MemStore (Appender), 10 KB vs
// 10 MB: without disk, Add's own cost does not depend on the file's size.
func BenchmarkAddMemStore(b *testing.B) {
	ctx := context.Background()
	for _, size := range []int{10 << 10, 10 << 20} {
		b.Run(fmt.Sprintf("%dKB", size>>10), func(b *testing.B) {
			store := new(memories.MemStore)
			_, err := store.Save(ctx, genDoc(b, size), "")
			require.NoError(b, err)
			m, err := memories.New(store, &memories.Options{WarnBytes: -1})
			require.NoError(b, err)
			for b.Loop() {
				if _, err := m.Add(ctx, "Always use try-catch around the adapter calls", "pattern"); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkParseIdentical: 4,000 identical seed-format entries without
// ids, the shape that used to take one hash per earlier copy (quadratic).
func BenchmarkParseIdentical(b *testing.B) {
	for _, n := range []int{1000, 4000} {
		data := []byte("# Memories\n\n" + strings.Repeat("## Same\n- Tags: x\n- Date: 2026-01-26\n- Content: same\n", n))
		b.Run(strconv.Itoa(n), func(b *testing.B) {
			for b.Loop() {
				memories.Parse(data).Memories()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/entry")
		})
	}
}

// BenchmarkSearch10MBWarm: Manager.Search on a 10 MB file that did not
// change since the last search: the file is read, not parsed or folded.
func BenchmarkSearch10MBWarm(b *testing.B) {
	ctx := context.Background()
	store := new(memories.MemStore)
	_, err := store.Save(ctx, genDoc(b, 10<<20), "")
	require.NoError(b, err)
	m, err := memories.New(store, nil)
	require.NoError(b, err)
	_, err = m.Search(ctx, "warm up")
	require.NoError(b, err)
	for b.Loop() {
		got, err := m.Search(ctx, "E0042")
		if err != nil || len(got) == 0 {
			b.Fatal(len(got), err)
		}
	}
}

// warmManager returns a Manager over a file of about size bytes that has
// been searched once, so its index is built.
func warmManager(b *testing.B, data []byte) *memories.Manager {
	ctx := context.Background()
	store := new(memories.MemStore)
	_, err := store.Save(ctx, data, "")
	require.NoError(b, err)
	m, err := memories.New(store, nil)
	require.NoError(b, err)
	_, err = m.Find(ctx, memories.SearchRequest{Query: "warm up"})
	require.NoError(b, err)
	return m
}

// findLoop runs Find for the benchmark and reports the 95th percentile of
// its calls beside the mean.
func findLoop(b *testing.B, m *memories.Manager, req memories.SearchRequest) {
	ctx := context.Background()
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := m.Find(ctx, req)
		took = append(took, time.Since(start))
		if err != nil || len(res.Hits) == 0 {
			b.Fatal(len(res.Hits), err)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)*95/100].Nanoseconds()), "p95-ns")
}

// BenchmarkFind6000Warm: a sentence query on a file of 6,000 memories
// whose index is built (the file did not change since the last search).
func BenchmarkFind6000Warm(b *testing.B) {
	data := []byte(memories.Header)
	for _, mem := range memories.Parse(genDoc(b, 6000*300)).Memories()[:6000] {
		entry, err := memories.EncodeEntry(mem)
		require.NoError(b, err)
		data = append(data, entry...)
	}
	m := warmManager(b, data)
	findLoop(b, m, memories.SearchRequest{Query: "what should I check when the build fails with a timeout?", Limit: 10})
}

// BenchmarkFind10MBCommonWord: a word nearly every memory of a 10 MB file
// holds, limit 10: every match is scored, ten are kept.
func BenchmarkFind10MBCommonWord(b *testing.B) {
	m := warmManager(b, genDoc(b, 10<<20))
	findLoop(b, m, memories.SearchRequest{Query: "build", Limit: 10})
}

// BenchmarkFind40000: warm searches of a file of 40,000 varied memories
// (about 10 MB): a word every memory holds and a word three hold, through
// Find with the default limit and through Search (every match). It reports
// the median and the 95th percentile of the calls beside the mean.
func BenchmarkFind40000(b *testing.B) {
	ctx := context.Background()
	m := warmManager(b, memories.VariedFile(40000, 1))
	for _, q := range []struct{ name, query string }{{"common", "agent"}, {"rare", "zebrafish"}} {
		b.Run("Find/"+q.name, func(b *testing.B) {
			timed(b, func() (int, error) {
				res, err := m.Find(ctx, memories.SearchRequest{Query: q.query})
				return len(res.Hits), err
			})
		})
		b.Run("Search/"+q.name, func(b *testing.B) {
			timed(b, func() (int, error) {
				res, err := m.Search(ctx, q.query)
				return len(res), err
			})
		})
	}
}

// timed runs search for the benchmark, each call timed, and reports the
// median and the 95th percentile.
func timed(b *testing.B, search func() (int, error)) {
	var took []time.Duration
	for b.Loop() {
		start := time.Now()
		n, err := search()
		took = append(took, time.Since(start))
		if err != nil || n == 0 {
			b.Fatal(n, err)
		}
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Nanoseconds()), "p50-ns")
	b.ReportMetric(float64(took[len(took)*95/100].Nanoseconds()), "p95-ns")
}

// BenchmarkSearchAfterAdd: on a file of 40,000 memories, each iteration
// adds a memory through the Manager and then searches (add+find), and
// searches again, the file unchanged (find). It reports the median of each
// and their ratio. Under "extend" the Manager takes the new memory into
// its index; under "rebuild" the store hides memories.CondAppender, so the
// index is built again after every Add, as before the index could be
// extended.
func BenchmarkSearchAfterAdd(b *testing.B) {
	ctx := context.Background()
	data := memories.VariedFile(40000, 1)
	for _, mode := range []string{"extend", "rebuild"} {
		b.Run(mode, func(b *testing.B) {
			mem := new(memories.MemStore)
			_, err := mem.Save(ctx, data, "")
			require.NoError(b, err)
			var store memories.Store = mem
			if mode == "rebuild" {
				store = plainAppendStore{mem}
			}
			m, err := memories.New(store, &memories.Options{WarnBytes: -1})
			require.NoError(b, err)
			req := memories.SearchRequest{Query: "what does the agent check when a build fails?"}
			_, err = m.Find(ctx, req)
			require.NoError(b, err)
			var addFind, find []time.Duration
			n := 0
			for b.Loop() {
				n++
				start := time.Now()
				if _, err := m.Add(ctx, fmt.Sprintf("note %d: the agent checks the build log before a retry", n), "pattern"); err != nil {
					b.Fatal(err)
				}
				res, err := m.Find(ctx, req)
				addFind = append(addFind, time.Since(start))
				if err != nil || len(res.Hits) == 0 {
					b.Fatal(len(res.Hits), err)
				}
				start = time.Now()
				res, err = m.Find(ctx, req)
				find = append(find, time.Since(start))
				if err != nil || len(res.Hits) == 0 {
					b.Fatal(len(res.Hits), err)
				}
			}
			slices.Sort(addFind)
			slices.Sort(find)
			af, f := addFind[len(addFind)/2], find[len(find)/2]
			b.ReportMetric(float64(af.Nanoseconds()), "add+find-p50-ns")
			b.ReportMetric(float64(f.Nanoseconds()), "find-p50-ns")
			b.ReportMetric(float64(af)/float64(max(f, 1)), "ratio")
		})
	}
}

// plainAppendStore is a MemStore without memories.CondAppender.
type plainAppendStore struct{ s *memories.MemStore }

func (p plainAppendStore) Load(ctx context.Context) ([]byte, string, error) { return p.s.Load(ctx) }
func (p plainAppendStore) Save(ctx context.Context, data []byte, v string) (string, error) {
	return p.s.Save(ctx, data, v)
}
func (p plainAppendStore) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	return p.s.Append(ctx, header, entry)
}
func (p plainAppendStore) Version(ctx context.Context) (string, error) { return p.s.Version(ctx) }
func (p plainAppendStore) Size(ctx context.Context) (int64, error)     { return p.s.Size(ctx) }
func (p plainAppendStore) Peek(ctx context.Context, n int) ([]byte, error) {
	return p.s.Peek(ctx, n)
}
