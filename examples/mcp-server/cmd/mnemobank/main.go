// Command mnemobank is an MCP server over stdio for the whole
// github.com/mnemobank/mnemobank library: a memory bank kept in a
// directory (per git branch and global, in the layout existing memory-bank
// servers use), learned memories in a memories.md file, skill graphs stored
// as documents of the bank, and confirmed write plans.
//
// Install it from a clone of the repository (the binary is named
// mnemobank) and register it with an MCP client:
//
//	go -C examples/mcp-server install ./cmd/mnemobank
//	claude mcp add mnemobank -- mnemobank
//
// Every memory bank tool of memorybank/tools keeps its name and behaviour;
// the server adds the memory, skill graph and plan tools, every document as
// a resource with subscriptions, two prompts, and the branch of the client's
// git work tree (MCP roots) when a tool's branch is omitted. A tool failure
// is a result with isError set: its text is "CODE: message" and its
// structured content {"code","message","details"}. Logs go to stderr;
// stdout carries the protocol.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/signal"
	"runtime"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/spf13/cobra"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcphttp"
	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/mnemobank/mnemobank/examples/mcp-server/stdio"
	"github.com/mnemobank/mnemobank/examples/mcp-server/trust"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

func main() {
	// cobra stops a program started from Windows Explorer to say it is a
	// command-line tool; the server is started by MCP clients, from
	// anywhere, and must never wait.
	cobra.MousetrapHelpText = ""
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := runMain(ctx, os.Args[1:], os.Stdin, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// runMain runs the command line args (a subcommand, or the server) and
// returns the exit status.
func runMain(ctx context.Context, args []string, stdin io.ReadCloser, stdout, stderr io.Writer) int {
	t := stdio.NewTransport(stdin, nopCloser{stdout}, nil)
	cmd, err := execute(ctx, newCommandLine(t), args, stdin, stdout, stderr)
	switch {
	case err == nil, errors.Is(err, context.Canceled):
		return 0
	case errors.Is(err, errUsageShown):
		return 2
	case errors.Is(err, errUsage):
		fmt.Fprintf(stderr, "mnemobank: %s\nRun %q for the usage.\n", strings.TrimPrefix(err.Error(), errUsage.Error()+": "), cmd.CommandPath()+" --help")
		return 2
	default:
		fmt.Fprintln(stderr, "mnemobank:", err)
		return 1
	}
}

// run runs the command line args and serves on t when they name no
// subcommand, until the client disconnects or ctx is cancelled. --help and
// --version write to stdout and return nil without serving.
func run(ctx context.Context, args []string, t mcp.Transport, stdout, stderr io.Writer) error {
	_, err := execute(ctx, newCommandLine(t), args, nil, stdout, stderr)
	return err
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

// errUsage: the command line was wrong. runMain prints why, with where to
// read the usage, and exits 2.
var errUsage = errors.New("usage")

// errUsageShown is an errUsage already printed, with the usage (a wrong
// flag); runMain only exits 2.
var errUsageShown = fmt.Errorf("%w, shown", errUsage)

const usageText = `mnemobank: an MCP server (stdio) for agent memory: a memory bank per git
branch and a global one, learned memories, skill graphs and confirmed write plans.

Usage:
  mnemobank [--root DIR] [--language en|ja|zh] [--memories FILE] [--confirm-plans always|never]
  mnemobank --postgres DSN [--namespace NAME] [--http ADDR] [--language en|ja|zh] [--confirm-plans always|never]
  mnemobank ... [--ui ADDR] [--ui-read-only]
  mnemobank ui [--root DIR | --postgres DSN --namespace N] [--memories FILE] [--addr 127.0.0.1:7777] [--ui-read-only]
  mnemobank ... [--secrets refuse|redact] [--exclude-flagged]
  mnemobank export | import | copy | scrub ...
  mnemobank setup claude-code|claude-desktop|cursor|vscode|codex [--root DIR] [--yes | --print]
  mnemobank token create|list|revoke ...   (personal HTTP tokens; mnemobank token --help)
  mnemobank consolidate [--merged BRANCH,...] [--apply]
  mnemobank completion bash|zsh|fish|powershell   (shell completions; mnemobank completion bash --help)
  mnemobank --help | --version | COMMAND --help

With --ui ADDR a browser viewer of the bank is served at http://ADDR/ui/
while the server runs (beside stdio or --http); with --http it is also at
http://ADDR/ui/ of the HTTP server. It shows the banks, documents, their
history with differences and revert, search, the learned memories (delete,
restore) and the skill graphs, with a live feed of changes. The token and
address rules of --http hold for it: with MNEMOBANK_TOKEN set, open
http://ADDR/ui/?token=<token> once; under --http any token of the server
signs in (at /ui/signin), with its scope. --ui-read-only hides and refuses every
change. A --ui port in use does not stop the server: the viewer takes one
of the next 10 ports (stderr names it) or is left out, with a warning.
"mnemobank ui" serves the viewer alone. Skill graphs are drawn by
mnemobank-dot (go install .../examples/mcp-server/cmd/mnemobank-dot, beside
mnemobank or on PATH, or named by MNEMOBANK_DOT) or Graphviz's dot; without
one the viewer shows their DOT source.

With --http ADDR it serves MCP's streamable HTTP transport at http://ADDR/mcp
instead of stdio; with the environment variable MNEMOBANK_TOKEN set, every
request must carry "Authorization: Bearer <token>" (at least 32 characters, e.g.
openssl rand -hex 32), and without it only a loopback address is served. Over
HTTP the client's roots are not read (they name the client's machine): pass
branch. Limits over HTTP: 1,000 MCP sessions, each closed after 30 minutes
without a request, and 1,000 event streams (session GET streams and
subscriptions/listen); one client (its address and token) holds at most 100
of each, and a request of protocol 2026-07-28, which holds no session, is
never refused for lack of one; an event stream whose client stops reading is
closed once 1 MiB waits for it; request headers within 10 s, a body within 30 s; an idle
connection is closed after 2 minutes, and one that failed authentication at
once. Each session may subscribe to 100 documents (10,000 over all sessions).
On SIGTERM the server closes event streams, lets requests in flight finish
(at most 10 s) and exits 0. With --postgres the bank, the skill graphs and the
learned memories live in PostgreSQL (one namespace per project), so several
servers on several machines serve one bank.

Every write plan of apply_memory_ops is confirmed by the user (through the
client's dialog, or in two calls when the client has none), whatever the
plan's requiresConfirmation says; --confirm-plans never lets plans that do
not ask for confirmation be applied without the user.

An MCP client starts it and talks JSON-RPC on its stdin and stdout; logs go to
stderr. Register it with your client, for example:
  claude mcp add mnemobank -- mnemobank

Flags:
`

// serverFlags are the server's flags, declared by newRootCmd.
type serverFlags struct {
	where                                                 *storeConfig
	language, confirmPlansFlag, httpAddr, uiAddr, secrets *string
	uiReadOnly, excludeFlagged                            *bool
}

// newRootCmd is the command line without a subcommand: the MCP server,
// over t or --http.
func newRootCmd(t mcp.Transport) *cobra.Command {
	var f serverFlags
	c := newCommand("mnemobank", "an MCP server for agent memory", usageText, func(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
		return serve(ctx, f, args, t, stdout, stderr)
	})
	c.Args = rootArgs
	c.Version = versionString()
	c.SetVersionTemplate("{{.Version}}\n")
	fs := c.Flags()
	f.where = storeFlags(fs)
	f.language = fs.String("language", string(defaultLanguage(os.Getenv)), "default language of read_context, read_rules and plan confirmations: en, ja or zh (default: ja or zh when LC_ALL, LC_MESSAGES or LANG asks for it, else en)")
	fs.Bool("version", false, "print the version and exit") // cobra answers it
	f.confirmPlansFlag = fs.String("confirm-plans", string(mcpserver.ConfirmAlways), "which memory_ops write plans the user confirms: always (every plan, whatever the model's requiresConfirmation says), "+
		"or never (only plans whose requiresConfirmation is true: the model writes without asking)")
	f.httpAddr = fs.String("http", "", "serve streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8080), and the viewer at http://ADDR/ui/; see MNEMOBANK_TOKEN")
	f.uiAddr = fs.String("ui", "", "also serve the browser viewer at http://ADDR/ui/ (e.g. 127.0.0.1:7777) while the server runs; see MNEMOBANK_TOKEN")
	f.uiReadOnly = fs.Bool("ui-read-only", false, "the viewer hides and refuses every change (revert, delete, restore)")
	f.secrets = fs.String("secrets", "refuse", "what a write holding a credential (gitleaks' rules) does: refuse (the tool fails, naming its kind and line) or redact (it is stored as [REDACTED:<kind>])")
	f.excludeFlagged = fs.Bool("exclude-flagged", false, "leave documents and memories flagged as addressing the agent (possible poisoning) out of read_context and memory injection")
	completeValues(c, "language", languageNames()...)
	completeValues(c, "confirm-plans", string(mcpserver.ConfirmAlways), string(mcpserver.ConfirmNever))
	completeValues(c, "secrets", "refuse", "redact")
	return c
}

// languageNames are the --language values.
func languageNames() []string {
	var out []string
	for _, l := range memorybank.Languages() {
		out = append(out, string(l))
	}
	return out
}

// rootArgs refuses an argument that names no subcommand, with the
// subcommand it may have been meant as.
func rootArgs(c *cobra.Command, args []string) error {
	if len(args) == 0 {
		return nil
	}
	return fmt.Errorf("%w: unexpected argument %q; flags are --root, --language, --memories, --postgres, --namespace, --http, --ui, --ui-read-only, --confirm-plans, --help and --version; "+
		"subcommands are ui, export, import, copy, scrub, setup, token and consolidate (and completion, help)%s", errUsage, args[0], suggest(c, args[0]))
}

// serve opens the bank and serves it on t (or --http) until the client
// disconnects or ctx is cancelled.
func serve(ctx context.Context, f serverFlags, _ []string, t mcp.Transport, stdout, stderr io.Writer) error {
	where, language, confirmPlansFlag, httpAddr, uiAddr, uiReadOnly, secrets, excludeFlagged :=
		f.where, f.language, f.confirmPlansFlag, f.httpAddr, f.uiAddr, f.uiReadOnly, f.secrets, f.excludeFlagged
	confirmPlans, err := mcpserver.ParseConfirmPolicy(*confirmPlansFlag)
	if err != nil {
		return err
	}
	lang := memorybank.Language(*language)
	if !validLanguage(lang) {
		return fmt.Errorf("--language %q is not one of en, ja, zh", *language)
	}
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st, err := openStores(ctx, *where, logger)
	if err != nil {
		return err
	}
	defer st.close()
	if st.rootWhy != "" {
		fmt.Fprintf(stderr, "mnemobank: bank at %s: %s\n", st.root, st.rootWhy)
	} else if st.createdRoot {
		// Said once, at start-up: a mistyped --root otherwise looks like
		// a bank that forgot everything.
		logger.Warn("--root did not exist: created a NEW, EMPTY memory bank there. If you meant an existing bank, fix --root.",
			"root", st.root)
	}
	bankOpts, memOpts := &memorybank.Options{Language: lang, Logger: logger, History: history.New(&history.Options{Logger: logger})}, &memories.Options{Logger: logger, Trash: st.trash, Usage: st.usage}
	if err := trust.Apply(*secrets, *excludeFlagged, bankOpts, memOpts); err != nil {
		return fmt.Errorf("%w: --secrets: %w", errUsage, err)
	}
	bank := memorybank.New(st.bank, bankOpts)
	mem, err := memories.New(st.mem, memOpts)
	if err != nil {
		return err
	}
	// The use counted since the last batch is written when the server
	// stops, so stale candidates see it.
	defer func() {
		if err := mem.FlushUsage(context.WithoutCancel(ctx)); err != nil {
			logger.Warn("mnemobank: cannot record memory use", "error", err)
		}
	}()
	srv := mcpserver.New(bank, mem, &mcpserver.Options{Logger: logger, ConfirmPlans: confirmPlans})
	defer srv.Close()
	defer startWarmUp(ctx, srv.Server, bank, logger)()
	token := mcphttp.TrimToken(os.Getenv)
	if *uiAddr != "" {
		viewer, err := newViewer(bank, mem, *uiAddr, token, *uiReadOnly, logger)
		if err != nil {
			return err
		}
		stopUI, err := startUI(ctx, *uiAddr, token, viewer, logger, stderr)
		if err != nil {
			return err
		}
		defer stopUI()
	}
	if *httpAddr != "" {
		h := mcphttp.NewHandler(srv, mcphttp.DefaultLimits())
		viewer := &ui.Options{Bank: bank, Memories: mem, ReadOnly: *uiReadOnly, Logger: logger}
		ts, closeTokens, err := openTokenStore(ctx, *where)
		if err != nil {
			return err
		}
		defer closeTokens()
		acc := mcphttp.Access{Token: token, Store: ts, Logger: logger}
		return mcphttp.ServeAccess(ctx, *httpAddr, acc, h, viewer, logger, func(a net.Addr) {
			fmt.Fprintf(stderr, "mnemobank: listening on http://%s%s\n", a, mcphttp.Path)
		})
	}
	return srv.Run(ctx, t)
}

func versionString() string {
	return "mnemobank " + mcpserver.Version() + " (" + runtime.Version() + ")"
}

func validLanguage(l memorybank.Language) bool {
	for _, x := range memorybank.Languages() {
		if l == x {
			return true
		}
	}
	return false
}
