package portinuse

import "syscall"

// addrInUse is Winsock's WSAEADDRINUSE, the error number a bind returns on
// Windows; syscall.EADDRINUSE there is an invented number no call returns.
const addrInUse = syscall.Errno(10048)
