package memorybank_test

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/cputime"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// textCorpus builds n documents of about size bytes of text each: words
// drawn with a Zipf distribution from a vocabulary of 30,000 made-up
// words, every tenth document in Japanese or Chinese; seven in ten are
// Markdown, the others JSON. Deterministic.
func textCorpus(n, size int) map[string][]byte {
	rng := rand.New(rand.NewPCG(1, 2))
	vocab := benchVocab()
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	cjk := []rune("認証方式決定期限失効交換保存缓存策略数据库迁移发布流程权限模型消息队列性能优化前端构建备份恢复的是在了和有我们")
	docs := make(map[string][]byte, n)
	for i := range n {
		var body strings.Builder
		for body.Len() < size {
			if i%10 == 9 {
				for range 40 {
					body.WriteRune(cjk[rng.IntN(len(cjk))])
				}
				body.WriteString("。\n")
				continue
			}
			for k := range 12 {
				if k > 0 {
					body.WriteByte(' ')
				}
				body.WriteString(vocab[zipf.Uint64()])
			}
			body.WriteString(".\n")
		}
		title := vocab[zipf.Uint64()] + " " + vocab[zipf.Uint64()]
		if i%10 < 7 {
			docs[fmt.Sprintf("global-memory-bank/notes/%05d.md", i)] = []byte("# " + title + "\n\ntags: #t" + fmt.Sprint(i%50) + "\n\n" + body.String())
		} else {
			text := []rune(body.String())
			half := len(text) / 2
			docs[fmt.Sprintf("global-memory-bank/data/%05d.json", i)] = fmt.Appendf(nil,
				`{"schema":"memory_document_v2","metadata":{"title":%s,"documentType":"generic","tags":["t%d"],"version":1},"content":{"summary":%s,"items":[%s]}}`,
				must(json.Marshal(title)), i%50, must(json.Marshal(string(text[:half]))), must(json.Marshal(string(text[half:]))))
		}
	}
	return docs
}

// benchVocab is the made-up vocabulary of textCorpus, most frequent first.
func benchVocab() []string {
	syll := []string{"ka", "lo", "mi", "ne", "tor", "sa", "ven", "qui", "dra", "pel", "us", "ex", "ri", "on", "al", "ba", "ter", "gon"}
	vocab := make([]string, 30000)
	for i := range vocab {
		var w strings.Builder
		for k := 0; k < 2+i%3; k++ {
			w.WriteString(syll[(i/(k+1)*7+k*13+i)%len(syll)])
		}
		vocab[i] = w.String() + fmt.Sprint(i%97)
	}
	return vocab
}

// benchQueries mix frequent and rare words, two to four per query, and
// Japanese and Chinese phrases.
var benchQueries = sync.OnceValue(func() []string {
	v := benchVocab()
	qs := []string{"認証方式の期限", "缓存策略", "数据库迁移的流程", "消息队列性能"}
	for i := range 28 {
		q := []string{v[(i*37)%40], v[100+i*53], v[1000+i*311]}
		if i%2 == 0 {
			q = append(q, v[5+i])
		}
		qs = append(qs, strings.Join(q, " "))
	}
	return qs
})

var corpus10k = sync.OnceValue(func() map[string][]byte { return textCorpus(10000, 5000) })

func loadCorpus(b testing.TB, store memorybank.Store, docs map[string][]byte) int {
	total := 0
	for k, v := range docs {
		_, err := store.Put(ctx, k, v, memorybank.Condition{})
		require.NoError(b, err)
		total += len(v)
	}
	return total
}

// BenchmarkSearch10000 is a warm full-text search over 10,000 documents
// (about 50 MB) in a MemStore and in fsstore: it reports the median
// latency as median-ms.
func BenchmarkSearch10000(b *testing.B) {
	for _, kind := range []string{"MemStore", "fsstore"} {
		b.Run(kind, func(b *testing.B) {
			var store memorybank.Store = &memorybank.MemStore{}
			if kind == "fsstore" {
				s, err := fsstore.Open(b.TempDir(), nil)
				require.NoError(b, err)
				b.Cleanup(func() { _ = s.Close() })
				store = s
			}
			total := loadCorpus(b, store, corpus10k())
			bank := memorybank.New(store, nil)
			_, err := bank.Search(ctx, memorybank.TextSearchRequest{Query: "warm up"})
			require.NoError(b, err)
			qs := benchQueries()
			var times []time.Duration
			i := 0
			cpu := cputime.Process()
			for b.Loop() {
				start := time.Now()
				if _, err := bank.Search(ctx, memorybank.TextSearchRequest{Query: qs[i%len(qs)]}); err != nil {
					b.Fatal(err)
				}
				times = append(times, time.Since(start))
				i++
			}
			b.ReportMetric(float64((cputime.Process()-cpu).Microseconds())/1000/float64(b.N), "cpu-ms/op")
			slices.Sort(times)
			b.ReportMetric(float64(total)/1e6, "corpus-MB")
			b.ReportMetric(float64(times[len(times)/2].Microseconds())/1000, "median-ms")
		})
	}
}

// BenchmarkSearchCold is the first search of a fresh process (a new Bank)
// over 10,000 documents (about 50 MB) in a MemStore and in fsstore: it
// reads and indexes every document (the text index snapshot hidden); in
// fsstore-snapshot it reads the bank's snapshot instead.
func BenchmarkSearchCold(b *testing.B) {
	docs := corpus10k()
	for _, kind := range []string{"MemStore", "fsstore", "fsstore-snapshot"} {
		b.Run(kind, func(b *testing.B) {
			var store memorybank.Store = &memorybank.MemStore{}
			if kind != "MemStore" {
				s, err := fsstore.Open(b.TempDir(), nil)
				require.NoError(b, err)
				b.Cleanup(func() { _ = s.Close() })
				store = s
			}
			loadCorpus(b, store, docs)
			if kind == "fsstore-snapshot" {
				_, err := memorybank.New(store, nil).Search(ctx, memorybank.TextSearchRequest{Query: "warm up"})
				require.NoError(b, err)
			} else {
				store = hideTextSnapshot{store}
			}
			var before, after runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&before)
			var bank *memorybank.Bank
			cpu := cputime.Process()
			for b.Loop() {
				bank = memorybank.New(store, nil)
				if _, err := bank.Search(ctx, memorybank.TextSearchRequest{Query: "kalomi3 torsa"}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric((cputime.Process()-cpu).Seconds()/float64(b.N), "cpu-s/op")
			runtime.GC()
			runtime.ReadMemStats(&after)
			b.ReportMetric(float64(after.HeapAlloc-before.HeapAlloc)/1e6, "index-MB")
			runtime.KeepAlive(bank)
		})
	}
}

// BenchmarkSearchAfterWrite is a write of a 5 KB document followed by a
// search, in banks of 1,000 and 10,000 documents: the index catches up
// in time proportional to the written document, not to the bank.
func BenchmarkSearchAfterWrite(b *testing.B) {
	for _, n := range []int{1000, 10000} {
		b.Run(fmt.Sprint(n), func(b *testing.B) {
			store := &memorybank.MemStore{}
			docs := corpus10k()
			keys := slices.Sorted(func(yield func(string) bool) {
				for k := range docs {
					if !yield(k) {
						return
					}
				}
			})
			for _, k := range keys[:n] {
				_, err := store.Put(ctx, k, docs[k], memorybank.Condition{})
				require.NoError(b, err)
			}
			bank := memorybank.New(store, nil)
			_, err := bank.Search(ctx, memorybank.TextSearchRequest{Query: "warm up"})
			require.NoError(b, err)
			text := string(docs["global-memory-bank/notes/00000.md"])
			i := 0
			for b.Loop() {
				i++
				if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/written.md", Text: text + fmt.Sprint(i)}); err != nil {
					b.Fatal(err)
				}
				if _, err := bank.Search(ctx, memorybank.TextSearchRequest{Query: "zzzz9999"}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
