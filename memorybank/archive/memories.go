package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"slices"

	"github.com/mnemobank/mnemobank/memories"
)

func (im *importer) memStore(e entry) (memories.Store, string) {
	if e.name == MemoriesName {
		return im.mem.File, KindMemory
	}
	return im.mem.Trash, KindTrash
}

// planMemories reports, per archived memory, what an import would do.
func (im *importer) planMemories(ctx context.Context, e entry) error {
	st, kind := im.memStore(e)
	if st == nil {
		return nil
	}
	data, _, err := st.Load(ctx)
	if err != nil {
		return fmt.Errorf("archive: import: reading the %s file: %w", kind, err)
	}
	_, items := mergeMemories(data, e.data, KeepOurs, kind)
	for _, it := range items {
		im.report(it)
	}
	return nil
}

// applyMemories merges the archived memories file into ours, by memory id,
// with compare-and-swap (a few retries when another writer was first).
func (im *importer) applyMemories(ctx context.Context, e entry) error {
	st, kind := im.memStore(e)
	if st == nil {
		return nil
	}
	for attempt := 0; ; attempt++ {
		data, version, err := st.Load(ctx)
		if err != nil {
			return fmt.Errorf("archive: import: reading the %s file: %w", kind, err)
		}
		merged, items := mergeMemories(data, e.data, im.o.OnConflict, kind)
		if merged != nil {
			_, err = st.Save(ctx, merged, version)
			if errors.Is(err, memories.ErrConflict) && attempt < 5 {
				continue
			}
			if err != nil {
				return fmt.Errorf("archive: import: writing the %s file: %w", kind, err)
			}
		}
		for _, it := range items {
			im.report(it)
		}
		return nil
	}
}

// mergeMemories merges theirs into ours. It returns the new file (nil when
// nothing changes) and one item per archived memory. An empty file of ours
// becomes theirs byte for byte.
func mergeMemories(ours, theirs []byte, policy Policy, kind string) ([]byte, []Item) {
	td := memories.Parse(theirs)
	var items []Item
	if len(bytes.TrimSpace(ours)) == 0 {
		for _, m := range td.Memories() {
			items = append(items, Item{Kind: kind, Key: m.ID, Action: Create})
		}
		if bytes.Equal(ours, theirs) {
			return nil, items
		}
		return theirs, items
	}
	od := memories.Parse(ours)
	changed := false
	for _, m := range td.Memories() {
		it := Item{Kind: kind, Key: m.ID}
		o, ok := od.Get(m.ID)
		switch {
		case !ok:
			it.Action = Create
			if od.Append(m) == nil {
				changed = true
			}
		case o.Content == m.Content && o.Date == m.Date && slices.Equal(o.Tags, m.Tags):
			it.Action = Skip
		default:
			it.Action, it.Detail = Conflict, "ours has another memory with this id"
			switch policy {
			case KeepTheirs:
				if od.Delete(m.ID) == nil && od.Append(m) == nil {
					changed, it.Resolution = true, "theirs replaces ours"
				}
			case KeepBoth:
				alt := m
				alt.ID = m.ID + "-imported"
				if _, taken := od.Get(alt.ID); taken {
					it.Resolution = "kept both: theirs is already at " + alt.ID
				} else if od.Append(alt) == nil {
					changed, it.Resolution = true, "kept both: theirs added as "+alt.ID
				}
			default:
				it.Resolution = "kept ours"
			}
		}
		items = append(items, it)
	}
	if !changed {
		return nil, items
	}
	return memories.Format(od), items
}
