package memories

import (
	"context"
	"errors"
	"fmt"
)

// DefaultTrashEntries is how many deleted memories a Manager with a Trash
// keeps when Options.TrashEntries is 0.
const DefaultTrashEntries = 100

// The trash: a Manager given Options.Trash (a second Store, for example
// filestore's memories.trash.md beside memories.md) copies each memory it
// deletes there first, in the same format, so Restore can put it back with
// its id, date and tags. The trash keeps the newest TrashEntries memories;
// older ones are dropped. The copy is written before the delete: a process
// stopped between the two leaves the memory in both, never in neither, and
// Restore of a memory that is still in the file only empties it from the
// trash.

// toTrash copies mem to the trash, dropping the oldest entries past the
// limit.
func (m *Manager) toTrash(ctx context.Context, mem Memory) error {
	return m.rewriteStore(ctx, m.trash, "delete", mem.ID, func(d *Document) error {
		if _, ok := d.Get(mem.ID); ok {
			return nil // deleted, restored and deleted again: one copy
		}
		if err := d.Append(mem); err != nil {
			return err
		}
		for ms := d.all(); len(ms) > m.trashMax; ms = d.all() {
			if err := d.Delete(ms[0].ID); err != nil {
				return err
			}
		}
		return nil
	})
}

// Restore puts a deleted memory back into the file, with its id, and
// removes it from the trash. It returns ErrNotFound when the trash does not
// hold it (never deleted, dropped as too old, or no Trash configured).
func (m *Manager) Restore(ctx context.Context, id string) (Memory, error) {
	if err := checkLen("restore", "id", id, MaxIDBytes); err != nil {
		return Memory{}, err
	}
	if !m.cfg.Enabled {
		return Memory{}, &OpError{Op: "restore", ID: id, Err: ErrDisabled, Detail: "Config.Enabled is false; nothing was changed"}
	}
	if m.trash == nil {
		return Memory{}, &OpError{Op: "restore", ID: id, Err: ErrNotFound, Detail: "no trash is configured (Options.Trash), so deleted memories are not kept"}
	}
	data, _, err := m.trash.Load(ctx)
	if err != nil {
		return Memory{}, &OpError{Op: "restore", ID: id, Err: err, Detail: "reading the trash"}
	}
	t := Parse(data)
	mem, ok := t.Get(id)
	if !ok {
		n := t.Len()
		return Memory{}, &OpError{Op: "restore", ID: id, Err: ErrNotFound, Detail: fmt.Sprintf(
			"the trash holds %d deleted memories, not this one; list them with Deleted", n)}
	}
	if _, err := m.rewrite(ctx, "restore", id, func(d *Document) error {
		if _, present := d.Get(id); present {
			return nil
		}
		return d.Append(mem)
	}); err != nil {
		return Memory{}, err
	}
	if err := m.rewriteStore(ctx, m.trash, "restore", id, func(d *Document) error {
		err := d.Delete(id)
		if errors.Is(err, ErrNotFound) {
			return nil // restored by someone else meanwhile
		}
		return err
	}); err != nil {
		return Memory{}, err
	}
	m.log.InfoContext(ctx, "memories: memory restored", "id", id)
	return mem, nil
}

// Deleted lists the memories in the trash, newest deletion last.
func (m *Manager) Deleted(ctx context.Context) ([]Memory, error) {
	if m.trash == nil {
		return []Memory{}, nil
	}
	data, _, err := m.trash.Load(ctx)
	if err != nil {
		return nil, &OpError{Op: "list", Err: err, Detail: "reading the trash"}
	}
	return Parse(data).Memories(), nil
}

// TrashCapacity is how many deleted memories the trash keeps (0: no trash,
// deletes cannot be undone). A caller removing more at once than this
// could not restore them all.
func (m *Manager) TrashCapacity() int {
	if m.trash == nil {
		return 0
	}
	return m.trashMax
}
