// Package procgroup starts a command in a process group of its own and
// interrupts the whole group, for the tests that run shell lines: a shell's
// children (a server it started) get the interrupt too, as they would from
// a terminal's Ctrl-C.
//
// Process groups are a Unix facility: elsewhere Supported is false, Set does
// nothing and Interrupt fails with errors.ErrUnsupported.
//
// It is a package of its own because the calls come from package syscall,
// whose declarations differ by system. Its exported declarations are the
// same on every system (the per-system code is unexported), so the tests
// that use it type-check alike everywhere and only this package needs
// type-checking for each system.
package procgroup

import (
	"os"
	"os/exec"
)

// Supported reports whether this system has process groups.
func Supported() bool { return supported }

// Set makes cmd, once started, the leader of a new process group, which
// its children join.
func Set(cmd *exec.Cmd) { set(cmd) }

// Interrupt sends SIGINT to the process group that p leads (see Set).
func Interrupt(p *os.Process) error { return interrupt(p) }
