package memorybank_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/storetest"
)

func TestMemStore(t *testing.T) {
	storetest.TestStore(t, func(*testing.T) memorybank.Store { return new(memorybank.MemStore) })
}

func TestMemStoreNow(t *testing.T) {
	fixed := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	s := &memorybank.MemStore{Now: func() time.Time { return fixed }}
	ctx := context.Background()
	obj, err := s.Put(ctx, "a", []byte("x"), memorybank.Condition{})
	require.NoError(t, err)
	assert.Equal(t, fixed, obj.ModTime)
	got, err := s.Get(ctx, "a")
	require.NoError(t, err)
	assert.Equal(t, fixed, got.ModTime)
}

func TestMemStoreVersionsNeverRepeat(t *testing.T) {
	var s memorybank.MemStore
	ctx := context.Background()
	seen := map[string]bool{}
	for range 3 {
		obj, err := s.Put(ctx, "k", []byte("same"), memorybank.Condition{})
		require.NoError(t, err)
		assert.False(t, seen[obj.Version], "version %q repeated", obj.Version)
		seen[obj.Version] = true
		require.NoError(t, s.Delete(ctx, "k", memorybank.Condition{}))
	}
}

func TestConditionMessages(t *testing.T) {
	err := memorybank.Condition{IfVersion: "3"}.Check("notes.md", true, "5")
	require.ErrorIs(t, err, memorybank.ErrConflict)
	assert.Contains(t, err.Error(), `"3"`)
	assert.Contains(t, err.Error(), `"5"`)
	assert.Contains(t, err.Error(), `"notes.md"`)
	assert.NoError(t, memorybank.Condition{}.Check("k", false, ""))
	assert.NoError(t, memorybank.Condition{IfAbsent: true}.Check("k", false, ""))
	assert.ErrorIs(t, memorybank.Condition{IfAbsent: true, IfVersion: "1"}.Validate(), memorybank.ErrInvalidCondition)
}

func BenchmarkMemStoreGet(b *testing.B) {
	var s memorybank.MemStore
	ctx := context.Background()
	data := make([]byte, 4096)
	_, err := s.Put(ctx, "bench/doc.json", data, memorybank.Condition{})
	require.NoError(b, err)
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Get(ctx, "bench/doc.json"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMemStorePut(b *testing.B) {
	var s memorybank.MemStore
	ctx := context.Background()
	data := make([]byte, 4096)
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		if _, err := s.Put(ctx, "bench/doc.json", data, memorybank.Condition{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkMemStoreList10k(b *testing.B) {
	var s memorybank.MemStore
	ctx := context.Background()
	for i := range 10000 {
		_, err := s.Put(ctx, fmt.Sprintf("dir%02d/doc%05d.json", i%100, i), []byte("{}"), memorybank.Condition{})
		require.NoError(b, err)
	}
	b.ResetTimer()
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
