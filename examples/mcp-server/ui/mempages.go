package ui

import (
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/memories"
)

func (h *Handler) needMemories() (*memories.Manager, error) {
	if h.opts.Memories == nil {
		return nil, &httpError{status: http.StatusNotFound, msg: "this viewer was started without learned memories"}
	}
	return h.opts.Memories, nil
}

// memoriesList lists a page of the memories in file order, or the best
// matches of ?q=.
func (h *Handler) memoriesList(w http.ResponseWriter, r *http.Request) error {
	m, err := h.needMemories()
	if err != nil {
		return err
	}
	q := r.URL.Query()
	offset, limit, err := paging(q)
	if err != nil {
		return err
	}
	query := q.Get("q")
	if len(query) > memories.MaxQueryBytes {
		return badRequest("the query is %d bytes; the limit is %d", len(query), memories.MaxQueryBytes)
	}
	type item struct {
		memories.Memory
		Snippet   string
		DeleteURL string
	}
	var items []item
	var pg pager
	more := 0
	if strings.TrimSpace(query) != "" {
		res, err := m.Find(r.Context(), memories.SearchRequest{Query: query, Limit: pageSize})
		if err != nil {
			return err
		}
		for _, hit := range res.Hits {
			items = append(items, item{Memory: hit.Memory, Snippet: hit.Snippet})
		}
		more = res.Total - len(res.Hits)
	} else {
		p, err := m.ListPage(r.Context(), offset, limit)
		if err != nil {
			return err
		}
		for _, mem := range p.Memories {
			items = append(items, item{Memory: mem})
		}
		pg = newPager(Prefix+"memories", q, offset, limit, len(items), p.Total)
	}
	for i := range items {
		if h.may(r, tokens.ScopeWrite) {
			items[i].DeleteURL = Prefix + "memories/delete?" + url.Values{"id": {items[i].ID}}.Encode()
		}
	}
	return h.render(w, r, http.StatusOK, "memories", "Learned memories", "memories", struct {
		Query    string
		Searched bool
		Memories []item
		More     int
		Pager    pager
	}{query, strings.TrimSpace(query) != "", items, more, pg})
}

func memoryID(v url.Values) (string, error) {
	id := v.Get("id")
	if id == "" || len(id) > memories.MaxIDBytes {
		return "", badRequest("id must be a memory's id (mem-...), 1 to %d bytes", memories.MaxIDBytes)
	}
	return id, nil
}

// confirmDeleteMemory asks before a delete.
func (h *Handler) confirmDeleteMemory(w http.ResponseWriter, r *http.Request) error {
	if err := h.refuseReadOnly(); err != nil {
		return err
	}
	m, err := h.needMemories()
	if err != nil {
		return err
	}
	id, err := memoryID(r.URL.Query())
	if err != nil {
		return err
	}
	mem, err := m.Get(r.Context(), id)
	if err != nil {
		return err
	}
	return h.render(w, r, http.StatusOK, "confirm", "Delete a memory", "memories", confirmation{
		Class:    "delete",
		Action:   Prefix + "memories/delete",
		CSRF:     h.csrfToken(r, Prefix+"memories/delete"),
		Question: fmt.Sprintf("Delete the memory %q (%s)?", mem.Title, mem.ID),
		Detail:   "It goes to the trash, from which it can be restored (the newest deletions are kept).",
		Fields:   []field{{"id", mem.ID}},
		Button:   "Delete",
		Cancel:   Prefix + "memories",
	})
}

func (h *Handler) deleteMemory(w http.ResponseWriter, r *http.Request) error {
	m, err := h.needMemories()
	if err != nil {
		return err
	}
	id, err := memoryID(r.PostForm)
	if err != nil {
		return err
	}
	if err := m.Delete(r.Context(), id); err != nil {
		return err
	}
	h.log.Info("ui: memory deleted", "id", id)
	http.Redirect(w, r, Prefix+"memories/trash", http.StatusSeeOther)
	return nil
}

// trash lists the deleted memories, newest deletion first.
func (h *Handler) trash(w http.ResponseWriter, r *http.Request) error {
	m, err := h.needMemories()
	if err != nil {
		return err
	}
	deleted, err := m.Deleted(r.Context())
	if err != nil {
		return err
	}
	slices.Reverse(deleted)
	q := r.URL.Query()
	offset, limit, err := paging(q)
	if err != nil {
		return err
	}
	shown := deleted[min(offset, len(deleted)):min(offset+limit, len(deleted))]
	type item struct {
		memories.Memory
		RestoreURL string
	}
	items := make([]item, len(shown))
	for i, d := range shown {
		items[i] = item{Memory: d}
		if h.may(r, tokens.ScopeWrite) {
			items[i].RestoreURL = Prefix + "memories/restore?" + url.Values{"id": {d.ID}}.Encode()
		}
	}
	return h.render(w, r, http.StatusOK, "trash", "Deleted memories", "memories", struct {
		Memories []item
		Pager    pager
	}{items, newPager(Prefix+"memories/trash", q, offset, limit, len(items), len(deleted))})
}

// confirmRestoreMemory asks before a restore.
func (h *Handler) confirmRestoreMemory(w http.ResponseWriter, r *http.Request) error {
	if err := h.refuseReadOnly(); err != nil {
		return err
	}
	m, err := h.needMemories()
	if err != nil {
		return err
	}
	id, err := memoryID(r.URL.Query())
	if err != nil {
		return err
	}
	deleted, err := m.Deleted(r.Context())
	if err != nil {
		return err
	}
	i := slices.IndexFunc(deleted, func(d memories.Memory) bool { return d.ID == id })
	if i < 0 {
		return &httpError{status: http.StatusNotFound, err: memories.ErrNotFound,
			msg: fmt.Sprintf("the trash holds no memory %q; it holds %d deleted memories, listed at %smemories/trash", id, len(deleted), Prefix)}
	}
	return h.render(w, r, http.StatusOK, "confirm", "Restore a memory", "memories", confirmation{
		Class:    "restore",
		Action:   Prefix + "memories/restore",
		CSRF:     h.csrfToken(r, Prefix+"memories/restore"),
		Question: fmt.Sprintf("Restore the memory %q (%s)?", deleted[i].Title, id),
		Detail:   "It is put back into the memories file with its id, date and tags.",
		Fields:   []field{{"id", id}},
		Button:   "Restore",
		Cancel:   Prefix + "memories/trash",
	})
}

// restoreMemory puts a deleted memory back (memories.Manager.Restore, as
// the restore_memory tool does).
func (h *Handler) restoreMemory(w http.ResponseWriter, r *http.Request) error {
	m, err := h.needMemories()
	if err != nil {
		return err
	}
	id, err := memoryID(r.PostForm)
	if err != nil {
		return err
	}
	if _, err := m.Restore(r.Context(), id); err != nil {
		return err
	}
	h.log.Info("ui: memory restored", "id", id)
	http.Redirect(w, r, Prefix+"memories", http.StatusSeeOther)
	return nil
}
