package gitleaks_test

import (
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
)

// One Scanner serves every writer of a server: scans from many goroutines
// at once find the same as one at a time (run with -race).
func TestScanConcurrently(t *testing.T) {
	s := newScanner(t)
	secrets := corpus[secretCase](t, "secrets.jsonl")
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := g; i < len(secrets); i += 8 {
				assert.NotEmpty(t, s.Scan(secrets[i].Text), secrets[i].Provider)
			}
		})
	}
	wg.Wait()
}

// BenchmarkScan is the cost a write pays for the screen: one scan of a
// typical memory document (about 2 KiB of notes and code, no credential).
func BenchmarkScan(b *testing.B) {
	s := newScanner(b)
	var doc strings.Builder
	for _, c := range corpus[ordinaryCase](b, "ordinary.jsonl")[:40] {
		doc.WriteString(c.Text + "\n\n")
	}
	text := doc.String()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		if len(s.Scan(text)) != 0 {
			b.Fatal("false alarm")
		}
	}
}
