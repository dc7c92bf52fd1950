package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcphttp"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
)

// The browser viewer (package ui): --ui ADDR beside the MCP server, at
// /ui/ of the --http server, or alone with "mnemobank ui".

// newViewer makes the viewer of bank and mem for a server listening on
// addr: only loopback host names are accepted in requests, and the host
// of addr; any host when addr is unspecified (0.0.0.0, which
// mcphttp.CheckAddr allows only with a token).
func newViewer(bank *memorybank.Bank, mem *memories.Manager, addr, token string, readOnly bool, logger *slog.Logger) (*ui.Handler, error) {
	var hosts []string
	if host, _, err := net.SplitHostPort(addr); err == nil {
		switch ip := net.ParseIP(host); {
		case host == "" || ip != nil && ip.IsUnspecified():
			if token != "" {
				hosts = []string{"*"}
			}
		case host != "localhost" && (ip == nil || !ip.IsLoopback()):
			hosts = []string{host}
		}
	}
	return ui.New(ui.Options{Bank: bank, Memories: mem, ReadOnly: readOnly, Token: token, Hosts: hosts, Logger: logger})
}

// startUI serves the viewer on addr in the background and returns the
// function that stops it. The address is checked and listened on before
// startUI returns, so a port in use is an error at start-up.
func startUI(ctx context.Context, addr, token string, viewer *ui.Handler, logger *slog.Logger, stderr io.Writer) (stop func(), err error) {
	ln, err := mcphttp.Listen("--ui", addr, token)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(stderr, "mnemobank: ui on http://%s%s\n", ln.Addr(), ui.Prefix)
	ctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() {
		defer close(done)
		if err := mcphttp.ServeViewer(ctx, ln, viewer); err != nil {
			logger.Error("mnemobank: the viewer stopped", "err", err)
		}
	}()
	return func() { cancel(); <-done }, nil
}

const uiUsage = `Usage: mnemobank ui [--root DIR --memories FILE | --postgres DSN --namespace N] [--addr 127.0.0.1:7777] [--language en|ja|zh] [--ui-read-only]

Serves the browser viewer of the bank at http://ADDR/ui/ until interrupted:
the banks and their documents, each document's history with differences and
revert, search, the learned memories (delete, restore), the skill graphs
drawn, and a live feed of changes. Only a loopback address is served unless
MNEMOBANK_TOKEN is set; then open http://ADDR/ui/?token=<token> once.
--ui-read-only hides and refuses every change. --language is the language of
the SKILL.md shown beside each skill graph, as for the server. Skill graphs
are drawn by mnemobank-dot (installed beside mnemobank or on PATH, or named
by MNEMOBANK_DOT) or Graphviz's dot; without one their DOT source is shown.

Flags:
`

// runUI is "mnemobank ui": the viewer alone, without an MCP server.
func runUI(ctx context.Context, args []string, _ io.Reader, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("mnemobank ui", flag.ContinueOnError)
	fs.SetOutput(stderr)
	where := storeFlags(fs)
	addr := fs.String("addr", "127.0.0.1:7777", "address to serve the viewer on, host:port")
	readOnly := fs.Bool("ui-read-only", false, "hide and refuse every change (revert, delete, restore)")
	language := fs.String("language", string(memorybank.Japanese), "language of the SKILL.md shown beside a skill graph: en, ja or zh")
	if err := parseFlags(fs, args, uiUsage, stdout); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return fmt.Errorf("%w: unexpected argument %q; flags are --root, --memories, --postgres, --namespace, --addr, --language and --ui-read-only", errUsage, fs.Arg(0))
	}
	lang := memorybank.Language(*language)
	if !validLanguage(lang) {
		return fmt.Errorf("--language %q is not one of en, ja, zh", *language)
	}
	token := mcphttp.TrimToken(os.Getenv)
	ln, err := mcphttp.Listen("--addr", *addr, token)
	if err != nil {
		return err
	}
	defer ln.Close()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	st, err := openStores(ctx, *where, logger)
	if err != nil {
		return err
	}
	defer st.close()
	bank := memorybank.New(st.bank, &memorybank.Options{Language: lang, Logger: logger})
	mem, err := memories.New(st.mem, &memories.Options{Logger: logger, Trash: st.trash})
	if err != nil {
		return err
	}
	viewer, err := newViewer(bank, mem, *addr, token, *readOnly, logger)
	if err != nil {
		return err
	}
	logger.Info("mnemobank: viewer", "bank", st.source)
	fmt.Fprintf(stderr, "mnemobank: ui on http://%s%s\n", ln.Addr(), ui.Prefix)
	return mcphttp.ServeViewer(ctx, ln, viewer)
}
