//go:build !unix

package skillgraph

import "time"

// cpuTime is unavailable here; the cpu-ns/op metric then reads 0.
func cpuTime() time.Duration { return 0 }
