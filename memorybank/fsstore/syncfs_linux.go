package fsstore

import (
	"os"

	"golang.org/x/sys/unix"
)

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
