//go:build !linux

package peakrss

import (
	"errors"
	"fmt"
	"runtime"
)

func mib(int) (float64, error) {
	return 0, fmt.Errorf("peakrss: a process's peak memory is read from /proc, on Linux only, not %s: %w", runtime.GOOS, errors.ErrUnsupported)
}
