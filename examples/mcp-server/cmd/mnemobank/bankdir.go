package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// Where the bank lives and which language it speaks when the command line
// does not say.
//
// Without --root the bank is found from the project root: the git work
// tree's top (the nearest directory upward holding .git), or the working
// directory outside a repository. An existing bank is used where it is:
// .mnemobank/ first, then the memory-bank MCP server's layout under docs/
// (docs/branch-memory-bank or docs/global-memory-bank). Otherwise the bank
// is created in .mnemobank/, a folder of its own, so it never mixes into
// a documentation site's sources (docs/ of mkdocs or Docusaurus) and gets
// published with it. The server says on stderr which it chose and why.
//
// A directory bank holds a .gitignore (written when absent, never
// overwritten) naming the files the store keeps for itself on this machine:
// its lock, its write-ahead journal, its change counter and its temporary
// files, and the Bank's caches beside each bank (.tagindex.json,
// .textindex.bin: derived, rewritten every few writes). The documents and
// their .history/ are the bank and are meant to be committed. The memories file's folder (.agent/, once it exists) gets one
// naming the trash of deleted memories, which is local undo, not shared
// memory.

// DefaultBankDir is the bank's own folder at the project root.
const DefaultBankDir = ".mnemobank"

// legacyLayout is the memory-bank MCP server's folder and the banks in it
// that mark it as a bank.
var legacyLayout = struct {
	dir   string
	banks []string
}{"docs", []string{strings.TrimSuffix(memorybank.BranchPrefix, "/"), strings.TrimSuffix(memorybank.GlobalPrefix, "/")}}

// projectRoot is the top of the git work tree holding dir, or dir.
func projectRoot(dir string) string {
	for d := dir; ; {
		if _, err := os.Lstat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		up := filepath.Dir(d)
		if up == d {
			return dir
		}
		d = up
	}
}

// defaultRoot chooses the bank directory for a working directory cwd and
// says why.
func defaultRoot(cwd string) (root, why string) {
	proj := projectRoot(cwd)
	where := "the working directory"
	if exists(filepath.Join(proj, ".git")) {
		where = "the git work tree's root"
	}
	own := filepath.Join(proj, DefaultBankDir)
	if isDir(own) {
		return own, "the existing bank " + DefaultBankDir + "/ at " + where
	}
	legacy := filepath.Join(proj, legacyLayout.dir)
	for _, b := range legacyLayout.banks {
		if isDir(filepath.Join(legacy, b)) {
			return legacy, "an existing memory-bank layout (" + legacyLayout.dir + "/" + b + ") at " + where
		}
	}
	return own, "no bank yet: the default " + DefaultBankDir + "/ at " + where + " (pass --root to choose)"
}

func isDir(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.IsDir()
}

func exists(p string) bool {
	_, err := os.Lstat(p)
	return err == nil
}

// bankIgnores are the patterns of a directory bank's .gitignore: what the
// store keeps for this machine only, and the Bank's catalog caches beside
// each bank (derived, rewritten every few writes, up to 64 MB).
var bankIgnores = []string{fsstore.LockFileName, fsstore.JournalFileName, fsstore.ChangesFileName, ".atomicfile-*.tmp",
	memorybank.TagIndexName, memorybank.TextIndexName}

// writeGitignore writes dir/.gitignore with the patterns when there is
// none; an existing one is the user's and is left as it is.
func writeGitignore(dir, what string, patterns []string) error {
	p := filepath.Join(dir, ".gitignore")
	if exists(p) {
		return nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	text := "# Written by mnemobank: " + what + ".\n" + strings.Join(patterns, "\n") + "\n"
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if errors.Is(err, os.ErrExist) {
		return nil // another process wrote it first
	}
	if err != nil {
		return err
	}
	_, err = f.WriteString(text)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// defaultLanguage is the language the locale asks for: the first of
// LC_ALL, LC_MESSAGES and LANG that is set decides; ja* is Japanese, zh*
// Chinese, anything else English.
func defaultLanguage(getenv func(string) string) memorybank.Language {
	for _, k := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := strings.ToLower(getenv(k))
		if v == "" {
			continue
		}
		switch {
		case strings.HasPrefix(v, "ja"):
			return memorybank.Japanese
		case strings.HasPrefix(v, "zh"):
			return memorybank.Chinese
		}
		return memorybank.English
	}
	return memorybank.English
}
