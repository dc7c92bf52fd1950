//go:build !windows

package portinuse

import "syscall"

// addrInUse is the error number of a bind to an address in use.
const addrInUse = syscall.EADDRINUSE
