package textsearch

import (
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/mnemobank/mnemobank/internal/cputime"
)

// chatText makes n documents of about size bytes each, as a branch of chat
// notes is: sentences of a Zipf-distributed vocabulary with some
// camel-case names, every tenth document in Chinese and Japanese.
func chatText(n, size int) []string {
	rng := rand.New(rand.NewPCG(1, 2))
	syll := []string{"ka", "lo", "mi", "ne", "tor", "sa", "ven", "qui", "dra", "pel", "us", "ex", "ri", "on", "al", "ba", "ter", "gon"}
	vocab := []string{"the", "is", "and", "to", "activeContext", "failing", "adapters", "queries", "retryPolicy"}
	for len(vocab) < 3000 {
		w := ""
		for range 2 + rng.IntN(3) {
			w += syll[rng.IntN(len(syll))]
		}
		vocab = append(vocab, w)
	}
	zipf := rand.NewZipf(rng, 1.1, 2, uint64(len(vocab)-1))
	cjk := []rune("認証方式決定期限失効交換保存缓存策略数据库迁移发布流程权限模型消息队列性能优化前端构建备份恢复的是在了和有我们エラー処理はどうしますか")
	docs := make([]string, n)
	for i := range docs {
		var b strings.Builder
		for b.Len() < size {
			if i%10 == 9 {
				for range 40 {
					b.WriteRune(cjk[rng.IntN(len(cjk))])
				}
				b.WriteString("。\n")
				continue
			}
			for k := range 12 {
				if k > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(vocab[zipf.Uint64()])
			}
			b.WriteString(".\n")
		}
		docs[i] = b.String()
	}
	return docs
}

// BenchmarkIndexAdd: indexing 50 chat-length documents (0.5 MB), the work
// of a first search over a branch not read before; MB/s of text.
func BenchmarkIndexAdd(b *testing.B) {
	docs := chatText(50, 10_000)
	total := 0
	for _, d := range docs {
		total += len(d)
	}
	b.SetBytes(int64(total))
	cpu := cputime.Process()
	for b.Loop() {
		ix, err := NewIndex[int](DocumentParams, Analyzer{})
		if err != nil {
			b.Fatal(err)
		}
		for i, d := range docs {
			_ = ix.Add(i, "Note", "", d)
		}
	}
	reportCPU(b, cpu)
}

// reportCPU reports the CPU time per iteration since start: on a loaded
// machine it says more than the wall time.
func reportCPU(b *testing.B, start time.Duration) {
	b.ReportMetric(float64(cputime.Process()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}

// BenchmarkAnalyze: the analyzer alone over the same text.
func BenchmarkAnalyze(b *testing.B) {
	docs := chatText(50, 10_000)
	total := 0
	for _, d := range docs {
		total += len(d)
	}
	b.SetBytes(int64(total))
	n := 0
	cpu := cputime.Process()
	for b.Loop() {
		for _, d := range docs {
			Analyze(d, func(Token) { n++ })
		}
	}
	reportCPU(b, cpu)
}

// BenchmarkIndexStore: the stored form of the index of 50 chat-length
// documents (0.5 MB), written (AppendBinary) and read back (DecodeIndex,
// then a two-word search, which decodes those terms' postings), against
// indexing the texts again (BenchmarkIndexAdd); stored-KB is its size.
func BenchmarkIndexStore(b *testing.B) {
	docs := chatText(50, 10_000)
	ix, err := NewIndex[int](DocumentParams, Analyzer{})
	if err != nil {
		b.Fatal(err)
	}
	for i, d := range docs {
		_ = ix.Add(i, "Note", "", d)
	}
	data, keys := ix.AppendBinary(nil, nil)
	b.Run("write", func(b *testing.B) {
		cpu := cputime.Process()
		for b.Loop() {
			data, _ = ix.AppendBinary(data[:0], nil)
		}
		reportCPU(b, cpu)
		b.ReportMetric(float64(len(data))/1024, "stored-KB")
	})
	b.Run("read", func(b *testing.B) {
		cpu := cputime.Process()
		for b.Loop() {
			back, err := DecodeIndex[int](data, DocumentParams, Analyzer{}, keys, nil)
			if err != nil {
				b.Fatal(err)
			}
			back.Each([]string{"the", "activecontext"}, nil, func(int, float64) {})
		}
		reportCPU(b, cpu)
	})
}

// BenchmarkSnippet: the snippets of a page of ten hits, each a
// chat-length document (10 KB), for a three-word query.
func BenchmarkSnippet(b *testing.B) {
	docs := chatText(10, 10_000)
	terms := Analyzer{}.QueryTerms("failing adapters retryPolicy")
	cpu := cputime.Process()
	for b.Loop() {
		for _, d := range docs {
			_ = Snippet(d, terms, 160, -1)
		}
	}
	reportCPU(b, cpu)
}
