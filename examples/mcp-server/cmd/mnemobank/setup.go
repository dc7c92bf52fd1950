package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/setup"
)

// runSetup is "mnemobank setup CLIENT": it registers this binary with an
// MCP client (internal/setup).
func runSetup(_ context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
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
	m := setup.Machine{Env: setup.Env{Home: home, GOOS: runtime.GOOS, Getenv: os.Getenv}, Dir: dir, Executable: exe}
	err = setup.Run(args, m, stdin, stdout, stderr)
	if errors.Is(err, setup.ErrUsage) {
		return fmt.Errorf("%w: %v", errUsage, err)
	}
	return err
}
