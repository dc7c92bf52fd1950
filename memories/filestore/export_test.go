package filestore

import "os"

// SetWriteHook replaces the write of every append (tests only).
func SetWriteHook(h func(f *os.File, b []byte, off int64) (int, error)) { writeAt = h }
