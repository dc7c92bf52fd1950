package consolidate_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/consolidate"
	"github.com/mnemobank/mnemobank/internal/cputime"
	"github.com/mnemobank/mnemobank/memories"
)

// Gathering the candidates of 10,000 memories from a Manager that has not
// read them yet (the file parsed, every memory compared with those sharing
// a rare term, use read): what a consolidate command pays once. No search
// index is built: the duplicates do not need one.
func BenchmarkGather10000(b *testing.B) {
	l := seedSet(8000) // about 10,900 memories with the duplicates and conflicts
	require.GreaterOrEqual(b, len(l.memories), 10000)
	l.memories = l.memories[:10000]
	l.usedQuery = nil
	f, opts := loadSeed(b, l, false)
	ctx := b.Context()
	cpu0, n := cputime.Process(), 0
	for b.Loop() {
		n++
		mm, err := memories.New(f.store, &memories.Options{Usage: new(memories.MemStore),
			Now: func() time.Time { return time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC) }, Location: time.UTC})
		require.NoError(b, err)
		c, err := consolidate.Gather(ctx, consolidate.Sources{Memories: mm}, opts)
		require.NoError(b, err)
		require.Equal(b, 10000, c.Memories)
	}
	// Wall time on a shared machine counts other processes' turns; the
	// process's CPU time per gather does not (the GC's share included).
	b.ReportMetric(float64(cputime.Process()-cpu0)/float64(n)/1e6, "cpu-ms/op")
}
