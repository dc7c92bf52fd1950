package filestore_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
)

// genFile writes a memories.md of about size bytes in the format Add writes
// (≈250 bytes an entry, so 10 MB is ≈40,000 entries, a tenth of them in
// Japanese) and returns the ids in file order.
func genFile(b *testing.B, path string, size int) []string {
	b.Helper()
	data := []byte(memories.Header)
	var ids []string
	day := time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 0; len(data) < size; i++ {
		content := fmt.Sprintf("Memory %d: when the build fails with error E%04d, rerun the generator and check the cache directory before retrying the job", i, i%10000)
		if i%10 == 0 {
			content = fmt.Sprintf("記憶 %d: データベース接続がタイムアウトしたら接続プールの設定を確認すること。エラー番号 E%04d", i, i%10000)
		}
		m := memories.Memory{
			ID:      fmt.Sprintf("mem-%d-%08x", day.Unix()+int64(i), i),
			Tags:    []string{"pattern", fmt.Sprintf("area-%d", i%50)},
			Date:    day.AddDate(0, 0, i/40).Format(time.DateOnly),
			Content: content,
		}
		entry, err := memories.EncodeEntry(m)
		require.NoError(b, err)
		data = append(data, entry...)
		ids = append(ids, m.ID)
	}
	// Written and synced, so no benchmark pays for flushing the setup.
	f, err := os.Create(path)
	require.NoError(b, err)
	_, err = f.Write(data)
	require.NoError(b, err)
	require.NoError(b, f.Sync())
	require.NoError(b, f.Close())
	return ids
}

func benchManager(b *testing.B, size int) (*memories.Manager, []string, string) {
	path := filepath.Join(b.TempDir(), "memories.md")
	ids := genFile(b, path, size)
	m, err := memories.New(filestore.New(path, nil), &memories.Options{WarnBytes: -1})
	require.NoError(b, err)
	return m, ids, path
}

func reportFile(b *testing.B, path string, ids []string) {
	fi, err := os.Stat(path)
	require.NoError(b, err)
	b.ReportMetric(float64(fi.Size())/(1<<20), "MiB")
	b.ReportMetric(float64(len(ids)), "entries")
}

// BenchmarkLoadSearch10MB: Search on a 10 MB file, which loads, parses and
// scans every entry.
func BenchmarkLoadSearch10MB(b *testing.B) {
	ctx := context.Background()
	m, ids, path := benchManager(b, 10<<20)
	for _, q := range []string{"E0042", "接続プール"} {
		b.Run(q, func(b *testing.B) {
			for b.Loop() {
				res, err := m.Search(ctx, q)
				if err != nil || len(res) == 0 {
					b.Fatal(err, len(res))
				}
			}
			reportFile(b, path, ids)
		})
	}
}

// BenchmarkAdd: Add appends in O(1), so 10 MB costs what 10 KB costs.
func BenchmarkAdd(b *testing.B) {
	ctx := context.Background()
	for _, size := range []struct {
		name  string
		bytes int
	}{{"10KB", 10 << 10}, {"10MB", 10 << 20}} {
		b.Run(size.name, func(b *testing.B) {
			m, ids, path := benchManager(b, size.bytes)
			for b.Loop() {
				if _, err := m.Add(ctx, "Always use try-catch around the adapter calls", "pattern", "bench"); err != nil {
					b.Fatal(err)
				}
			}
			reportFile(b, path, ids)
		})
	}
}

// BenchmarkDelete10MB: Delete rewrites the file atomically.
func BenchmarkDelete10MB(b *testing.B) {
	ctx := context.Background()
	m, ids, path := benchManager(b, 10<<20)
	i := 0
	for b.Loop() {
		if err := m.Delete(ctx, ids[i*7919%len(ids)]); err != nil {
			b.Fatal(err)
		}
		i++
	}
	reportFile(b, path, ids)
}

// BenchmarkAddAlternating adds to a 10 KB and a 10 MB file in turn, so
// both see the same disk and CPU contention, and reports each one's mean
// time and their ratio (the target is at most 3).
func BenchmarkAddAlternating(b *testing.B) {
	ctx := context.Background()
	small, _, _ := benchManager(b, 10<<10)
	large, _, _ := benchManager(b, 10<<20)
	var tSmall, tLarge time.Duration
	n := 0
	for b.Loop() {
		start := time.Now()
		if _, err := small.Add(ctx, "Always use try-catch around the adapter calls", "pattern"); err != nil {
			b.Fatal(err)
		}
		mid := time.Now()
		if _, err := large.Add(ctx, "Always use try-catch around the adapter calls", "pattern"); err != nil {
			b.Fatal(err)
		}
		tSmall += mid.Sub(start)
		tLarge += time.Since(mid)
		n++
	}
	b.ReportMetric(float64(tSmall.Nanoseconds())/float64(n), "ns/add-10KB")
	b.ReportMetric(float64(tLarge.Nanoseconds())/float64(n), "ns/add-10MB")
	b.ReportMetric(float64(tLarge)/float64(tSmall), "ratio")
}
