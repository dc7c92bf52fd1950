package foreign

import (
	"path"
	"strings"
)

// ReadMarkdownDir reads a folder of Markdown notes (a basic-memory
// project, an Obsidian vault): every .md and .markdown file under dir, at
// prefix + its path ("" is MarkdownPrefix). Dot-files and dot-directories
// (.obsidian, .git, .trash) are not read. A note's front matter (title,
// tags, type, permalink, aliases, ...) is kept as the document's metadata.
func ReadMarkdownDir(dir, prefix string, lim *Limits) ([]Doc, error) {
	if prefix == "" {
		prefix = MarkdownPrefix
	}
	return readDir(dir, prefix, lim.withDefaults(), func(rel string, isDir bool) bool {
		if strings.HasPrefix(path.Base(rel), ".") {
			return false
		}
		return isDir || isMarkdown(rel)
	}, nil)
}
