// Package peakrss reads the peak resident memory of a running process, for
// the benchmarks that report a server's own peak.
//
// It reads the process's /proc status (VmHWM), on Linux only; elsewhere MiB
// fails with errors.ErrUnsupported. The rusage of an exited child is not
// used: on Linux its ru_maxrss includes the address space the child was
// forked with, so it would report the parent's peak, not the child's.
//
// It is a package of its own because the reading differs by system (files
// per system). Its exported declarations are the same on every system, so
// the benchmarks that use it type-check alike everywhere and only this
// package needs type-checking for each system.
package peakrss

// MiB returns the peak resident memory of the running process pid in MiB.
func MiB(pid int) (float64, error) { return mib(pid) }
