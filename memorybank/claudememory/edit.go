package claudememory

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
)

func (h *Handler) create(ctx context.Context, in Input) (string, error) {
	p, err := required("create", "path", in.Path)
	if err != nil {
		return "", err
	}
	text, err := required("create", "file_text", in.FileText)
	if err != nil {
		return "", err
	}
	rel, err := h.resolve("create", p)
	if err != nil {
		return "", err
	}
	if strings.HasSuffix(p, "/") && rel != "" {
		return "", &ToolError{Command: "create", Path: p, Err: ErrInvalidPath, Text: fmt.Sprintf(
			"The path %s ends with a slash; create makes a file, so give its name, e.g. %snotes.md. Directories are made as files are created in them.", p, p)}
	}
	exists := &ToolError{Command: "create", Path: p, Err: ErrExists,
		Text: fmt.Sprintf("File %s already exists", p)} // the reference backends' words
	if rel == "" {
		return "", exists
	}
	if err := h.checkSize("create", p, len(text)); err != nil {
		return "", err
	}
	all, err := h.files.List(ctx, "")
	if err != nil {
		return "", err
	}
	if err := h.checkPlace("create", p, rel, all, true, exists); err != nil {
		return "", err
	}
	if _, err := h.files.WriteText(ctx, rel, text, memorybank.Condition{IfAbsent: true}); err != nil {
		if errors.Is(err, memorybank.ErrConflict) {
			return "", exists
		}
		return "", err
	}
	return "File created successfully at: " + p, nil
}

func (h *Handler) checkSize(cmd, p string, n int) error {
	if n > h.opts.MaxFileBytes {
		return &ToolError{Command: cmd, Path: p, Err: ErrLimit, Text: fmt.Sprintf(
			"No change was made to %s: the file would be %d bytes, and a memory file holds at most %d bytes. Keep memory files short, or split this one.",
			p, n, h.opts.MaxFileBytes)}
	}
	return nil
}

// checkPlace checks that a new file (or directory) at rel fits among the
// files all: nothing is there yet, no ancestor is a file, and neither a
// directory on the way nor the whole tree goes over its limit. Another
// writer may create files between this check and the write, so a limit
// can be overshot by the number of concurrent writers, never more.
func (h *Handler) checkPlace(cmd, p, rel string, all []Entry, newFile bool, exists error) error {
	if hasFile(all, rel) || hasDir(all, rel) {
		return exists
	}
	segs := strings.Split(rel, "/")
	for i := 1; i < len(segs); i++ {
		anc := strings.Join(segs[:i], "/")
		if hasFile(all, anc) {
			return &ToolError{Command: cmd, Path: p, Err: ErrNotFile, Text: fmt.Sprintf(
				"Cannot create %s: %s is a file, not a directory.", p, display(anc))}
		}
	}
	if newFile && len(all) >= h.opts.MaxFiles {
		return &ToolError{Command: cmd, Path: p, Err: ErrLimit, Text: fmt.Sprintf(
			"Cannot create %s: /memories holds %d files, the limit. Delete or merge files first.", p, len(all))}
	}
	// The first directory on the way that does not yet hold the next
	// segment gains one entry.
	for i := range segs {
		dir := strings.Join(segs[:i], "/")
		entries := children(all, dir)
		if _, ok := entries[segs[i]]; ok {
			continue
		}
		if len(entries) >= h.opts.MaxDirEntries {
			return &ToolError{Command: cmd, Path: p, Err: ErrLimit, Text: fmt.Sprintf(
				"Cannot create %s: %s holds %d entries, the limit. Put the file in a subdirectory, or delete or merge files first.",
				p, display(dir), len(entries))}
		}
		break
	}
	return nil
}

func hasFile(all []Entry, rel string) bool {
	for _, e := range all {
		if e.Path == rel {
			return true
		}
	}
	return false
}

func hasDir(all []Entry, rel string) bool {
	for _, e := range all {
		if strings.HasPrefix(e.Path, rel+"/") {
			return true
		}
	}
	return false
}

// children returns the names directly in directory dir.
func children(all []Entry, dir string) map[string]struct{} {
	prefix := dirPrefix(dir)
	names := map[string]struct{}{}
	for _, e := range all {
		if rest, ok := strings.CutPrefix(e.Path, prefix); ok && rest != "" {
			name, _, _ := strings.Cut(rest, "/")
			names[name] = struct{}{}
		}
	}
	return names
}

// edit applies change to the file at p by compare-and-swap: read the text
// and its version, compute, write if the version is still current, and on
// a conflict do it again on the latest text. change sees retried=true when
// an earlier attempt lost its race, so its messages can say the file
// changed under it.
func (h *Handler) edit(ctx context.Context, cmd, p string, change func(text string, retried bool) (string, error)) (newText string, err error) {
	rel, err := h.resolve(cmd, p)
	if err != nil {
		return "", err
	}
	notFile := &ToolError{Command: cmd, Path: p, Err: ErrNotFile, Text: fmt.Sprintf("The path %s is not a file.", p)}
	if rel == "" || strings.HasSuffix(p, "/") {
		return "", notFile
	}
	for attempt := 0; ; attempt++ {
		text, version, err := h.files.ReadText(ctx, rel)
		if errors.Is(err, memorybank.ErrNotFound) {
			if attempt > 0 { // the reference backends' words for this race
				return "", &ToolError{Command: cmd, Path: p, Err: ErrNotFound, Text: fmt.Sprintf(
					"The file %s no longer exists (may have been deleted or renamed concurrently).", p)}
			}
			entries, lerr := h.files.List(ctx, rel+"/")
			if lerr != nil {
				return "", lerr
			}
			if len(entries) > 0 {
				return "", notFile
			}
			return "", notExist(cmd, p)
		}
		if err != nil {
			return "", err
		}
		next, err := change(text, attempt > 0)
		if err != nil {
			return "", err
		}
		if err := h.checkSize(cmd, p, len(next)); err != nil {
			return "", err
		}
		_, err = h.files.WriteText(ctx, rel, next, memorybank.Condition{IfVersion: version})
		if err == nil {
			return next, nil
		}
		if !errors.Is(err, memorybank.ErrConflict) {
			return "", err
		}
		if attempt >= h.opts.MaxRetries {
			return "", &ToolError{Command: cmd, Path: p, Err: ErrContention, Text: fmt.Sprintf(
				"No change was made to %s: other writers changed it %d times while this %s was being applied. View the file and try again.",
				p, attempt+1, cmd)}
		}
		if err := backoff(ctx, attempt); err != nil {
			return "", err
		}
	}
}

// concurrently is appended to a refusal that only arose on a retry.
const concurrently = " (Another writer changed the file while this edit was being applied; view it before editing again.)"

func (h *Handler) strReplace(ctx context.Context, in Input) (string, error) {
	p, err := required("str_replace", "path", in.Path)
	if err != nil {
		return "", err
	}
	old, err := required("str_replace", "old_str", in.OldStr)
	if err != nil {
		return "", err
	}
	repl, err := required("str_replace", "new_str", in.NewStr)
	if err != nil {
		return "", err
	}
	if old == "" {
		return "", &ToolError{Command: "str_replace", Path: p, Err: ErrInvalidInput,
			Text: "No replacement was performed: old_str is empty. Give the exact text to replace; use insert to add text."}
	}
	changedLine := 0
	next, err := h.edit(ctx, "str_replace", p, func(text string, retried bool) (string, error) {
		note := ""
		if retried {
			note = concurrently
		}
		switch n := strings.Count(text, old); {
		case n == 0:
			return "", &ToolError{Command: "str_replace", Path: p, Err: ErrNoMatch, Text: fmt.Sprintf(
				"No replacement was performed, old_str `%s` did not appear verbatim in %s.%s", echo(old), p, note)}
		case n > 1:
			return "", &ToolError{Command: "str_replace", Path: p, Err: ErrAmbiguous, Text: fmt.Sprintf(
				"No replacement was performed. Multiple occurrences of old_str `%s` in lines: %s. Please ensure it is unique%s",
				echo(old), matchLines(text, old), note)}
		}
		pos := strings.Index(text, old)
		changedLine = strings.Count(text[:pos], "\n")
		return text[:pos] + repl + text[pos+len(old):], nil
	})
	if err != nil {
		return "", err
	}
	lines := strings.Split(next, "\n")
	var b strings.Builder
	b.WriteString("The memory file has been edited. Here is the snippet showing the change (with line numbers):")
	for n := max(0, changedLine-2) + 1; n <= min(len(lines), changedLine+3); n++ {
		b.WriteString("\n" + cut(number(n, lines[n-1]), h.opts.MaxViewBytes/5))
	}
	return b.String(), nil
}

// matchLines lists the line of every occurrence of s in text, overlapping
// ones included, as the reference backends do ("1, 2, 3").
func matchLines(text, s string) string {
	var b strings.Builder
	line, last := 1, 0
	for i := 0; ; i++ {
		j := strings.Index(text[i:], s)
		if j < 0 {
			break
		}
		i += j
		line += strings.Count(text[last:i], "\n")
		last = i
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprint(&b, line)
		if b.Len() > 1000 {
			b.WriteString(", ...")
			break
		}
	}
	return b.String()
}

func (h *Handler) insert(ctx context.Context, in Input) (string, error) {
	p, err := required("insert", "path", in.Path)
	if err != nil {
		return "", err
	}
	if in.InsertLine == nil {
		return "", &ToolError{Command: "insert", Path: p, Err: ErrInvalidInput, Text: "Parameter `insert_line` is required for command: insert"}
	}
	at := *in.InsertLine
	ins, err := required("insert", "insert_text", in.InsertText)
	if err != nil {
		return "", err
	}
	ins = strings.TrimRight(ins, "\n")
	_, err = h.edit(ctx, "insert", p, func(text string, retried bool) (string, error) {
		// Lines as Python's str.splitlines sees a text of "\n"-ended
		// lines: a final newline ends the last line rather than starting
		// an empty one. Unlike splitlines, "\r" and other separators stay
		// part of their line, so the rest of the file is kept byte for byte.
		var lines []string
		if text != "" {
			lines = strings.Split(strings.TrimSuffix(text, "\n"), "\n")
		}
		if at < 0 || at > len(lines) {
			note := ""
			if retried {
				note = concurrently
			}
			return "", &ToolError{Command: "insert", Path: p, Err: ErrLineRange, Text: fmt.Sprintf(
				"Invalid `insert_line` parameter: %d. It should be within the range [0, %d].%s", at, len(lines), note)}
		}
		lines = append(lines[:at], append([]string{ins}, lines[at:]...)...)
		// Every line ends with "\n", as in the reference backends, which
		// add one to a file that lacked it. Unlike them, a file ending in a
		// blank line keeps it, and an empty insert_text inserts a line.
		return strings.Join(lines, "\n") + "\n", nil
	})
	if err != nil {
		return "", err
	}
	return "The file " + p + " has been edited.", nil
}

// echo is old_str as messages quote it: whole, as the reference backends
// do, up to 1000 bytes, so a refusal never outgrows a view.
func echo(s string) string {
	if len(s) <= 1000 {
		return s
	}
	return cut(s, 1000) + fmt.Sprintf("[... %d more bytes]", len(s)-len(cut(s, 1000)))
}
