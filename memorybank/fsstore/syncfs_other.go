//go:build !linux

package fsstore

import "os"

// journalSupported: without syncfs(2) there is no cheap checkpoint, so
// durable writes sync each file and its directory.
const journalSupported = false

// syncFS reports false: without syncfs(2) PutBatch syncs each file and
// directory.
func syncFS(*os.Root) (bool, error) { return false, nil }

func fdatasync(f *os.File) error { return f.Sync() }

var bootID = func() (id [16]byte) { return id }
