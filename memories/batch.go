package memories

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
)

// Batches: several memories changed at once, or not at all.
//
// A Batch removes memories and adds new ones in one compare-and-swap
// rewrite of the file, and only if every memory it was built on is still
// as it was read (Expect, by Fingerprint): a memory edited, deleted or
// re-added in between refuses the whole batch with a *ChangedError, and
// nothing is written. Removed memories go to the trash first, as Delete's
// do, so Restore undoes a removal; an added memory is undone by Delete.

// Fingerprint identifies a memory's state: a hash of its id, title, tags,
// date and content. Any change to the memory changes it.
func Fingerprint(m Memory) string {
	h := sha256.New()
	for _, s := range []string{m.ID, m.Title, strings.Join(m.Tags, "\x1f"), m.Date, m.Content} {
		h.Write([]byte(s))
		h.Write([]byte{0})
	}
	return hex.EncodeToString(h.Sum(nil)[:12])
}

// Batch is an all-or-nothing change of the memories file.
type Batch struct {
	// Expect maps the id of each memory the batch was built on to its
	// Fingerprint when it was read. Every memory in Remove must be here.
	Expect map[string]string
	// Remove are the ids of memories to delete (to the trash, if any).
	Remove []string
	// Add are new memories, appended in order. Content is required; an
	// empty ID, Title or Date is filled in as Add would.
	Add []Memory
}

// ErrChanged: a Batch was built on a memory that has changed, or is gone,
// since it was read.
var ErrChanged = errors.New("memories: memory changed since the batch was built")

// ChangedError names the memory that refused a Batch. It unwraps to
// ErrChanged.
type ChangedError struct {
	ID   string
	Want string // the fingerprint the batch was built on
	Got  string // the fingerprint now; "" when the memory is gone
}

func (e *ChangedError) Error() string {
	if e.Got == "" {
		return fmt.Sprintf("%s: %s was deleted meanwhile; nothing was changed: gather the candidates again", ErrChanged, quote(e.ID))
	}
	return fmt.Sprintf("%s: %s is now %s, not %s; nothing was changed: gather the candidates again", ErrChanged, quote(e.ID), e.Got, e.Want)
}

func (e *ChangedError) Unwrap() error { return ErrChanged }

// Apply applies b: it returns the memories added, with their ids, or an
// error and no change. Errors: ErrDisabled, *ChangedError (ErrChanged),
// ErrInvalid (a removed memory not in Expect, bad content), a *LimitError,
// or the Store's.
func (m *Manager) Apply(ctx context.Context, b Batch) ([]Memory, error) {
	if !m.cfg.Enabled {
		return nil, &OpError{Op: "apply", Err: ErrDisabled, Detail: "Config.Enabled is false; nothing was changed"}
	}
	for _, id := range b.Remove {
		if _, ok := b.Expect[id]; !ok {
			return nil, &OpError{Op: "apply", ID: id, Err: ErrInvalid, Detail: "a removed memory must be in Expect with the fingerprint it was read at"}
		}
	}
	adds := make([]Memory, len(b.Add))
	for k, a := range b.Add {
		if err := checkAdd(a.Content, a.Tags); err != nil {
			return nil, err
		}
		mem, err := m.newMemory(a.Content, a.Tags)
		if err != nil {
			return nil, err
		}
		if a.ID != "" {
			mem.ID = a.ID
		}
		if a.Date != "" {
			mem.Date = a.Date
		}
		adds[k] = mem
	}
	check := func(d *Document) error {
		for id, want := range b.Expect {
			got := ""
			if mem, ok := d.Get(id); ok {
				got = Fingerprint(mem)
			}
			if got != want {
				return &OpError{Op: "apply", ID: id, Err: &ChangedError{ID: id, Want: want, Got: got}}
			}
		}
		return nil
	}
	d, _, err := m.load(ctx, "apply")
	if err != nil {
		return nil, err
	}
	if err := check(d); err != nil {
		return nil, err
	}
	if m.trash != nil {
		for _, id := range b.Remove {
			mem, _ := d.Get(id)
			if err := m.toTrash(ctx, mem); err != nil {
				return nil, err
			}
		}
	}
	if _, err := m.rewrite(ctx, "apply", "", func(d *Document) error {
		if err := check(d); err != nil {
			return err
		}
		for _, id := range b.Remove {
			if err := d.Delete(id); err != nil {
				return err
			}
		}
		for _, a := range adds {
			if _, taken := d.Get(a.ID); taken {
				return fmt.Errorf("%w: id %s is taken by another memory", ErrInvalid, quote(a.ID))
			}
			if err := d.Append(a); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return nil, err
	}
	m.log.InfoContext(ctx, "memories: batch applied", "removed", len(b.Remove), "added", len(adds))
	return adds, nil
}
