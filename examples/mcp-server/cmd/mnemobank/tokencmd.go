package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/spf13/cobra"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens/pgtokens"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

const tokenUsage = `Usage:
  mnemobank token create --name NAME [--scope read|write|admin] [--expires 90d|12h|never] [--root DIR | --postgres DSN --namespace N]
  mnemobank token list   [--root DIR | --postgres DSN --namespace N]
  mnemobank token revoke [--root DIR | --postgres DSN --namespace N] NAME

Personal bearer tokens of the HTTP server (--http): each has a name, recorded
as the actor of its writes, and a scope: read (read, search, list), write
(adds writes, deletes and plans) or admin (adds revert, import and tokens).
create prints the token once; only its SHA-256 is kept, in the namespace's
table with --postgres, else in DIR.tokens.json beside the bank's directory. A revoked token is refused by
every server of the bank within 2 seconds. MNEMOBANK_TOKEN stays an admin token.

Flags:
`

// newTokenCmd is "mnemobank token" and its commands create, list and
// revoke, whose flags package tokens declares.
func newTokenCmd() *cobra.Command {
	c := newCommand("token", "create, list or revoke personal HTTP tokens", tokenUsage, runTokenArgs)
	for _, sub := range tokens.Subcommands {
		gfs := flag.NewFlagSet("mnemobank token "+sub, flag.ContinueOnError)
		cmd, err := tokens.NewCommand(sub, gfs)
		if err != nil {
			panic(err) // tokens.Subcommands are its commands
		}
		var where *storeConfig
		tc := newCommand(sub, "", tokenUsage, func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
			return runToken(ctx, cmd, where, args, stdin, stdout, stderr)
		})
		tc.Short = map[string]string{"create": "create a token and print it once", "list": "list the tokens", "revoke": "revoke a token"}[sub]
		where = storeFlags(tc.Flags())
		tc.Flags().AddGoFlagSet(gfs)
		c.AddCommand(tc)
	}
	return c
}

// runTokenArgs is "mnemobank token" without one of its commands.
func runTokenArgs(_ context.Context, args []string, _ io.Reader, _, _ io.Writer) error {
	if len(args) == 0 {
		return fmt.Errorf("%w: token needs a command: create, list or revoke", errUsage)
	}
	_, err := tokens.NewCommand(args[0], flag.NewFlagSet("", flag.ContinueOnError))
	return fmt.Errorf("%w: %v", errUsage, err)
}

// runToken runs "mnemobank token create|list|revoke".
func runToken(ctx context.Context, cmd *tokens.Command, where *storeConfig, args []string, _ io.Reader, stdout, _ io.Writer) error {
	st, closeStore, err := openTokenStore(ctx, *where)
	if err != nil {
		return err
	}
	defer closeStore()
	err = cmd.Run(ctx, st, args, time.Now(), stdout)
	if errors.Is(err, tokens.ErrUsage) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return err
}

// openTokenStore opens the tokens of the bank c names: the namespace's
// table in PostgreSQL, else DIR.tokens.json beside the bank's directory.
func openTokenStore(ctx context.Context, c storeConfig) (tokens.Store, func(), error) {
	if c.Postgres == "" {
		return &tokens.FileStore{Path: tokens.FileFor(c.Root)}, func() {}, nil
	}
	cfg, err := pgxpool.ParseConfig(postgresDSN(c.Postgres))
	if err != nil {
		return nil, nil, fmt.Errorf("--postgres: %w", err)
	}
	cfg.MaxConns = 4 // a lookup per token every few seconds, a touch a minute
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, nil, fmt.Errorf("--postgres: %w", err)
	}
	ns := c.Namespace
	if ns == "" {
		ns = pgstore.DefaultNamespace
	}
	return pgtokens.New(pool, ns), pool.Close, nil
}
