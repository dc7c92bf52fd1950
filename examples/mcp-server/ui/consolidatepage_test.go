package ui_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
)

// The consolidation page shows each merge as a diff; its form applies the
// plan it showed, and refuses it once a member changed.
func TestConsolidationPage(t *testing.T) {
	f := newFixture(t, ui.Options{})
	ctx := context.Background()
	a, err := f.mem.Add(ctx, "Run the integration tests with make itest; they need docker running", "testing")
	require.NoError(t, err)
	_, err = f.mem.Add(ctx, "Integration tests run with make itest and need docker running", "ci")
	require.NoError(t, err)

	res := f.get("/ui/memories/consolidate")
	require.Equal(t, http.StatusOK, res.Code, res.Body)
	assert.Contains(t, res.Body, `<span class="removed">    - Run the integration tests with make itest; they need docker running</span>`)
	action, form := f.confirmForm("/ui/memories/consolidate")

	t.Run("refused when a member changed", func(t *testing.T) {
		require.NoError(t, f.mem.Delete(ctx, a.ID))
		res := f.post(action, form)
		assert.Equal(t, http.StatusConflict, res.Code, res.Body)
		_, err := f.mem.Restore(ctx, a.ID)
		require.NoError(t, err)
	})
	res = f.post(action, form)
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	ms, err := f.mem.List(ctx)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	assert.Equal(t, []string{"ci", "testing"}, ms[0].Tags)
}
