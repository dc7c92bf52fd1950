package main

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"strconv"

	"github.com/spf13/cobra"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/portinuse"
	"github.com/mnemobank/mnemobank/examples/mcp-server/mcphttp"
	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// The browser viewer (package ui): --ui ADDR beside the MCP server, at
// /ui/ of the --http server, or alone with "mnemobank ui".

// newViewer makes the viewer of bank and mem for a server listening on
// addr: only loopback host names are accepted in requests, and the host
// of addr; any host when addr is unspecified (0.0.0.0, which
// mcphttp.CheckAddr allows only with a token).
func newViewer(bank *memorybank.Bank, mem *memories.Manager, addr, token string, readOnly bool, logger *slog.Logger) (*ui.Handler, error) {
	return ui.New(ui.Options{Bank: bank, Memories: mem, ReadOnly: readOnly, Token: token, Hosts: mcphttp.ViewerHosts(addr, token != ""), Logger: logger})
}

// uiPortTries is how many ports after a --ui port in use are tried.
var uiPortTries = 10

// startUI serves the viewer on addr in the background and returns the
// function that stops it. The address is checked before startUI returns:
// one the flags refuse (an open address without a token) is an error. A
// port in use is not: the viewer is the lesser half of the server, and a
// second agent window started with the same --ui must still get its
// memory. The next free port of the next uiPortTries is taken instead, or,
// with none free, the server runs without the viewer; stderr says which.
func startUI(ctx context.Context, addr, token string, viewer *ui.Handler, logger *slog.Logger, stderr io.Writer) (stop func(), err error) {
	ln, err := mcphttp.Listen("--ui", addr, token)
	if portinuse.Is(err) {
		ln = nextFreePort(addr, token)
		if ln == nil {
			fmt.Fprintf(stderr, "mnemobank: warning: %v, and the next %d ports too: the viewer is not served; the MCP server runs without it\n", err, uiPortTries)
			return func() {}, nil
		}
		fmt.Fprintf(stderr, "mnemobank: warning: %v: the viewer takes the next free port, %s\n", err, ln.Addr())
	} else if err != nil {
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

// nextFreePort listens on the first free port after addr's, or returns nil.
func nextFreePort(addr, token string) net.Listener {
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		return nil
	}
	p, err := strconv.Atoi(port)
	if err != nil || p == 0 {
		return nil
	}
	for next := p + 1; next <= p+uiPortTries && next <= 65535; next++ {
		if ln, err := mcphttp.Listen("--ui", net.JoinHostPort(host, strconv.Itoa(next)), token); err == nil {
			return ln
		}
	}
	return nil
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

// uiFlags are ui's flags, declared by newUICmd.
type uiFlags struct {
	where          *storeConfig
	addr, language *string
	readOnly       *bool
}

func newUICmd() *cobra.Command {
	var f uiFlags
	c := newCommand("ui", "serve the browser viewer of the bank", uiUsage, func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return runUI(ctx, f, args, stdin, stdout, stderr)
	})
	c.Args = noArgs
	fs := c.Flags()
	f.where = storeFlags(fs)
	f.addr = fs.String("addr", "127.0.0.1:7777", "address to serve the viewer on, host:port")
	f.readOnly = fs.Bool("ui-read-only", false, "hide and refuse every change (revert, delete, restore)")
	f.language = fs.String("language", string(defaultLanguage(os.Getenv)), "language of the SKILL.md shown beside a skill graph: en, ja or zh (default from LC_ALL, LC_MESSAGES, LANG; else en)")
	completeValues(c, "language", languageNames()...)
	return c
}

// runUI is "mnemobank ui": the viewer alone, without an MCP server.
func runUI(ctx context.Context, f uiFlags, _ []string, _ io.Reader, stdout, stderr io.Writer) error {
	where, addr, readOnly, language := f.where, f.addr, f.readOnly, f.language
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
	bank := memorybank.New(st.bank, &memorybank.Options{Language: lang, Logger: logger, History: history.New(&history.Options{Logger: logger})})
	mem, err := memories.New(st.mem, &memories.Options{Logger: logger, Trash: st.trash})
	if err != nil {
		return err
	}
	viewer, err := newViewer(bank, mem, *addr, token, *readOnly, logger)
	if err != nil {
		return err
	}
	if st.rootWhy != "" {
		fmt.Fprintf(stderr, "mnemobank: bank at %s: %s\n", st.root, st.rootWhy)
	}
	fmt.Fprintf(stderr, "mnemobank: ui on http://%s%s\n", ln.Addr(), ui.Prefix)
	return mcphttp.ServeViewer(ctx, ln, viewer)
}
