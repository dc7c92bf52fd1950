package fsstore_test

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

func BenchmarkGet(b *testing.B) {
	s := open(b, b.TempDir(), nil)
	data := make([]byte, 4096)
	_, err := s.Put(ctx, "bench/doc.json", data, memorybank.Condition{})
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Get(ctx, "bench/doc.json"); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPut is dominated by the two fsyncs (file and directory) that make
// a write durable.
func BenchmarkPut(b *testing.B) {
	s := open(b, b.TempDir(), nil)
	data := make([]byte, 4096)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Put(ctx, "bench/doc.json", data, memorybank.Condition{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPutIfVersion is a compare-and-swap write: Get, then Put with
// IfVersion.
func BenchmarkPutIfVersion(b *testing.B) {
	s := open(b, b.TempDir(), nil)
	data := make([]byte, 4096)
	obj, err := s.Put(ctx, "bench/doc.json", data, memorybank.Condition{})
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if obj, err = s.Put(ctx, "bench/doc.json", data, memorybank.Condition{IfVersion: obj.Version}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList10k lists 10,000 keys in 100 directories. The files are
// written directly, without the store's fsyncs, to keep set-up short.
func BenchmarkList10k(b *testing.B) {
	dir := b.TempDir()
	for d := range 100 {
		require.NoError(b, os.Mkdir(filepath.Join(dir, fmt.Sprintf("dir%02d", d)), 0o755))
	}
	for i := range 10000 {
		name := filepath.Join(dir, fmt.Sprintf("dir%02d", i%100), fmt.Sprintf("doc%05d.json", i))
		require.NoError(b, os.WriteFile(name, []byte("{}"), 0o644))
	}
	s := open(b, dir, nil)
	for b.Loop() {
		n := 0
		for _, err := range s.List(ctx, "") {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 10000 {
			b.Fatalf("listed %d keys, want 10000", n)
		}
	}
}
