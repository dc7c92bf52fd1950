//go:build unix

package archive_test

import "syscall"

// syncAll flushes every file system's pending writes, so a timed phase of
// the benchmark does not pay for the previous one's.
func syncAll() { syscall.Sync() }
