package claudememory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

func (h *Handler) delete(ctx context.Context, in Input) (string, error) {
	p, err := required("delete", "path", in.Path)
	if err != nil {
		return "", err
	}
	rel, err := h.resolve("delete", p)
	if err != nil {
		return "", err
	}
	if rel == "" {
		return "", &ToolError{Command: "delete", Path: p, Err: ErrInvalidPath, Text: "Cannot delete the /memories directory itself"}
	}
	missing := &ToolError{Command: "delete", Path: p, Err: ErrNotFound, Text: fmt.Sprintf("The path %s does not exist", p)}
	// A file: delete the version read, and if another writer replaced it
	// meanwhile, the latest one (the model asked for the file to go).
	for attempt := 0; ; attempt++ {
		_, version, err := h.files.ReadText(ctx, rel)
		if errors.Is(err, memorybank.ErrNotFound) {
			if attempt > 0 {
				return "Successfully deleted " + p, nil // another writer deleted it meanwhile
			}
			break
		}
		if err != nil {
			return "", err
		}
		err = h.files.Delete(ctx, rel, memorybank.Condition{IfVersion: version})
		if err == nil || errors.Is(err, memorybank.ErrNotFound) {
			return "Successfully deleted " + p, nil
		}
		if !errors.Is(err, memorybank.ErrConflict) {
			return "", err
		}
		if attempt >= h.opts.MaxRetries {
			return "", &ToolError{Command: "delete", Path: p, Err: ErrContention, Text: fmt.Sprintf(
				"%s was not deleted: other writers changed it %d times meanwhile. Try again.", p, attempt+1)}
		}
		if err := backoff(ctx, attempt); err != nil {
			return "", err
		}
	}
	// A directory: delete each file at the version listed; a file another
	// writer changed since is kept and reported, so no one's edit is lost
	// to a delete that did not see it.
	entries, err := h.files.List(ctx, rel+"/")
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return "", missing
	}
	var kept []string
	for _, e := range entries {
		err := h.files.Delete(ctx, e.Path, memorybank.Condition{IfVersion: e.Version})
		switch {
		case err == nil, errors.Is(err, memorybank.ErrNotFound):
		case errors.Is(err, memorybank.ErrConflict):
			kept = append(kept, display(e.Path))
		default:
			return "", err
		}
	}
	if len(kept) > 0 {
		return "", &ToolError{Command: "delete", Path: p, Err: ErrPartial, Text: fmt.Sprintf(
			"Deleted %d of the %d files in %s; kept %s, which another writer changed meanwhile. View them, then delete again if they should go.",
			len(entries)-len(kept), len(entries), p, strings.Join(kept, ", "))}
	}
	return "Successfully deleted " + p, nil
}

func (h *Handler) rename(ctx context.Context, in Input) (string, error) {
	oldP, err := required("rename", "old_path", in.OldPath)
	if err != nil {
		return "", err
	}
	newP, err := required("rename", "new_path", in.NewPath)
	if err != nil {
		return "", err
	}
	oldRel, err := h.resolve("rename", oldP)
	if err != nil {
		return "", err
	}
	newRel, err := h.resolve("rename", newP)
	if err != nil {
		return "", err
	}
	exists := &ToolError{Command: "rename", Path: newP, Err: ErrExists,
		Text: fmt.Sprintf("The destination %s already exists", newP)} // the reference backends' words
	missing := &ToolError{Command: "rename", Path: oldP, Err: ErrNotFound,
		Text: fmt.Sprintf("The path %s does not exist", oldP)}
	switch {
	case oldRel == "":
		return "", &ToolError{Command: "rename", Path: oldP, Err: ErrInvalidPath, Text: "Cannot rename the /memories directory itself"}
	case newRel == "" || newRel == oldRel:
		return "", exists
	case strings.HasPrefix(newRel, oldRel+"/"):
		return "", &ToolError{Command: "rename", Path: newP, Err: ErrInvalidPath, Text: fmt.Sprintf(
			"Cannot move %s into itself (%s); choose a destination outside it.", oldP, newP)}
	}
	all, err := h.files.List(ctx, "")
	if err != nil {
		return "", err
	}
	var moving []Entry
	for _, e := range all {
		if e.Path == oldRel || strings.HasPrefix(e.Path, oldRel+"/") {
			moving = append(moving, e)
		}
	}
	if err := h.checkPlace("rename", newP, newRel, all, false, exists); err != nil {
		return "", err
	}
	if len(moving) == 0 {
		return "", missing
	}
	// Each file is copied (create-only) and then its source deleted at the
	// version copied. A crash in between leaves the file in both places,
	// never in neither; a source changed meanwhile has its copy removed and
	// is moved again from its latest text.
	var kept []string
	for _, e := range moving {
		dst := newRel + strings.TrimPrefix(e.Path, oldRel)
		err := h.moveFile(ctx, e.Path, dst)
		switch {
		case err == nil:
		case errors.Is(err, memorybank.ErrNotFound) && len(moving) == 1:
			return "", missing
		case errors.Is(err, memorybank.ErrNotFound):
			// deleted by another writer meanwhile: nothing to move
		case errors.Is(err, memorybank.ErrConflict) && len(moving) == 1:
			return "", exists
		case errors.Is(err, memorybank.ErrConflict), errors.Is(err, ErrContention):
			kept = append(kept, display(e.Path))
		default:
			return "", err
		}
	}
	if len(kept) > 0 {
		return "", &ToolError{Command: "rename", Path: oldP, Err: ErrPartial, Text: fmt.Sprintf(
			"Moved %d of the %d files of %s to %s; kept %s where it was, because other writers changed it or its destination meanwhile. View both directories and move the rest again.",
			len(moving)-len(kept), len(moving), oldP, newP, strings.Join(kept, ", "))}
	}
	return fmt.Sprintf("Successfully renamed %s to %s", oldP, newP), nil
}

// moveFile moves one file by compare-and-swap. It returns an error matching
// memorybank.ErrNotFound when src is gone, memorybank.ErrConflict when dst
// is taken, ErrContention when src kept changing.
func (h *Handler) moveFile(ctx context.Context, src, dst string) error {
	for attempt := 0; ; attempt++ {
		text, version, err := h.files.ReadText(ctx, src)
		if err != nil {
			return err
		}
		dstVersion, err := h.files.WriteText(ctx, dst, text, memorybank.Condition{IfAbsent: true})
		if err != nil {
			return err
		}
		err = h.files.Delete(ctx, src, memorybank.Condition{IfVersion: version})
		if err == nil {
			return nil
		}
		// Take the copy back: the source changed or went away after it was read.
		if uerr := h.files.Delete(ctx, dst, memorybank.Condition{IfVersion: dstVersion}); uerr != nil && !errors.Is(uerr, memorybank.ErrNotFound) {
			return fmt.Errorf("moving %s to %s: %w; and removing the copy failed: %w", display(src), display(dst), err, uerr)
		}
		if errors.Is(err, memorybank.ErrNotFound) {
			return err
		}
		if !errors.Is(err, memorybank.ErrConflict) {
			return err
		}
		if attempt >= h.opts.MaxRetries {
			return ErrContention
		}
		if err := backoff(ctx, attempt); err != nil {
			return err
		}
	}
}
