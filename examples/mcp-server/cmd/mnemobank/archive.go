package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/mnemobank/mnemobank/examples/mcp-server/trust"
	"github.com/mnemobank/mnemobank/memories/filestore"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/archive/foreign"
	"github.com/mnemobank/mnemobank/memorybank/history"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
	"github.com/mnemobank/mnemobank/screen"
)

// The subcommands that move a bank: export, import and copy. Each opens
// the bank on the usual store flags, does its work and exits; none serves.

// bankSide is one opened bank with its memories.
type bankSide struct {
	bank   *memorybank.Bank
	mem    archive.Memories
	source string // names the bank in messages
	label  string // names it in an archive's manifest: no absolute path
	root   string // the bank's directory, absolute; "" in PostgreSQL
	close  func()
}

// openSide opens the bank c names, with its memories, for moving.
func openSide(ctx context.Context, c storeConfig) (*bankSide, error) {
	opts := &memorybank.Options{History: history.New(nil)} // imports and copies refuse credentials as the server does
	if err := trust.Apply(string(screen.Refuse), false, opts, nil); err != nil {
		return nil, err
	}
	st, err := openStores(ctx, c, nil)
	if err != nil {
		return nil, err
	}
	return &bankSide{bank: memorybank.New(st.bank, opts), mem: archive.Memories{File: st.mem, Trash: st.trash},
		source: st.source, label: st.label, root: st.root, close: st.close}, nil
}

const exportUsage = `Usage: mnemobank export [--root DIR --memories FILE | --postgres DSN --namespace N] [--format archive|anthropic-memory-store] [-o FILE]

Writes an archive of the bank (every document of every scope, its history,
skill graphs, learned memories and their trash) to FILE, or to standard output.
With --format anthropic-memory-store it writes only the Claude memory tool's
files (the global bank's memories/ folder) as a memory store listing
{"data":[{"path","content","content_size_bytes","content_sha256"}]}, the
shape "import --from anthropic-memory-store" reads.

Flags:
`

// exportFlags are export's flags, declared by newExportCmd.
type exportFlags struct {
	where       *storeConfig
	out, format *string
}

func newExportCmd() *cobra.Command {
	var f exportFlags
	c := newCommand("export", "write an archive of the bank", exportUsage, func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return runExport(ctx, f, args, stdin, stdout, stderr)
	})
	c.Args = noArgs
	fs := c.Flags()
	f.where = storeFlags(fs)
	f.out = outputFlag(fs, "write the archive to FILE (written beside it, then renamed) instead of standard output")
	f.format = fs.String("format", "archive", "archive, or anthropic-memory-store (the memory tool's files as a memory store listing)")
	completeValues(c, "format", "archive", "anthropic-memory-store")
	return c
}

// outputFlag is -o FILE, also spelt --o (as Go's flag package read it) or
// --output.
func outputFlag(fs *pflag.FlagSet, usage string) *string {
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if name == "o" {
			name = "output"
		}
		return pflag.NormalizedName(name)
	})
	return fs.StringP("output", "o", "", usage)
}

func runExport(ctx context.Context, f exportFlags, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
	where, out, format := f.where, f.out, f.format
	if *format != "archive" && *format != "anthropic-memory-store" {
		return fmt.Errorf("%w: --format %q: use archive or anthropic-memory-store", errUsage, *format)
	}
	side, err := openSide(ctx, *where)
	if err != nil {
		return err
	}
	defer side.close()
	if *format == "anthropic-memory-store" {
		return exportMemoryStore(ctx, side, *out, stdout, stderr)
	}
	if *out == "" {
		spool, done, err := newSpool("")
		if err != nil {
			return err
		}
		defer done()
		_, err = archive.Export(ctx, side.bank, side.mem, stdout, &archive.ExportOptions{Source: side.label, Spool: spool})
		return err
	}
	m, err := exportFile(ctx, side, *out, nil)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "mnemobank: exported %d documents (%d skill graphs), %d history entries, %d memories (%d in the trash) to %s\n",
		m.Counts.Documents, m.Counts.Skills, m.Counts.History, m.Counts.Memories, m.Counts.Trash, *out)
	return nil
}

// newSpool is a temporary file in dir ("": the system's) for an archive's
// spool, and the function that removes it: package archive opens no file
// of its own.
func newSpool(dir string) (*os.File, func(), error) {
	f, err := os.CreateTemp(dir, "mnemobank-spool-*")
	if err != nil {
		return nil, nil, fmt.Errorf("a temporary file for the archive: %w", err)
	}
	return f, func() {
		f.Close()
		os.Remove(f.Name())
	}, nil
}

// exportFile writes the archive to a temporary file beside path and renames
// it, so path is never a partial archive.
func exportFile(ctx context.Context, side *bankSide, path string, progress func(int)) (*archive.Manifest, error) {
	spool, done, err := newSpool("")
	if err != nil {
		return nil, err
	}
	defer done()
	f, err := os.CreateTemp(filepath.Dir(path), ".mnemobank-export-*.tar")
	if err != nil {
		return nil, err
	}
	defer os.Remove(f.Name())
	m, err := archive.Export(ctx, side.bank, side.mem, f, &archive.ExportOptions{Source: side.label, Progress: progress, Spool: spool})
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(f.Name(), path)
	}
	return m, err
}

const importUsage = `Usage: mnemobank import [--root DIR --memories FILE | --postgres DSN --namespace N] [--apply] [--on-conflict theirs|ours|both] FILE
       mnemobank import --from SOURCE [--prefix FOLDER/] [store flags] [--apply] [--on-conflict ...] PATH...

Imports the archive FILE ("-": standard input) into the bank. Without --apply
it only prints the plan: create, skip or conflict, per document and memory.
The whole archive is verified before anything is written; an import that
was interrupted can be run again and finishes.

With --from, imports other tools' memories into the global bank instead:

  --from claude-code DIR...   a project's CLAUDE.md (CLAUDE.local.md, a
                              personal file, only with --include-local),
                              .claude/CLAUDE.md and .claude/rules/*.md into
                              claude-code/; a Claude Code auto-memory folder
                              (~/.claude/projects/<project>/memory, holding
                              MEMORY.md) into claude-code/memory/
  --from mcp-memory FILE      the JSON Lines graph of the MCP memory server
                              (@modelcontextprotocol/server-memory): one
                              document per entity in mcp-memory/
  --from anthropic-memory-store FILE
                              the JSON of a memory store's full listing
                              (view=full): each memory into memories/, the
                              Claude memory tool's folder, byte for byte
  --from markdown DIR...      a folder of Markdown notes (basic-memory,
                              Obsidian) into notes/, each note byte for
                              byte, front matter as written

Every source is read and checked (sizes, counts, names, links that leave
the directory) before anything is written; the same --apply and
--on-conflict rules apply. The bank's own directory and every memory-bank
folder are never read (importing a project twice does not nest the bank
in itself); each file left out (an attachment, a canvas, CLAUDE.local.md)
is listed in the plan as not-read, with why. Flags may follow the paths.

Flags:
`

// importFlags are import's flags, declared by newImportCmd.
type importFlags struct {
	where                    *storeConfig
	apply, includeLocal      *bool
	onConflict, from, prefix *string
}

func newImportCmd() *cobra.Command {
	var f importFlags
	c := newCommand("import", "import an archive, or other tools' memories (--from)", importUsage, func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return runImport(ctx, f, args, stdin, stdout, stderr)
	})
	fs := c.Flags()
	f.where = storeFlags(fs)
	f.apply = fs.Bool("apply", false, "write (without it: a dry run that prints the plan)")
	f.onConflict = fs.String("on-conflict", string(archive.KeepOurs), "a document both hold with different bytes: ours (keep ours), theirs (the archive's becomes the next version of ours), both (theirs beside ours as NAME.imported.EXT)")
	f.from = fs.String("from", "archive", "what FILE or PATH is: "+importSourceNames)
	f.prefix = fs.String("prefix", "", "with --from (not archive): the global bank folder to import into, ending in / (default: the source's own)")
	f.includeLocal = fs.Bool("include-local", false, "with --from claude-code: also import CLAUDE.local.md files, a person's own instructions")
	completeValues(c, "from", append([]string{"archive"}, importSourceList()...)...)
	completeValues(c, "on-conflict", conflictPolicies...)
	return c
}

var conflictPolicies = []string{string(archive.KeepOurs), string(archive.KeepTheirs), string(archive.KeepBoth)}

func runImport(ctx context.Context, f importFlags, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	where, apply, onConflict, from, prefix, includeLocal := f.where, f.apply, f.onConflict, f.from, f.prefix, f.includeLocal
	if *from != "archive" {
		if _, ok := importSources[*from]; !ok {
			return fmt.Errorf("%w: --from %q: use one of %s", errUsage, *from, importSourceNames)
		}
		if len(args) == 0 {
			return fmt.Errorf("%w: import --from %s takes the paths to read", errUsage, *from)
		}
		if *prefix != "" && !strings.HasSuffix(*prefix, "/") {
			return fmt.Errorf("%w: --prefix %q: a folder ends in /", errUsage, *prefix)
		}
		policy, err := archive.ParsePolicy(*onConflict)
		if err != nil {
			return fmt.Errorf("%w: --on-conflict: %v", errUsage, err)
		}
		if *includeLocal && *from != "claude-code" {
			return fmt.Errorf("%w: --include-local applies to --from claude-code only", errUsage)
		}
		return importForeign(ctx, *from, *prefix, *includeLocal, args, stdin, *where, foreign.Options{Apply: *apply, OnConflict: policy}, stdout, stderr)
	}
	if *prefix != "" {
		return fmt.Errorf("%w: --prefix applies to --from sources, not to an archive", errUsage)
	}
	if len(args) != 1 {
		return fmt.Errorf("%w: import takes one archive FILE (\"-\" for standard input)", errUsage)
	}
	policy, err := archive.ParsePolicy(*onConflict)
	if err != nil {
		return fmt.Errorf("%w: --on-conflict: %v", errUsage, err)
	}
	var r io.Reader = stdin
	o := archive.ImportOptions{Apply: *apply, OnConflict: policy}
	if name := args[0]; name != "-" {
		f, err := os.Open(name)
		if err != nil {
			return err
		}
		defer f.Close()
		r = f
	} else {
		// Standard input is read three times (verify, plan, apply):
		// from a copy.
		spool, done, err := newSpool("")
		if err != nil {
			return err
		}
		defer done()
		o.Spool = spool
	}
	side, err := openSide(ctx, *where)
	if err != nil {
		return err
	}
	defer side.close()
	return importArchive(ctx, side, r, o, stdout, stderr, false)
}

// importArchive imports r into side, printing the plan or the report on
// stdout (quiet: conflicts only) and a summary on stderr.
func importArchive(ctx context.Context, side *bankSide, r io.Reader, o archive.ImportOptions, stdout, stderr io.Writer, quiet bool) error {
	o.Report = func(it archive.Item) {
		if quiet && it.Action != archive.Conflict && it.Action != archive.Refuse {
			return
		}
		line := fmt.Sprintf("%-8s %-8s %s", it.Action, it.Kind, it.Key)
		if it.Resolution != "" {
			line += ": " + it.Resolution
		} else if it.Detail != "" {
			line += ": " + it.Detail
		}
		fmt.Fprintln(stdout, line)
	}
	res, err := archive.Import(ctx, side.bank, side.mem, r, &o)
	if err != nil {
		return err
	}
	if o.Apply {
		fmt.Fprintf(stderr, "mnemobank: imported: %d created, %d unchanged, %d conflicts (on-conflict %s), %d refused; %d history entries written, %d already there\n",
			res.Created, res.Skipped, res.Conflicts, o.OnConflict, res.Refused, res.HistoryWritten, res.HistorySkipped)
		return nil
	}
	fmt.Fprintf(stderr, "mnemobank: plan: %d to create, %d unchanged, %d conflicts (on-conflict %s), %d refused; %d history entries to write. Dry run: nothing was written; run again with --apply.\n",
		res.Created, res.Skipped, res.Conflicts, o.OnConflict, res.Refused, res.HistoryWritten)
	return nil
}

// sideConfig is the bank copy's --from or --to names: a postgres:// DSN
// (in namespace), or else a directory with memoriesFile.
func sideConfig(where, namespace, memoriesFile string) storeConfig {
	if isPostgresURL(where) {
		return storeConfig{Postgres: where, Namespace: namespace}
	}
	return storeConfig{Root: where, Memories: memoriesFile}
}

const copyUsage = `Usage: mnemobank copy --from SRC --to DST [--from-namespace N] [--to-namespace N] [--on-conflict theirs|ours|both]

Copies everything a bank holds to another: SRC and DST are each a bank
directory or a postgres:// DSN. The same as export piped into import --apply;
progress on stderr. The memories file of a directory DIR is
DIR/../.agent/memories.md (the layout of "mnemobank --root ./docs" run in the
project), unless --from-memories or --to-memories says otherwise.

Flags:
`

// copyFlags are copy's flags, declared by newCopyCmd.
type copyFlags struct {
	from, to, fromNS, toNS, fromMem, toMem, onConflict *string
}

func newCopyCmd() *cobra.Command {
	var f copyFlags
	c := newCommand("copy", "copy everything a bank holds to another", copyUsage, func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return runCopy(ctx, f, args, stdin, stdout, stderr)
	})
	fs := c.Flags()
	f.from = fs.String("from", "", "source: a bank directory or a postgres:// DSN")
	f.to = fs.String("to", "", "destination: a bank directory or a postgres:// DSN")
	f.fromNS = fs.String("from-namespace", pgstore.DefaultNamespace, "namespace of a postgres:// source")
	f.toNS = fs.String("to-namespace", pgstore.DefaultNamespace, "namespace of a postgres:// destination")
	f.fromMem = fs.String("from-memories", "", "memories file of a directory source (default DIR/../.agent/memories.md)")
	f.toMem = fs.String("to-memories", "", "memories file of a directory destination (default DIR/../.agent/memories.md)")
	f.onConflict = fs.String("on-conflict", string(archive.KeepOurs), "theirs, ours or both (see mnemobank import)")
	completeValues(c, "on-conflict", conflictPolicies...)
	return c
}

func runCopy(ctx context.Context, fl copyFlags, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	from, to, fromNS, toNS, fromMem, toMem, onConflict := fl.from, fl.to, fl.fromNS, fl.toNS, fl.fromMem, fl.toMem, fl.onConflict
	if *from == "" || *to == "" || len(args) > 0 {
		return fmt.Errorf("%w: copy takes --from SRC and --to DST and no arguments", errUsage)
	}
	policy, err := archive.ParsePolicy(*onConflict)
	if err != nil {
		return fmt.Errorf("%w: --on-conflict: %v", errUsage, err)
	}
	memOf := func(dir, flagValue string) string {
		if flagValue != "" {
			return flagValue
		}
		return filepath.Join(filepath.Dir(filepath.Clean(dir)), filestore.AgentDir, filestore.FileName)
	}
	src, err := openSide(ctx, sideConfig(*from, *fromNS, memOf(*from, *fromMem)))
	if err != nil {
		return fmt.Errorf("--from: %w", err)
	}
	defer src.close()
	dst, err := openSide(ctx, sideConfig(*to, *toNS, memOf(*to, *toMem)))
	if err != nil {
		return fmt.Errorf("--to: %w", err)
	}
	defer dst.close()
	if src.source == dst.source {
		return fmt.Errorf("%w: --from and --to are the same bank (%s)", errUsage, src.source)
	}
	tmp, err := os.MkdirTemp("", "mnemobank-copy-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	file := filepath.Join(tmp, "bank.tar")
	m, err := exportFile(ctx, src, file, func(n int) {
		if n%1000 == 0 {
			fmt.Fprintf(stderr, "mnemobank: exported %d entries\n", n)
		}
	})
	if err != nil {
		return fmt.Errorf("exporting %s: %w", src.source, err)
	}
	fmt.Fprintf(stderr, "mnemobank: exported %d entries from %s\n", m.Entries, src.source)
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	err = importArchive(ctx, dst, f, archive.ImportOptions{Apply: true, OnConflict: policy, Progress: func(done, total int) {
		if done%1000 == 0 || done == total {
			fmt.Fprintf(stderr, "mnemobank: imported %d/%d entries\n", done, total)
		}
	}}, stdout, stderr, true)
	if err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("importing into %s: %w", dst.source, err)
	}
	return err
}
