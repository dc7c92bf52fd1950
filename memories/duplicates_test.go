package memories_test

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

func addAll(t *testing.T, m *memories.Manager, texts ...string) []memories.Memory {
	t.Helper()
	var out []memories.Memory
	for _, c := range texts {
		mem, err := m.Add(t.Context(), c, "go")
		require.NoError(t, err)
		out = append(out, mem)
	}
	return out
}

// Rephrasings of one fact form a cluster, newest first; two facts that
// differ by a number are a pair flagged NumbersDiffer, not a cluster.
func TestNearDuplicatesAfterTheFact(t *testing.T) {
	m := newManager(t, new(memories.MemStore), nil)
	ms := addAll(t, m,
		"Run the integration tests with make itest; they need docker running",
		"The connection pool size for the billing service is 20; the pgbouncer sidecar queues the rest and the ledger worker waits",
		"Integration tests run with make itest and need docker running",
		"The connection pool size for the billing service is 50; the pgbouncer sidecar queues the rest and the ledger worker waits",
		"Prefer table tests with testify require for preconditions",
	)
	d, err := m.NearDuplicates(t.Context())
	require.NoError(t, err)
	pairs, clusters := d.Pairs, d.Clusters
	require.Len(t, d.Memories, len(ms))
	require.Len(t, clusters, 1, "pairs: %+v", pairs)
	assert.Equal(t, []string{ms[2].ID, ms[0].ID}, clusters[0].IDs)
	var numbers []memories.Pair
	for _, p := range pairs {
		if p.NumbersDiffer {
			numbers = append(numbers, p)
		}
	}
	require.Len(t, numbers, 1, "pairs: %+v", pairs)
	assert.Equal(t, [2]string{ms[1].ID, ms[3].ID}, [2]string{numbers[0].A, numbers[0].B})
	assert.GreaterOrEqual(t, numbers[0].RawScore, memories.NumbersDifferThreshold)
	assert.Less(t, numbers[0].Score, memories.SimilarThreshold)
}

// An injection never holds two members of one duplicate cluster: the
// newest stands for the others.
func TestInjectionSkipsDuplicates(t *testing.T) {
	m := newManager(t, new(memories.MemStore), nil)
	ms := addAll(t, m,
		"Run the integration tests with make itest; they need docker running",
		"Integration tests run with make itest and need docker running",
		"Prefer table tests with testify require for preconditions",
	)
	out, err := m.InjectionContent(t.Context())
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(out, "docker running"), out)
	assert.Contains(t, out, ms[1].Title)
	assert.Contains(t, out, ms[2].Title)
}
