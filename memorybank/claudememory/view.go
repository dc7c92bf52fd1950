package claudememory

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mnemobank/mnemobank/memorybank"
)

// maxLines is the reference backends' limit on the lines of a viewed file;
// line numbers are right-aligned to its width.
const (
	maxLines        = 999999
	lineNumberWidth = 6
)

func (h *Handler) view(ctx context.Context, in Input) (string, error) {
	p, err := required("view", "path", in.Path)
	if err != nil {
		return "", err
	}
	rel, err := h.resolve("view", p)
	if err != nil {
		return "", err
	}
	if rel != "" {
		text, _, err := h.files.ReadText(ctx, rel)
		if err == nil {
			return h.viewFile(p, text, in.ViewRange)
		}
		if !errors.Is(err, memorybank.ErrNotFound) {
			return "", err
		}
	}
	entries, err := h.files.List(ctx, dirPrefix(rel))
	if err != nil {
		return "", err
	}
	if rel != "" && len(entries) == 0 {
		return "", notExist("view", p)
	}
	return h.listing(rel, entries), nil
}

func notExist(cmd, p string) error {
	// Worded as the reference backends word it.
	return &ToolError{Command: cmd, Path: p, Err: ErrNotFound,
		Text: fmt.Sprintf("The path %s does not exist. Please provide a valid path.", p)}
}

// viewFile numbers the lines of text as the reference backends do: split on
// "\n" (so a final newline shows as an empty last line), numbers
// right-aligned to six columns, a tab, the line.
func (h *Handler) viewFile(p, text string, viewRange []int) (string, error) {
	lines := strings.Split(text, "\n")
	if len(lines) > maxLines {
		return "", &ToolError{Command: "view", Path: p, Err: ErrLimit,
			Text: fmt.Sprintf("File %s exceeds maximum line limit of 999,999 lines.", p)}
	}
	start, end := 1, len(lines)
	if len(viewRange) > 0 { // [] means none, as in the reference backends
		bad := func(format string, args ...any) error {
			return &ToolError{Command: "view", Path: p, Err: ErrLineRange, Text: fmt.Sprintf(format, args...)}
		}
		if len(viewRange) != 2 {
			return "", bad("Invalid `view_range` parameter: %v. It should be a list of two integers, [first, last], with last -1 for the end of the file.", viewRange)
		}
		start, end = max(1, viewRange[0]), viewRange[1]
		if end == -1 {
			end = len(lines)
		}
		if start > len(lines) {
			return "", bad("Invalid `view_range` parameter: %v. Its first element `%d` should be within the range of lines of the file: [1, %d].", viewRange, viewRange[0], len(lines))
		}
		if end < start {
			return "", bad("Invalid `view_range` parameter: %v. Its second element `%d` should be -1 or at least its first element `%d`.", viewRange, viewRange[1], start)
		}
		end = min(end, len(lines))
	}
	var b strings.Builder
	b.WriteString("Here's the content of " + p + " with line numbers:")
	for n := start; n <= end; n++ {
		line := number(n, lines[n-1])
		if b.Len()+1+len(line) > h.opts.MaxViewBytes {
			if n == start { // one line longer than the limit: show its start
				line = cut(line, h.opts.MaxViewBytes-b.Len()-1)
				b.WriteString("\n" + line)
				fmt.Fprintf(&b, "\n[line %d is cut after %d bytes: the view is limited to %d bytes]", n, len(line), h.opts.MaxViewBytes)
				n++
			}
			if n <= end {
				fmt.Fprintf(&b, "\n[lines %d-%d not shown: the view is limited to %d bytes; view them with view_range [%d, %d]]",
					n, end, h.opts.MaxViewBytes, n, end)
			}
			break
		}
		b.WriteString("\n" + line)
	}
	return b.String(), nil
}

func number(n int, line string) string {
	s := strconv.Itoa(n)
	if len(s) < lineNumberWidth {
		s = strings.Repeat(" ", lineNumberWidth-len(s)) + s
	}
	return s + "\t" + line
}

// cut shortens s to at most n bytes at a rune boundary.
func cut(s string, n int) string {
	if n <= 0 {
		return ""
	}
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

// node is a directory of a listing, built from the flat List result.
type node struct {
	size     int64
	dir      bool
	children map[string]*node
}

// listing renders a directory as the reference backends do: the files and
// directories up to two levels deep, each directory's entries sorted by
// name, a directory right before its own entries and marked with a
// trailing slash. A directory's size is the total size of the files under
// it (a flat store has no directory inodes to measure).
func (h *Handler) listing(rel string, entries []Entry) string {
	root := &node{dir: true, children: map[string]*node{}}
	prefix := dirPrefix(rel)
	for _, e := range entries {
		name, ok := strings.CutPrefix(e.Path, prefix)
		if !ok || name == "" {
			continue
		}
		n := root
		n.size += e.Size
		segs := strings.Split(name, "/")
		for i, seg := range segs {
			c := n.children[seg]
			if c == nil {
				c = &node{dir: i < len(segs)-1}
				if c.dir {
					c.children = map[string]*node{}
				}
				n.children[seg] = c
			}
			c.size += e.Size
			n = c
			if !n.dir {
				break // a file that is also a directory in a store that allows it: show the file
			}
		}
	}
	disp := display(rel)
	var b strings.Builder
	b.WriteString("Here're the files and directories up to 2 levels deep in " + disp + ", excluding hidden items:\n")
	b.WriteString(formatSize(root.size) + "\t" + disp)
	shown, total := 0, 0
	var walk func(n *node, path string, depth int)
	walk = func(n *node, path string, depth int) {
		for _, name := range slices.Sorted(maps.Keys(n.children)) {
			if strings.HasPrefix(name, ".") {
				continue
			}
			c := n.children[name]
			p := name
			if path != "" {
				p = path + "/" + name
			}
			line := formatSize(c.size) + "\t" + disp + "/" + p
			if c.dir {
				line += "/"
			}
			total++
			if shown == total-1 && b.Len()+1+len(line) <= h.opts.MaxViewBytes-200 {
				b.WriteString("\n" + line)
				shown++
			}
			if c.dir && depth < 2 {
				walk(c, p, depth+1)
			}
		}
	}
	walk(root, "", 1)
	if shown < total {
		fmt.Fprintf(&b, "\n[%d more entries not shown: the listing is limited to %d bytes; view a subdirectory to see its entries]",
			total-shown, h.opts.MaxViewBytes)
	}
	return b.String()
}

// formatSize renders a byte count as the reference backends do: 0B, 37B,
// 1.5K, 2M; one decimal unless the value is whole.
func formatSize(n int64) string {
	if n <= 0 {
		return "0B"
	}
	units := []string{"B", "K", "M", "G"}
	i := min((bitLen(n)-1)/10, len(units)-1)
	size := float64(n) / float64(int64(1)<<(10*i))
	if size == float64(int64(size)) {
		return strconv.FormatInt(int64(size), 10) + units[i]
	}
	return strconv.FormatFloat(size, 'f', 1, 64) + units[i]
}

func bitLen(n int64) int {
	l := 0
	for ; n > 0; n >>= 1 {
		l++
	}
	return l
}
