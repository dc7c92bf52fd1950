package setup

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mnemobank/mnemobank/memories/filestore"
)

// ErrUsage: the command line of "mnemobank setup" was wrong.
var ErrUsage = errors.New("usage")

// Machine is what the setup command needs from the running program:
// the environment of Env, the working directory that relative --root and
// --memories are read against, and the mnemobank binary's own path.
type Machine struct {
	Env
	Dir        string // working directory
	Executable string // absolute path of the mnemobank binary
	// DefaultRoot is the bank directory the server would choose in Dir
	// without --root; "" means docs under Dir.
	DefaultRoot string
}

// Usage is the usage text of "mnemobank setup"; the flags follow it.
var Usage = `Usage: mnemobank setup CLIENT [--root DIR] [--memories FILE] [--language en|ja|zh] [--name NAME] [--yes | --print]

Registers this mnemobank binary as an MCP server in CLIENT's user
configuration: ` + strings.Join(Clients(), ", ") + `.
The entry runs this binary with --root and --memories as absolute paths, so the
client finds the same bank whatever directory it starts the server in.
Other servers in the file are left as they are; running it again changes
nothing. It shows the change and asks before writing.

Flags:
`

// Flags are the flags of "mnemobank setup".
type Flags struct {
	Root, Memories, Language, Name, Command string
	Yes, Print                              bool
}

// Add declares f's flags on fs.
func (f *Flags) Add(fs *pflag.FlagSet) {
	fs.StringVar(&f.Root, "root", "", "directory of the memory bank, as for the server (default: the bank the server would use in this directory)")
	fs.StringVar(&f.Memories, "memories", filepath.Join(filestore.AgentDir, filestore.FileName), "file of the learned memories, as for the server")
	fs.StringVar(&f.Language, "language", "", "the server's --language (en, ja or zh); the server's default when empty")
	fs.StringVar(&f.Name, "name", "mnemobank", "the server's name in the client")
	fs.StringVar(&f.Command, "command", "", "the binary the client runs (default: this mnemobank)")
	fs.BoolVar(&f.Yes, "yes", false, "write without asking")
	fs.BoolVar(&f.Print, "print", false, "only print the change; write nothing")
}

// Run is "mnemobank setup" on a whole command line (the client, then
// flags, or flags first): f.Run after the flags are read.
func Run(args []string, m Machine, stdin io.Reader, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("mnemobank setup", pflag.ContinueOnError)
	fs.SetOutput(stderr)
	var f Flags
	f.Add(fs)
	if err := fs.Parse(args); err != nil {
		return fmt.Errorf("%w: %v", ErrUsage, err)
	}
	return f.Run(fs.Args(), m, stdin, stdout, stderr)
}

// Run plans the change to one client's configuration (args holds the
// client's name), shows it on stdout, asks on stdin (unless Yes or
// Print) and writes it.
func (f Flags) Run(args []string, m Machine, stdin io.Reader, stdout, stderr io.Writer) error {
	if f.Root == "" {
		f.Root = m.DefaultRoot
		if f.Root == "" {
			f.Root = "./docs"
		}
	}
	root, memories, language, name, command, yes, printOnly := &f.Root, &f.Memories, &f.Language, &f.Name, &f.Command, &f.Yes, &f.Print
	if len(args) > 1 {
		return fmt.Errorf("%w: unexpected argument %q after the client", ErrUsage, args[1])
	}
	if len(args) == 0 {
		return fmt.Errorf("%w: name the client: one of %s", ErrUsage, strings.Join(Clients(), ", "))
	}
	clientName := args[0]
	if *yes && *printOnly {
		return fmt.Errorf("%w: --yes writes and --print does not: pass one", ErrUsage)
	}
	abs := func(p string) string {
		if filepath.IsAbs(p) {
			return filepath.Clean(p)
		}
		return filepath.Join(m.Dir, p)
	}
	exe := m.Executable
	if *command != "" {
		exe = abs(*command)
	} else if strings.Contains(filepath.ToSlash(exe), "/_npx/") {
		fmt.Fprintf(stderr, "mnemobank setup: warning: this binary runs from npx's cache (%s), which npm may clean; "+
			"for a lasting entry install it (npm i -g mnemobank) and run setup from there\n", exe)
	}
	srv := Server{Name: *name, Command: exe, Args: []string{"--root", abs(*root), "--memories", abs(*memories)}}
	if *language != "" {
		srv.Args = append(srv.Args, "--language", *language)
	}
	ch, err := Plan(clientName, m.Env, srv)
	if err != nil {
		if errors.Is(err, ErrUnknownClient) {
			return fmt.Errorf("%w: %w", ErrUsage, err)
		}
		return err
	}
	if ch.Unchanged() {
		fmt.Fprintf(stdout, "%s already runs %s as %q (%s): nothing to change.\n", ch.Client, srv.Command, srv.Name, ch.Path)
		return nil
	}
	showChange(stdout, ch)
	if *printOnly {
		fmt.Fprintln(stdout, "(--print: nothing written)")
		return nil
	}
	if !*yes {
		fmt.Fprintf(stdout, "Write %s? [y/N] ", ch.Path)
		answer, _ := bufio.NewReader(stdin).ReadString('\n')
		switch strings.ToLower(strings.TrimSpace(answer)) {
		case "y", "yes":
		default:
			fmt.Fprintln(stdout, "\nNothing written (pass --yes to write without asking).")
			return nil
		}
	}
	if err := ch.Write(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "Wrote %s. Restart %s to load the server.\n", ch.Path, ch.Client)
	return nil
}

// showChange prints the entry before and after, as a diff.
func showChange(w io.Writer, ch *Change) {
	what := "add to"
	if !ch.Exists {
		what = "create"
	} else if ch.Before != "" {
		what = "change in"
	}
	fmt.Fprintf(w, "%s: %s %s\n", ch.Client, what, ch.Path)
	for _, l := range strings.Split(strings.TrimRight(ch.Before, "\n"), "\n") {
		if ch.Before != "" {
			fmt.Fprintln(w, "- "+l)
		}
	}
	for _, l := range strings.Split(strings.TrimRight(ch.After, "\n"), "\n") {
		fmt.Fprintln(w, "+ "+l)
	}
	fmt.Fprintln(w, "Other servers and settings in the file are kept as they are.")
}
