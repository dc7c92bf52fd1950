package foreign

import (
	"fmt"
	"io/fs"
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

// IsAutoMemoryDir reports whether fsys is a Claude Code auto-memory
// folder: it holds a MEMORY.md index (a file, not a link).
func IsAutoMemoryDir(fsys fs.FS) bool {
	fi, err := fs.Lstat(fsys, AutoMemoryIndex)
	return err == nil && fi.Mode().IsRegular()
}

// ReadClaudeCode reads Claude Code's memory in fsys, the directory source
// names (in errors and the plan). When it is an
// auto-memory folder (it holds MEMORY.md: ~/.claude/projects/<project>/memory),
// every Markdown file in it goes under prefix ("" is
// ClaudeCodeMemoryPrefix). Otherwise it is a project: its CLAUDE.md and
// CLAUDE.local.md files at any depth (not inside dot-directories other
// than .claude, nor node_modules), .claude/CLAUDE.md and
// .claude/rules/**/*.md go under prefix ("" is ClaudeCodePrefix), the
// .claude folder as "claude". CLAUDE.local.md files, a person's own, are
// read only with o.IncludeLocal; without it each is reported as not read.
func ReadClaudeCode(fsys fs.FS, source, prefix string, o *DirOptions) ([]Doc, error) {
	if IsAutoMemoryDir(fsys) {
		if prefix == "" {
			prefix = ClaudeCodeMemoryPrefix
		}
		return readDir(fsys, source, prefix, o, func(rel string, isDir bool) string {
			switch {
			case strings.HasPrefix(path.Base(rel), "."):
				return "-"
			case isDir || isMarkdown(rel):
				return ""
			}
			return "not Markdown"
		}, nil)
	}
	if prefix == "" {
		prefix = ClaudeCodePrefix
	}
	local := o != nil && o.IncludeLocal
	return readDir(fsys, source, prefix, o, func(rel string, isDir bool) string {
		base := path.Base(rel)
		inClaude := rel == ".claude" || strings.HasPrefix(rel, ".claude/")
		if isDir {
			if inClaude {
				return quiet(rel == ".claude" || rel == ".claude/rules" || strings.HasPrefix(rel, ".claude/rules/"))
			}
			return quiet(!strings.HasPrefix(base, ".") && base != "node_modules")
		}
		if strings.HasPrefix(rel, ".claude/rules/") {
			return quiet(isMarkdown(rel) && !strings.HasPrefix(base, "."))
		}
		if base == "CLAUDE.local.md" && !local {
			return "a personal file (CLAUDE.local.md): read only with --include-local, since a bank may be shared"
		}
		return quiet(base == "CLAUDE.md" || base == "CLAUDE.local.md")
	}, func(rel string) string {
		if r, ok := strings.CutPrefix(rel, ".claude/"); ok {
			return "claude/" + r
		}
		return rel
	})
}

// readDir walks fsys for the files keep accepts and reads them into Docs
// at prefix + rename(rel). Every bound is checked on the listing first.
func readDir(fsys fs.FS, dir, prefix string, o *DirOptions, keep func(string, bool) string, rename func(string) string) ([]Doc, error) {
	l := o.limits()
	files, notRead, err := walkTree(fsys, dir, l, o.excludedPaths(), keep)
	if err != nil {
		return nil, err
	}
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
		text, err := readFile(fsys, dir, f, l)
		if err != nil {
			return nil, err
		}
		docs[i].Text = text
	}
	return append(docs, notRead...), nil
}

// quiet is a keep answer that leaves a name out without a word.
func quiet(read bool) string {
	if read {
		return ""
	}
	return "-"
}
