//go:build linux || darwin || freebsd || netbsd

package fsstore

import (
	"io/fs"
	"syscall"
)

// fileIdentity returns the device and inode of the file (which change when
// a write replaces it by rename) and its change time (which the kernel
// updates on any modification, and no program can set).
func fileIdentity(fi fs.FileInfo) (dev, ino uint64, ctime int64) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return 0, 0, 0
	}
	return uint64(st.Dev), uint64(st.Ino), ctimeNanos(st)
}
