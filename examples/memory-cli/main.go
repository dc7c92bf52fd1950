// Command memory-cli is the seed's `orch tools memory` as a program: it
// manages the learned memories in <dir>/memories.md.
//
//	memory-cli add <content> [-t type] [--tags a,b] [--if-no-similar]
//	memory-cli search <query> [--limit N]
//	memory-cli list
//	memory-cli show <id>
//	memory-cli delete <id>
//
// Flags may come before or after the command: --dir (default .agent; it is
// created on the first add, but never its missing parents) and --format
// table|json (default table). Results go to stdout, messages to
// stderr. Exit status: 0 ok, 1 not found (or the operation failed), 2 usage
// error (unknown command or flag, missing argument, unusable content or tag).
//
//	go run ./examples/memory-cli add "Always use try-catch" -t pattern --tags error-handling
package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
)

const usage = `usage: memory-cli [--dir DIR] [--format table|json] <command> [args]

commands:
  add <content> [-t type] [--tags a,b] [--if-no-similar]
                                         add a memory (type goes first in the tags);
                                         memories saying nearly the same are
                                         reported, and with --if-no-similar the
                                         memory is not added
  search <query> [--limit N]             the N (default 10, at most 100) memories
                                         most relevant to query, best first: those
                                         holding every word first
  list                                   every memory, in file order
  show <id>                              one memory in full
  delete <id>                            delete one memory (kept in memories.trash.md)
  trash                                  the deleted memories that can be restored
  restore <id>                           put a deleted memory back

flags:
  --dir DIR        directory holding memories.md (default .agent; created
                   if missing, its parent must exist)
  --format FORMAT  table or json (default table)
`

// TrashFileName is the file, beside memories.md, that keeps deleted
// memories so restore can put them back.
const TrashFileName = "memories.trash.md"

// Exit statuses.
const (
	exitOK       = 0
	exitNotFound = 1
	exitUsage    = 2
)

func main() {
	os.Exit(run(context.Background(), os.Args[1:], os.Stdout, os.Stderr))
}

type invocation struct {
	dir, format, typ, tags, limit string
	limitN                        int
	ifNoSimilar                   bool
	args                          []string // command and its positional arguments
}

type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

// parse reads flags anywhere among the arguments; "--" ends the flags.
func parse(args []string) (*invocation, error) {
	inv := &invocation{dir: ".agent", format: "table"}
	set := map[string]*string{"--dir": &inv.dir, "--format": &inv.format, "-t": &inv.typ, "--type": &inv.typ, "--tags": &inv.tags, "--limit": &inv.limit}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			inv.args = append(inv.args, args[i+1:]...)
			break
		}
		if a == "-h" || a == "--help" {
			return nil, &usageError{""}
		}
		if !strings.HasPrefix(a, "-") || a == "-" {
			inv.args = append(inv.args, a)
			continue
		}
		if a == "--if-no-similar" {
			inv.ifNoSimilar = true
			continue
		}
		name, value, hasValue := strings.Cut(a, "=")
		dst, ok := set[name]
		if !ok {
			return nil, &usageError{fmt.Sprintf("unknown flag %q; flags are --dir, --format, -t/--type, --tags, --if-no-similar, --limit", name)}
		}
		if !hasValue {
			if i+1 >= len(args) {
				return nil, &usageError{fmt.Sprintf("flag %s needs a value", name)}
			}
			i++
			value = args[i]
		}
		*dst = value
	}
	if inv.format != "table" && inv.format != "json" {
		return nil, &usageError{fmt.Sprintf("--format %q: must be table or json", inv.format)}
	}
	if len(inv.args) == 0 {
		return nil, &usageError{"missing command: add, search, list, show, delete, trash or restore"}
	}
	want := map[string]int{"add": 1, "search": 1, "list": 0, "show": 1, "delete": 1, "trash": 0, "restore": 1}
	n, ok := want[inv.args[0]]
	if !ok {
		return nil, &usageError{fmt.Sprintf("unknown command %q: use add, search, list, show, delete, trash or restore", inv.args[0])}
	}
	if got := len(inv.args) - 1; got != n {
		return nil, &usageError{fmt.Sprintf("%s takes %d argument(s), got %d (quote content that has spaces)", inv.args[0], n, got)}
	}
	if (inv.typ != "" || inv.tags != "" || inv.ifNoSimilar) && inv.args[0] != "add" {
		return nil, &usageError{"-t, --tags and --if-no-similar are only for add"}
	}
	if inv.limit != "" {
		if inv.args[0] != "search" {
			return nil, &usageError{"--limit is only for search"}
		}
		n, err := strconv.Atoi(inv.limit)
		if err != nil || n < 1 || n > memories.MaxSearchLimit {
			return nil, &usageError{fmt.Sprintf("--limit %q: want a number from 1 to %d", inv.limit, memories.MaxSearchLimit)}
		}
		inv.limitN = n
	}
	return inv, nil
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	inv, err := parse(args)
	if err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(stderr, "memory-cli:", msg)
		}
		fmt.Fprint(stderr, usage)
		return exitUsage
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	m, err := memories.New(filestore.New(filepath.Join(inv.dir, filestore.FileName), nil), &memories.Options{Logger: logger,
		Trash: filestore.New(filepath.Join(inv.dir, TrashFileName), nil)})
	if err != nil {
		fmt.Fprintln(stderr, "memory-cli:", err)
		return exitNotFound
	}
	out := &printer{w: stdout, json: inv.format == "json"}
	if err := execute(ctx, m, inv, out, stderr); err != nil {
		fmt.Fprintln(stderr, "memory-cli:", err)
		switch {
		case errors.Is(err, memories.ErrInvalid):
			return exitUsage
		default:
			return exitNotFound
		}
	}
	return exitOK
}

func execute(ctx context.Context, m *memories.Manager, inv *invocation, out *printer, stderr io.Writer) error {
	cmd, arg := inv.args[0], ""
	if len(inv.args) > 1 {
		arg = inv.args[1]
	}
	switch cmd {
	case "add":
		var tags []string
		if inv.tags != "" {
			tags = strings.Split(inv.tags, ",")
		}
		if inv.typ != "" {
			tags = append([]string{inv.typ}, tags...)
		}
		res, err := m.AddWith(ctx, arg, memories.AddOptions{Tags: tags, IfNoSimilar: inv.ifNoSimilar})
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "memory added: %s\n", res.Memory.ID)
		for _, s := range res.Similar {
			fmt.Fprintf(stderr, "similar: %s (%.2f)\n", s.ID, s.Score)
		}
		return out.one(res.Memory)
	case "search":
		res, err := m.Find(ctx, memories.SearchRequest{Query: arg, Limit: inv.limitN})
		if err != nil {
			return err
		}
		if len(res.Hits) == 0 {
			fmt.Fprintf(stderr, "no memory matches %q\n", arg)
		} else if more := res.Total - len(res.Hits); more > 0 {
			fmt.Fprintf(stderr, "%d more match; raise --limit to see them\n", more)
		}
		return out.hits(res.Hits)
	case "list":
		ms, err := m.List(ctx)
		if err != nil {
			return err
		}
		return out.list(ms)
	case "show":
		mem, err := m.Get(ctx, arg)
		if err != nil {
			return err
		}
		return out.one(mem)
	case "trash":
		ms, err := m.Deleted(ctx)
		if err != nil {
			return err
		}
		return out.list(ms)
	case "restore":
		mem, err := m.Restore(ctx, arg)
		if err != nil {
			return err
		}
		fmt.Fprintf(stderr, "memory restored: %s\n", mem.ID)
		return out.one(mem)
	default: // delete
		if err := m.Delete(ctx, arg); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "memory deleted: %s\n", arg)
		if out.json {
			return json.NewEncoder(out.w).Encode(map[string]string{"deleted": arg})
		}
		return nil
	}
}

type printer struct {
	w    io.Writer
	json bool
}

func (p *printer) list(ms []memories.Memory) error {
	if p.json {
		if ms == nil {
			ms = []memories.Memory{}
		}
		for i := range ms {
			ms[i] = withTags(ms[i])
		}
		return p.encode(ms)
	}
	if len(ms) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDATE\tTAGS\tTITLE")
	for _, m := range ms {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", m.ID, m.Date, strings.Join(m.Tags, ","), m.Title)
	}
	return tw.Flush()
}

func (p *printer) hits(hs []memories.Hit) error {
	if p.json {
		if hs == nil {
			hs = []memories.Hit{}
		}
		for i := range hs {
			hs[i].Memory = withTags(hs[i].Memory)
		}
		return p.encode(hs)
	}
	if len(hs) == 0 {
		return nil
	}
	tw := tabwriter.NewWriter(p.w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tDATE\tSCORE\tTITLE\tSNIPPET")
	for _, h := range hs {
		fmt.Fprintf(tw, "%s\t%s\t%.2f\t%s\t%s\n", h.ID, h.Date, h.Score, h.Title, h.Snippet)
	}
	return tw.Flush()
}

func (p *printer) one(m memories.Memory) error {
	if p.json {
		return p.encode(withTags(m))
	}
	_, err := fmt.Fprintf(p.w, "ID:      %s\nTitle:   %s\nTags:    %s\nDate:    %s\nContent:\n%s\n",
		m.ID, m.Title, strings.Join(m.Tags, ", "), m.Date, indent(m.Content))
	return err
}

func (p *printer) encode(v any) error {
	enc := json.NewEncoder(p.w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

func indent(s string) string {
	return "  " + strings.ReplaceAll(s, "\n", "\n  ")
}

// withTags makes "no tags" print as [] rather than null in JSON.
func withTags(m memories.Memory) memories.Memory {
	if m.Tags == nil {
		m.Tags = []string{}
	}
	return m
}
