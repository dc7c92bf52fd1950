//go:build unix

package skillgraph

import (
	"syscall"
	"time"
)

// cpuTime is the CPU time (user + system) this process has used so far. The
// benchmarks report it per operation beside wall time, because on a shared,
// overloaded machine wall time mostly measures the other processes.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
