//go:build unix

package procgroup_test

import (
	"context"
	"errors"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/procgroup"
)

// Interrupt reaches every process of the group Set made, not only its
// leader.
func TestInterruptReachesTheGroup(t *testing.T) {
	require.True(t, procgroup.Supported())
	// A failure kills what is left (SIGKILL) instead of leaving it running.
	ctx, cancel := context.WithTimeout(t.Context(), time.Minute)
	defer cancel()
	leader := exec.CommandContext(ctx, "sleep", "3600")
	procgroup.Set(leader)
	require.NoError(t, leader.Start())
	pgid, err := syscall.Getpgid(leader.Process.Pid)
	require.NoError(t, err)
	require.Equal(t, leader.Process.Pid, pgid, "the command leads a group of its own")

	member := exec.CommandContext(ctx, "sleep", "3600")
	member.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pgid: pgid}
	require.NoError(t, member.Start())

	require.NoError(t, procgroup.Interrupt(leader.Process))
	for name, cmd := range map[string]*exec.Cmd{"leader": leader, "member": member} {
		var exit *exec.ExitError
		require.True(t, errors.As(cmd.Wait(), &exit), "the %s was stopped by a signal", name)
		assert.Equal(t, syscall.SIGINT, exit.Sys().(syscall.WaitStatus).Signal(), "the %s got SIGINT", name)
	}
}
