package archive

import "io"

// Spool is temporary storage that Export and Import write once, from its
// start, and then read back at offsets: the manifest while an export
// streams its entries, the copy of an archive that arrives as a stream. The
// package opens no file of its own: an *os.File from os.CreateTemp is a
// Spool the host creates (where its temporary files belong) and removes
// afterwards; a nil Spool in the options is memory.
type Spool interface {
	io.Writer
	io.ReaderAt
}

// memSpool is the Spool in memory.
type memSpool struct{ b []byte }

func (m *memSpool) Write(p []byte) (int, error) {
	m.b = append(m.b, p...)
	return len(p), nil
}

func (m *memSpool) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, io.ErrUnexpectedEOF
	}
	if off >= int64(len(m.b)) {
		return 0, io.EOF
	}
	n := copy(p, m.b[off:])
	if n < len(p) {
		return n, io.EOF
	}
	return n, nil
}

// countingWriter counts what it writes to w: the spool's size, without
// asking the spool (a Spool need not seek).
type countingWriter struct {
	w Spool
	n int64
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}
