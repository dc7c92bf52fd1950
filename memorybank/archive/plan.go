package archive

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"iter"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

// plan merges the archive's keys with the store's listing (both sorted by
// key), so memory holds only the directories in conflict.
func (im *importer) plan(ctx context.Context, src *io.SectionReader) error {
	next, stop := iter.Pull2(im.store.List(ctx, ""))
	defer stop()
	var dest *memorybank.Object
	advance := func() error {
		obj, err, ok := next()
		if !ok {
			dest = nil
			return nil
		}
		if err != nil {
			return fmt.Errorf("archive: import: listing the bank: %w", err)
		}
		dest = &obj
		return nil
	}
	if err := advance(); err != nil {
		return err
	}
	prevDir, tombEntries := "", 0
	_, err := walk(ctx, src, im.lim, im.screened(func(e entry) error {
		if e.key == "" {
			return im.planMemories(ctx, e)
		}
		curDir := ""
		if e.kind == kindHistory {
			curDir = dirOfHistoryKey(e.key)
		}
		for dest != nil && dest.Key < e.key {
			if strings.HasPrefix(dest.Key, historyDir) {
				if d := dirOfHistoryKey(dest.Key); d == curDir || d == prevDir {
					im.conflicted[d] = true // ours has entries the archive has not
				}
			}
			if err := advance(); err != nil {
				return err
			}
		}
		exists := dest != nil && dest.Key == e.key
		same := false
		if exists {
			obj, err := im.store.Get(ctx, e.key)
			switch {
			case errors.Is(err, memorybank.ErrNotFound):
				exists = false
			case err != nil:
				return fmt.Errorf("archive: import: reading %q: %w", e.key, err)
			default:
				same = bytes.Equal(obj.Data, e.data)
			}
			if err := advance(); err != nil {
				return err
			}
		}
		switch e.kind {
		case kindHistory:
			prevDir = curDir
			if exists && !same {
				im.conflicted[curDir] = true
			}
			switch _, tomb := im.tombs[curDir]; {
			case im.docDirs[curDir]:
				im.hist[curDir] = append(im.hist[curDir], refOf(e))
			case tomb:
				it, seen := im.dirItems[curDir]
				if !seen {
					it = Item{Kind: KindHistory, Key: curDir, Action: Skip}
					tombEntries = 0
				}
				if !exists {
					it.Action = Create
				}
				tombEntries++
				if e.key == im.tombs[curDir].key { // the last of its directory
					if im.conflicted[curDir] {
						it.Action = Conflict
					}
					it.Detail = fmt.Sprintf("the history of a deleted document: %d entries with its tombstone", tombEntries-1)
					if it.Action == Conflict {
						it.Detail += "; ours has another history for this path, ours is kept"
					}
					im.report(it)
				}
				im.dirItems[curDir] = it
			default:
				if _, seen := im.dirItems[curDir]; !seen {
					it := Item{Kind: KindHistory, Key: curDir, Action: Refuse,
						Detail: "history entries without their document or its tombstone: not imported (a history arrives only with its document)"}
					im.dirItems[curDir] = it
					im.report(it)
				}
				return nil
			}
			if !exists {
				im.res.HistoryWritten++
			} else {
				im.res.HistorySkipped++
			}
		case kindDoc, kindSkill:
			it := Item{Kind: KindDocument, Key: e.key}
			dir, _ := historyDirOf(e.key)
			prefix, _, _ := splitBankKey(e.key)
			reason := ""
			if !exists && len(e.data) <= im.maxDoc {
				var err error
				if reason, err = im.collides(ctx, e.key); err != nil {
					return err
				}
			}
			switch {
			case len(e.data) > im.maxDoc:
				it.Action, it.Detail = Refuse, fmt.Sprintf("is %d bytes; a write to this bank takes at most %d (its MaxDocumentBytes)", len(e.data), im.maxDoc)
			case reason != "":
				it.Action, it.Detail = Refuse, reason
			case exists && !same:
				it.Action, it.Detail = Conflict, "ours holds other bytes"
			case im.conflicted[prefix]:
				it.Action, it.Detail = Conflict, "ours holds this branch directory for another branch"
			case im.conflicted[dir]:
				it.Action, it.Detail = Conflict, "ours has another history for this path"
			case same:
				it.Action = Skip
			default:
				it.Action = Create
			}
			if it.Action == Conflict || it.Action == Refuse {
				im.conflicted[dir] = true
			}
			if it.Action == Refuse {
				im.refused[e.key] = it.Detail
			}
			if n := len(im.hist[dir]); it.Action == Create && n > 0 {
				it.Detail = fmt.Sprintf("with %d history entries", n)
			}
			im.report(it)
		default:
			it := Item{Kind: KindKey, Key: e.key, Action: Create}
			reason := ""
			if !exists {
				var err error
				if reason, err = im.collides(ctx, e.key); err != nil {
					return err
				}
			}
			if reason != "" {
				it.Action, it.Detail = Refuse, reason
				im.refused[e.key] = reason
			} else if same {
				it.Action = Skip
			} else if exists {
				it.Action, it.Detail = Conflict, "ours holds other bytes; ours is kept"
				if dir, ok := markerDir(e.key); ok {
					im.conflicted[memorybank.BranchPrefix+dir+"/"] = true
					it.Detail = "ours holds this branch directory for another branch; its documents are conflicts"
				}
			}
			im.report(it)
		}
		return nil
	}))
	// Documents of a history directory found conflicting after them cannot
	// occur: every history key sorts before every document key.
	return err
}
