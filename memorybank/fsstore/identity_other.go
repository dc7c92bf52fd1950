//go:build !(linux || darwin || freebsd || netbsd)

package fsstore

import "io/fs"

// fileIdentity is unavailable here; versions rest on size and mtime only.
// (fsstore cannot lock on these systems anyway; see lockfile.)
func fileIdentity(fs.FileInfo) (dev, ino uint64, ctime int64) { return 0, 0, 0 }
