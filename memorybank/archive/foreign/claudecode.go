package foreign

import (
	"fmt"
	"os"
	"path"
	"strings"
)

// Bank folders the readers write to by default.
const (
	ClaudeCodePrefix = "claude-code/"
	// ClaudeCodeMemoryPrefix is where an auto-memory folder goes.
	ClaudeCodeMemoryPrefix = "claude-code/memory/"
	MCPMemoryPrefix        = "mcp-memory/"
	MemoryStorePrefix      = "memories/" // claudememory.BankPrefix
	MarkdownPrefix         = "notes/"
)

// AutoMemoryIndex is the index file of a Claude Code auto-memory folder.
const AutoMemoryIndex = "MEMORY.md"

// IsAutoMemoryDir reports whether dir is a Claude Code auto-memory folder:
// it holds a MEMORY.md index.
func IsAutoMemoryDir(dir string) bool {
	fi, err := os.Lstat(dir + string(os.PathSeparator) + AutoMemoryIndex)
	return err == nil && fi.Mode().IsRegular()
}

// ReadClaudeCode reads Claude Code's memory in dir. When dir is an
// auto-memory folder (it holds MEMORY.md: ~/.claude/projects/<project>/memory),
// every Markdown file in it goes under prefix ("" is
// ClaudeCodeMemoryPrefix). Otherwise dir is a project: its CLAUDE.md and
// CLAUDE.local.md files at any depth (not inside dot-directories other
// than .claude, nor node_modules), .claude/CLAUDE.md and
// .claude/rules/**/*.md go under prefix ("" is ClaudeCodePrefix), the
// .claude folder as "claude".
func ReadClaudeCode(dir, prefix string, lim *Limits) ([]Doc, error) {
	l := lim.withDefaults()
	if IsAutoMemoryDir(dir) {
		if prefix == "" {
			prefix = ClaudeCodeMemoryPrefix
		}
		return readDir(dir, prefix, l, func(rel string, isDir bool) bool {
			if strings.HasPrefix(path.Base(rel), ".") {
				return false
			}
			return isDir || isMarkdown(rel)
		}, nil)
	}
	if prefix == "" {
		prefix = ClaudeCodePrefix
	}
	return readDir(dir, prefix, l, func(rel string, isDir bool) bool {
		base := path.Base(rel)
		inClaude := rel == ".claude" || strings.HasPrefix(rel, ".claude/")
		if isDir {
			if inClaude {
				return rel == ".claude" || rel == ".claude/rules" || strings.HasPrefix(rel, ".claude/rules/")
			}
			return !strings.HasPrefix(base, ".") && base != "node_modules"
		}
		if strings.HasPrefix(rel, ".claude/rules/") {
			return isMarkdown(rel) && !strings.HasPrefix(base, ".")
		}
		return base == "CLAUDE.md" || base == "CLAUDE.local.md"
	}, func(rel string) string {
		if r, ok := strings.CutPrefix(rel, ".claude/"); ok {
			return "claude/" + r
		}
		return rel
	})
}

// readDir walks dir for the files keep accepts and reads them into Docs
// at prefix + rename(rel). Every bound is checked on the listing first.
func readDir(dir, prefix string, l Limits, keep func(string, bool) bool, rename func(string) string) ([]Doc, error) {
	root, files, err := walkTree(dir, l, keep)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	docs := make([]Doc, 0, len(files))
	seen := map[string]string{}
	for _, f := range files {
		rel := f.rel
		if rename != nil {
			rel = rename(rel)
		}
		p, err := bankPath(dir, f.rel, prefix, rel)
		if err != nil {
			return nil, err
		}
		if other, ok := seen[strings.ToLower(p)]; ok {
			return nil, &SourceError{Source: dir, Entry: f.rel, Reason: fmt.Sprintf("its bank path %s differs from that of %s only by letter case", p, other), Err: ErrUnsafePath}
		}
		seen[strings.ToLower(p)] = f.rel
		docs = append(docs, Doc{Path: p, Source: f.rel})
	}
	for i, f := range files {
		text, err := readFile(root, dir, f, l)
		if err != nil {
			return nil, err
		}
		docs[i].Text = text
	}
	return docs, nil
}
