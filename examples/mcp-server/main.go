// Command mcp-server serves the memory bank tools of
// github.com/agentmemory/agentmemory/memorybank over MCP on stdio, on a
// memory bank kept in a directory (fsstore): the layout existing
// memory-bank MCP servers use, so it can take over their docs folder.
//
//	go run . --root ./docs --language en
//
// Every tool of memorybank/tools is registered with the official MCP Go
// SDK's raw Server.AddTool: the tool validates its own arguments against its
// schema, and a *tools.Error becomes a tool result with isError set, the
// code and message in its text, and the error itself as structured content. Logs go to stderr; stdout carries the protocol.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentmemory/agentmemory/memorybank"
	"github.com/agentmemory/agentmemory/memorybank/fsstore"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], &mcp.StdioTransport{}, os.Stderr); err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "mcp-server:", err)
		os.Exit(1)
	}
}

// run parses the flags, opens the bank and serves it on t until the client
// disconnects or ctx is cancelled.
func run(ctx context.Context, args []string, t mcp.Transport, stderr io.Writer) error {
	fs := flag.NewFlagSet("mcp-server", flag.ContinueOnError)
	fs.SetOutput(stderr)
	root := fs.String("root", "./docs", "directory of the memory bank (created if missing); holds global-memory-bank/ and branch-memory-bank/")
	language := fs.String("language", string(memorybank.Japanese), "default language of read_context and read_rules: en, ja or zh")
	if err := fs.Parse(args); err != nil {
		return err
	}
	lang := memorybank.Language(*language)
	if !validLanguage(lang) {
		return fmt.Errorf("--language %q is not one of en, ja, zh", *language)
	}
	store, err := fsstore.Open(*root, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	logger := slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	bank := memorybank.New(store, &memorybank.Options{Language: lang, Logger: logger})
	return newServer(bank, logger).Run(ctx, t)
}

func validLanguage(l memorybank.Language) bool {
	for _, x := range memorybank.Languages {
		if l == x {
			return true
		}
	}
	return false
}
