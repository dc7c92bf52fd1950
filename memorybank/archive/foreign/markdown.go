package foreign

import (
	"io/fs"
	"path"
	"strings"
)

// ReadMarkdownDir reads a folder of Markdown notes (a basic-memory
// project, an Obsidian vault), fsys, which source names (in errors and the
// plan): every .md and .markdown file in it, at
// prefix + its path ("" is MarkdownPrefix). Dot-files and dot-directories
// (.obsidian, .git, .trash) are not read. Every other file (an
// attachment, an Obsidian .canvas) is reported as not read. A note is
// imported byte for byte: its front matter (title, tags, type, permalink,
// aliases, ...) stays where it was written, and the bank reads its title
// and tags from it.
func ReadMarkdownDir(fsys fs.FS, source, prefix string, o *DirOptions) ([]Doc, error) {
	if prefix == "" {
		prefix = MarkdownPrefix
	}
	return readDir(fsys, source, prefix, o, func(rel string, isDir bool) string {
		switch {
		case strings.HasPrefix(path.Base(rel), "."):
			return "-"
		case isDir || isMarkdown(rel):
			return ""
		}
		return "not Markdown: only .md and .markdown notes are imported"
	}, nil)
}
