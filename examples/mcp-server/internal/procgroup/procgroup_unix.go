//go:build unix

package procgroup

import (
	"os"
	"os/exec"
	"syscall"
)

const supported = true

func set(cmd *exec.Cmd) {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Setpgid = true
}

func interrupt(p *os.Process) error { return syscall.Kill(-p.Pid, syscall.SIGINT) }
