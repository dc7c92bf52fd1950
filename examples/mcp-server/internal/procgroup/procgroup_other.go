//go:build !unix

package procgroup

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

const supported = false

func set(*exec.Cmd) {}

func interrupt(*os.Process) error {
	return fmt.Errorf("procgroup: %s has no process groups to interrupt: %w", runtime.GOOS, errors.ErrUnsupported)
}
