// Package portinuse tells a listen that failed because another socket holds
// the address from any other failure. It is a package of its own because the
// answer comes from the system's error numbers (package syscall), whose
// declarations differ by system: the programs that ask see one declaration
// everywhere, and only this package is type-checked for each system.
package portinuse

import "errors"

// Is reports whether err, from net.Listen or wrapping its error, says the
// address is already in use.
func Is(err error) bool { return errors.Is(err, addrInUse) }
