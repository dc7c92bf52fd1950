package fsstore

import (
	"encoding/hex"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// journalSupported: durable writes go through the write-ahead journal
// (journal.go), which relies on syncfs(2) for its checkpoints and on the
// kernel's boot id to know whether a crash may have lost renames.
const journalSupported = true

// syncFS makes every write to the file system of the root durable with
// one syncfs(2): the data and metadata (renames, new directories) of all
// files written so far, in one journal commit instead of one per file.
func syncFS(root *os.Root) (bool, error) {
	d, err := root.Open(".")
	if err != nil {
		return true, err
	}
	defer d.Close()
	return true, unix.Syncfs(int(d.Fd()))
}

// fdatasync makes f's data durable, and its size, without the rest of
// its metadata.
func fdatasync(f *os.File) error {
	for {
		err := unix.Fdatasync(int(f.Fd()))
		if err != unix.EINTR {
			return err
		}
	}
}

// bootID identifies the running boot of the kernel; zero when unknown,
// which makes Open check the whole journal.
var bootID = func() (id [16]byte) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return id
	}
	h, err := hex.DecodeString(strings.ReplaceAll(strings.TrimSpace(string(b)), "-", ""))
	if err != nil || len(h) != len(id) {
		return id
	}
	copy(id[:], h)
	return id
}
