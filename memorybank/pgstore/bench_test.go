package pgstore_test

import (
	"bytes"
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// Round trips to the server, one operation per iteration, on a 1 KiB value.
// Run: MNEMOBANK_PG_DSN=... go test -run='^$' -bench=. -benchtime=200ms

var benchValue = bytes.Repeat([]byte("x"), 1024)

func BenchmarkGet(b *testing.B) {
	ctx := context.Background()
	s, _, _ := newTestStore(b)
	_, err := s.Put(ctx, "bench/doc.md", benchValue, memorybank.Condition{})
	require.NoError(b, err)
	for b.Loop() {
		if _, err := s.Get(ctx, "bench/doc.md"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPut(b *testing.B) {
	ctx := context.Background()
	s, _, _ := newTestStore(b)
	for b.Loop() {
		if _, err := s.Put(ctx, "bench/doc.md", benchValue, memorybank.Condition{}); err != nil {
			b.Fatal(err)
		}
	}
}

// A compare-and-swap write that succeeds: UPDATE ... WHERE version = $v.
func BenchmarkPutIfVersion(b *testing.B) {
	ctx := context.Background()
	s, _, _ := newTestStore(b)
	o, err := s.Put(ctx, "bench/doc.md", benchValue, memorybank.Condition{})
	require.NoError(b, err)
	for b.Loop() {
		o, err = s.Put(ctx, "bench/doc.md", benchValue, memorybank.Condition{IfVersion: o.Version})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// List of a directory of 10 keys among 1000 (100 directories).
func BenchmarkList(b *testing.B) {
	ctx := context.Background()
	s, _, _ := newTestStore(b)
	for d := range 100 {
		for f := range 10 {
			_, err := s.Put(ctx, fmt.Sprintf("dir%02d/file%d.md", d, f), benchValue[:64], memorybank.Condition{})
			require.NoError(b, err)
		}
	}
	for b.Loop() {
		n := 0
		for _, err := range s.List(ctx, "dir42/") {
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
		if n != 10 {
			b.Fatalf("listed %d keys, want 10", n)
		}
	}
}

// Appending a 100-byte entry to a memories file.
func BenchmarkMemoriesAppend(b *testing.B) {
	ctx := context.Background()
	s, _, _ := newTestStore(b)
	m, err := s.Memories("memories.md")
	require.NoError(b, err)
	entry := append(bytes.Repeat([]byte("m"), 99), '\n')
	for b.Loop() {
		if _, _, err := m.Append(ctx, []byte("# Memories\n\n"), entry); err != nil {
			b.Fatal(err)
		}
	}
}

// What the schema check in every statement costs a Get and a Put (one
// client, 1 KiB): rounds of 100 operations with and without it, measured
// alternately; reports each variant's µs/op and the ratios
// (guarded/unguarded, lower is better, 1 is free).
//
//	MNEMOBANK_PG_DSN=... go test -run '^$' -bench SchemaGuard -benchtime 20x
func BenchmarkSchemaGuard(b *testing.B) {
	const perRound = 100
	ctx := context.Background()
	s, _, _ := newTestStore(b)
	_, err := s.Put(ctx, "bench/doc.md", benchValue, memorybank.Condition{})
	require.NoError(b, err)
	variants := []struct {
		name     string
		store    *pgstore.Store
		get, put time.Duration
	}{{name: "guarded", store: s}, {name: "unguarded", store: pgstore.NewWithoutGuard(s)}}
	for i := 0; b.Loop(); i++ {
		for j := range variants {
			v := &variants[(i+j)%len(variants)]
			start := time.Now()
			for range perRound {
				if _, err := v.store.Get(ctx, "bench/doc.md"); err != nil {
					b.Fatal(err)
				}
			}
			mid := time.Now()
			for range perRound {
				if _, err := v.store.Put(ctx, "bench/doc.md", benchValue, memorybank.Condition{}); err != nil {
					b.Fatal(err)
				}
			}
			v.get += mid.Sub(start)
			v.put += time.Since(mid)
		}
	}
	ops := float64(b.N * perRound)
	for _, v := range variants {
		b.ReportMetric(v.get.Seconds()*1e6/ops, v.name+"-get-µs/op")
		b.ReportMetric(v.put.Seconds()*1e6/ops, v.name+"-put-µs/op")
	}
	b.ReportMetric(variants[0].get.Seconds()/variants[1].get.Seconds(), "get-guarded/unguarded")
	b.ReportMetric(variants[0].put.Seconds()/variants[1].put.Seconds(), "put-guarded/unguarded")
}
