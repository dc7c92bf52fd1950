package main

import (
	"context"
	"fmt"
	"io"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/nonblockfs"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/archive/foreign"
)

// The sources of "mnemobank import --from": other tools' memories, read by
// memorybank/archive/foreign into the global bank.

// importSources maps a --from value to its reader, which reads every
// argument (a directory or a file, "-" for standard input where a file is
// read) into documents under prefix ("" for the source's own folder); a
// directory reader leaves out bank, the bank's own directory ("" in
// PostgreSQL).
var importSources = map[string]func(arg, prefix, bank string, dir foreign.DirOptions, stdin io.Reader) ([]foreign.Doc, error){
	"claude-code": func(arg, prefix, bank string, dir foreign.DirOptions, _ io.Reader) ([]foreign.Doc, error) {
		return readDirArg(arg, bank, dir, func(fsys fs.FS, o *foreign.DirOptions) ([]foreign.Doc, error) {
			return foreign.ReadClaudeCode(fsys, arg, prefix, o)
		})
	},
	"markdown": func(arg, prefix, bank string, dir foreign.DirOptions, _ io.Reader) ([]foreign.Doc, error) {
		return readDirArg(arg, bank, dir, func(fsys fs.FS, o *foreign.DirOptions) ([]foreign.Doc, error) {
			return foreign.ReadMarkdownDir(fsys, arg, prefix, o)
		})
	},
	"mcp-memory": func(arg, prefix, _ string, _ foreign.DirOptions, stdin io.Reader) ([]foreign.Doc, error) {
		return readFileArg(arg, stdin, func(r io.Reader) ([]foreign.Doc, error) {
			return foreign.ReadMCPMemory(r, arg, prefix, nil)
		})
	},
	"anthropic-memory-store": func(arg, prefix, _ string, _ foreign.DirOptions, stdin io.Reader) ([]foreign.Doc, error) {
		if prefix != "" {
			return nil, fmt.Errorf("%w: --prefix does not apply to anthropic-memory-store: its memories go to memories/, the Claude memory tool's folder", errUsage)
		}
		return readFileArg(arg, stdin, func(r io.Reader) ([]foreign.Doc, error) {
			return foreign.ReadMemoryStore(r, arg, nil)
		})
	},
}

// readDirArg opens the directory dir as an os.Root, so that no link leads
// out of it, and reads it with read, the bank's directory excluded: a
// source that is the bank or inside it is refused, and a bank inside the
// source is left out of the walk (importing a project twice would
// otherwise find the first import's copies).
func readDirArg(dir, bank string, o foreign.DirOptions, read func(fs.FS, *foreign.DirOptions) ([]foreign.Doc, error)) ([]foreign.Doc, error) {
	if bank != "" {
		src, b := realPath(dir), realPath(bank)
		if src == b || strings.HasPrefix(src, b+string(filepath.Separator)) {
			return nil, &foreign.SourceError{Source: dir, Reason: "it is the bank's own directory " + b + " or inside it; an import never reads what it writes", Err: foreign.ErrExcluded}
		}
		if rel, err := filepath.Rel(src, b); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			o.Exclude = append(o.Exclude, filepath.ToSlash(rel)) // the bank lies inside the source
		}
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, err
	}
	defer root.Close()
	// Files open without blocking: a FIFO put in place of a listed file
	// would otherwise hang the import.
	return read(nonblockfs.New(root), &o)
}

// realPath is p absolute, its symbolic links resolved as far as they
// resolve, so that one directory has one name.
func realPath(p string) string {
	if abs, err := filepath.Abs(p); err == nil {
		p = abs
	}
	if real, err := filepath.EvalSymlinks(p); err == nil {
		p = real
	}
	return p
}

// importSourceList is the --from values but archive, sorted.
func importSourceList() []string { return slices.Sorted(maps.Keys(importSources)) }

// importSourceNames lists the --from values, archive first.
const importSourceNames = "archive, claude-code, mcp-memory, anthropic-memory-store, markdown"

func readFileArg(arg string, stdin io.Reader, read func(io.Reader) ([]foreign.Doc, error)) ([]foreign.Doc, error) {
	if arg == "-" {
		return read(stdin)
	}
	f, err := os.Open(arg)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s is not a file", arg)
	}
	return read(f)
}

// importForeign reads every source argument first (a bad one is refused
// before anything is written), then imports all their documents.
// The bank is opened first, to know its directory: a source never reads
// it (a project's import would otherwise find the last import's copies).
func importForeign(ctx context.Context, from, prefix string, includeLocal bool, args []string, stdin io.Reader, where storeConfig, o foreign.Options, stdout, stderr io.Writer) error {
	side, err := openSide(ctx, where)
	if err != nil {
		return err
	}
	defer side.close()
	dir := foreign.DirOptions{IncludeLocal: includeLocal}
	read := importSources[from]
	var docs []foreign.Doc
	for _, a := range args {
		d, err := read(a, prefix, side.root, dir, stdin)
		if err != nil {
			return err
		}
		docs = append(docs, d...)
	}
	o.Source = from + " " + strings.Join(args, " ")
	o.Report = func(it archive.Item) {
		line := fmt.Sprintf("%-8s %s", it.Action, it.Key)
		if it.Resolution != "" {
			line += ": " + it.Resolution
		} else if it.Detail != "" {
			line += ": " + it.Detail
		}
		fmt.Fprintln(stdout, line)
	}
	res, err := foreign.Import(ctx, side.bank, docs, &o)
	if err != nil {
		return err
	}
	if o.Apply {
		fmt.Fprintf(stderr, "mnemobank: imported from %s: %d created, %d unchanged, %d conflicts (on-conflict %s), %d refused, %d files not read\n",
			from, res.Created, res.Skipped, res.Conflicts, o.OnConflict, res.Failed, res.NotRead)
		return nil
	}
	fmt.Fprintf(stderr, "mnemobank: plan from %s: %d to create, %d unchanged, %d conflicts (on-conflict %s), %d files not read. Dry run: nothing was written; run again with --apply.\n",
		from, res.Created, res.Skipped, res.Conflicts, o.OnConflict, res.NotRead)
	return nil
}

// exportMemoryStore writes the memory tool's files of side as a memory
// store listing to path (beside it, then renamed) or to stdout.
func exportMemoryStore(ctx context.Context, side *bankSide, path string, stdout, stderr io.Writer) error {
	if path == "" {
		_, err := foreign.ExportMemoryStore(ctx, side.bank, stdout)
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), ".mnemobank-export-*.json")
	if err != nil {
		return err
	}
	defer os.Remove(f.Name())
	n, err := foreign.ExportMemoryStore(ctx, side.bank, f)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	if err == nil {
		fmt.Fprintf(stderr, "mnemobank: exported %d memory tool files to %s\n", n, path)
	}
	return err
}
