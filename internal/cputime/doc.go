// Package cputime reads the CPU time the process has used, for benchmarks
// that report it beside wall time: on a shared machine it is the steadier of
// the two. It is 0 where the system gives no reading.
package cputime
