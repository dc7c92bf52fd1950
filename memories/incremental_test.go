package memories_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
)

// A Manager whose index was built before another Store (another process)
// wrote the file sees that write after its own Add: its Add does not
// extend an index the file no longer matches.
func TestAddAfterAnotherWriterIsSeen(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "memories.md")
	m := newManager(t, filestore.New(path, nil), nil)
	other := newManager(t, filestore.New(path, nil), nil)
	for _, c := range []string{"the build cache lives in /tmp", "retry the deploy twice"} {
		_, err := m.Add(ctx, c)
		require.NoError(t, err)
	}
	check := func(query string, want int) {
		t.Helper()
		got, err := m.Find(ctx, memories.SearchRequest{Query: query})
		require.NoError(t, err)
		fresh, err := newManager(t, filestore.New(path, nil), nil).Find(ctx, memories.SearchRequest{Query: query})
		require.NoError(t, err)
		require.Equal(t, fresh, got, "query %q", query)
		require.Equal(t, want, got.Total, "query %q", query)
	}
	check("build", 1) // m's index is built

	_, err := other.Add(ctx, "zebra crossing: the other process wrote this")
	require.NoError(t, err)
	_, err = m.Add(ctx, "zebra stripes: this Manager wrote this")
	require.NoError(t, err)
	check("zebra", 2)

	// A Delete by the other process, then an Add here.
	res, err := m.Find(ctx, memories.SearchRequest{Query: "retry deploy"})
	require.NoError(t, err)
	require.NotEmpty(t, res.Hits)
	require.NoError(t, other.Delete(ctx, res.Hits[0].ID))
	_, err = m.Add(ctx, "deploy on Fridays only after the retry budget is checked")
	require.NoError(t, err)
	check("retry", 1)
	check("zebra", 2)
}
