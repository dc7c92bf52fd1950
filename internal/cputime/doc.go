// Package cputime reads the CPU time the process has used, for benchmarks
// that report it beside wall time: on a shared machine it is the steadier of
// the two. It is 0 where the system gives no reading.
//
// The reading differs by system (files per system) behind one exported
// declaration, the same on every system, so the benchmarks that use it
// type-check alike everywhere and only this package needs type-checking for
// each system.
package cputime

import "time"

// Process is the CPU time (user and system) the process has used so far, or
// 0 where the system gives no reading.
func Process() time.Duration { return process() }
