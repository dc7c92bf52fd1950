//go:build unix

package textsearch

import (
	"syscall"
	"time"
)

// processCPU is the CPU time (user+system) the process has used. On a shared
// machine it is steadier than wall time, so benchmarks report it too.
func processCPU() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
