//go:build !unix

package archive_test

// syncAll does nothing where there is no sync(2): the phases of the
// benchmark then overlap on the disk.
func syncAll() {}
