package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/setup"
)

func newSetupCmd() *cobra.Command {
	var f setup.Flags
	c := newCommand("setup", "register this binary with an MCP client", setup.Usage, func(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
		return runSetup(ctx, f, args, stdin, stdout, stderr)
	})
	c.ValidArgs = setup.Clients()
	f.Add(c.Flags())
	return c
}

// runSetup is "mnemobank setup CLIENT": it registers this binary with an
// MCP client (internal/setup).
func runSetup(_ context.Context, f setup.Flags, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	home, err := os.UserHomeDir()
	if err != nil {
		return err
	}
	dir, err := os.Getwd()
	if err != nil {
		return err
	}
	exe, err := os.Executable()
	if err != nil {
		return err
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	root, _ := defaultRoot(dir) // the bank the server would use here
	m := setup.Machine{Env: setup.Env{Home: home, GOOS: runtime.GOOS, Getenv: os.Getenv}, Dir: dir, Executable: exe, DefaultRoot: root}
	err = f.Run(args, m, stdin, stdout, stderr)
	if errors.Is(err, setup.ErrUsage) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return err
}
