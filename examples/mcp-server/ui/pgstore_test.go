package ui_test

import (
	"crypto/rand"
	"encoding/hex"
	"net/http"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// The bank pages, a revert and the memories on a PostgreSQL bank, in a
// namespace of its own.
func TestPagesOnPostgreSQL(t *testing.T) {
	dsn := os.Getenv("MNEMOBANK_PG_DSN")
	if dsn == "" {
		t.Skip("MNEMOBANK_PG_DSN is not set: no PostgreSQL to run the viewer on pgstore (bash .ci/run starts one)")
	}
	ns := make([]byte, 8)
	_, _ = rand.Read(ns)
	pg, err := pgstore.Open(t.Context(), dsn, &pgstore.Options{Namespace: "ui-test-" + hex.EncodeToString(ns)})
	require.NoError(t, err)
	defer pg.Close()
	ms, err := pg.Memories("memories.md")
	require.NoError(t, err)
	trash, err := pg.Memories("memories.trash.md")
	require.NoError(t, err)
	mem, err := memories.New(ms, &memories.Options{Trash: trash})
	require.NoError(t, err)
	f := newFixture(t, ui.Options{Bank: memorybank.New(pg, &memorybank.Options{History: history.New(nil), Language: memorybank.English}), Memories: mem})
	f.seed()
	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nSQLite now.\n", Actor: "agent-a"})

	for _, c := range []struct{ url, want string }{
		{"/ui/", "branch feature/login"},
		{"/ui/docs?scope=global", "architecture.md"},
		{"/ui/doc?scope=global&path=architecture.md", "SQLite now."},
		{"/ui/history?scope=global&path=architecture.md", "agent-a"},
		{"/ui/diff?scope=global&path=architecture.md&from=1&to=2", "PostgreSQL"},
		{"/ui/search?q=login", "progress.md"},
		{"/ui/memories", "Run go test with -race"},
		{"/ui/skill?id=release", "Tag the release"},
	} {
		res := f.get(c.url)
		require.Equal(t, http.StatusOK, res.Code, "%s: %s", c.url, res.Body)
		assert.Contains(t, res.Body, c.want, c.url)
	}
	action, form := f.confirmForm("/ui/revert?scope=global&path=architecture.md&version=1")
	require.Equal(t, http.StatusSeeOther, f.post(action, form).Code)
	assert.Contains(t, currentText(t, f), "PostgreSQL")
}
