package ui_test

import (
	"net/http"
	"net/url"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

func TestRevertWritesTheOldVersionAsThePerson(t *testing.T) {
	f := newFixture(t, ui.Options{})
	action, form := revertForm(t, f)
	assert.Equal(t, "/ui/revert", action)
	assert.Equal(t, "2", form.Get("ifVersion"), "the confirmation pins the version it showed")

	res := f.post(action, form)
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	assert.Equal(t, "/ui/history?path=architecture.md&scope=global", res.Header.Get("Location"))

	d, err := f.bank.Read(t.Context(), memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md"})
	require.NoError(t, err)
	assert.Contains(t, d.Text(), "PostgreSQL", "the content of version 1 is back")
	assert.Equal(t, int64(3), d.Version, "as a new version")
	entries, err := history.List(t.Context(), f.bank, memorybank.HistoryRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Limit: 1})
	require.NoError(t, err)
	assert.Equal(t, ui.Actor, entries[0].Actor)
	assert.Contains(t, entries[0].Reason, "revert to version 1")

	page := f.get("/ui/history?scope=global&path=architecture.md")
	assert.Contains(t, page.Body, "person:ui")

	res = f.post(action, form)
	assert.Equal(t, http.StatusConflict, res.Code, "a second post of the same confirmation finds the document changed")
	assert.Contains(t, res.Body, "nothing was reverted")
}

func TestRevertRestoresADeletedDocument(t *testing.T) {
	f := newFixture(t, ui.Options{})
	f.seed()
	require.NoError(t, f.bank.Delete(t.Context(), memorybank.DeleteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md"}))
	page := f.get("/ui/history?scope=global&path=architecture.md")
	require.Equal(t, http.StatusOK, page.Code, page.Body)
	assert.Contains(t, page.Body, "deleted")
	action, form := f.confirmForm("/ui/revert?scope=global&path=architecture.md&version=1")
	res := f.post(action, form)
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	assert.Contains(t, currentText(t, f), "PostgreSQL")
}

func TestDeleteAndRestoreAMemory(t *testing.T) {
	f := newFixture(t, ui.Options{})
	f.seed()
	id := firstMemory(t, f)

	action, form := f.confirmForm("/ui/memories/delete?id=" + url.QueryEscape(id))
	assert.Equal(t, "/ui/memories/delete", action)
	res := f.post(action, form)
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	_, err := f.mem.Get(t.Context(), id)
	assert.ErrorIs(t, err, memories.ErrNotFound)
	assert.Contains(t, f.get("/ui/memories/trash").Body, id)
	assert.NotContains(t, f.get("/ui/memories").Body, id)

	action, form = f.confirmForm("/ui/memories/restore?id=" + url.QueryEscape(id))
	assert.Equal(t, "/ui/memories/restore", action)
	res = f.post(action, form)
	require.Equal(t, http.StatusSeeOther, res.Code, res.Body)
	m, err := f.mem.Get(t.Context(), id)
	require.NoError(t, err)
	assert.Equal(t, "Run go test with -race before every commit", m.Content)
	assert.Equal(t, []string{"lesson"}, m.Tags)
	assert.NotContains(t, f.get("/ui/memories/trash").Body, id)

	res = f.post(action, form)
	assert.Equal(t, http.StatusNotFound, res.Code, "a second restore finds nothing in the trash")
}

func TestWithoutMemoriesTheirPagesAreAbsent(t *testing.T) {
	bank := memorybank.New(&memorybank.MemStore{}, nil)
	h, err := ui.New(ui.Options{Bank: bank})
	require.NoError(t, err)
	f := &fixture{t: t, bank: bank, h: h}
	res := f.get("/ui/memories")
	assert.Equal(t, http.StatusNotFound, res.Code)
	assert.Contains(t, res.Body, "without learned memories")
	assert.NotContains(t, f.get("/ui/").Body, `href="/ui/memories"`)
}
