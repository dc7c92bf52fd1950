//go:build darwin || freebsd || netbsd

package fsstore

import "syscall"

func ctimeNanos(st *syscall.Stat_t) int64 { return st.Ctimespec.Nano() }
