package memories

import (
	"bytes"
	"context"
	"fmt"
	"strconv"
	"sync"
)

// MemStore is the in-memory Store. The zero value is an empty store (no file)
// ready to use; it is safe for concurrent use and implements Appender.
//
// Versions are "v1", "v2", … counting every successful write; they never
// repeat within one MemStore, so a Save based on a stale Load always fails
// with ErrConflict.
type MemStore struct {
	mu     sync.Mutex
	data   []byte
	exists bool
	seq    uint64
}

var (
	_ Store     = (*MemStore)(nil)
	_ Appender  = (*MemStore)(nil)
	_ Versioner = (*MemStore)(nil)
)

func (s *MemStore) version() string {
	if !s.exists {
		return ""
	}
	return "v" + strconv.FormatUint(s.seq, 10)
}

// Version implements Versioner.
func (s *MemStore) Version(ctx context.Context) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.version(), nil
}

// Load returns a copy of the stored bytes and their version; (nil, "", nil)
// when nothing has been written yet.
func (s *MemStore) Load(ctx context.Context) ([]byte, string, error) {
	if err := ctx.Err(); err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exists {
		return nil, "", nil
	}
	return bytes.Clone(s.data), s.version(), nil
}

// Save replaces the stored bytes if the current version is ifVersion ("" =
// nothing stored yet); otherwise it returns ErrConflict and changes nothing.
func (s *MemStore) Save(ctx context.Context, data []byte, ifVersion string) (string, error) {
	if err := ctx.Err(); err != nil {
		return "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version() != ifVersion {
		return "", ErrConflict
	}
	s.data = bytes.Clone(data)
	if s.data == nil {
		s.data = []byte{}
	}
	s.exists = true
	s.seq++
	return s.version(), nil
}

// Append adds entry at the end, writing header first if the store is empty
// and a newline first if the data does not end with one.
func (s *MemStore) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	if err := ctx.Err(); err != nil {
		return 0, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.data = appendEntry(s.data, header, entry)
	s.exists = true
	s.seq++
	return int64(len(s.data)), s.version(), nil
}

var _ CondAppender = (*MemStore)(nil)

// AppendIf is Append if the current version is ifVersion; otherwise it
// returns ErrConflict and changes nothing.
func (s *MemStore) AppendIf(ctx context.Context, header, entry []byte, ifVersion string) (int64, string, error) {
	if err := ctx.Err(); err != nil {
		return 0, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.version() != ifVersion {
		return 0, "", ErrConflict
	}
	s.data = appendEntry(s.data, header, entry)
	s.exists = true
	s.seq++
	return int64(len(s.data)), s.version(), nil
}

// appendEntry applies the Appender rules to data in memory.
func appendEntry(data, header, entry []byte) []byte {
	if len(data) == 0 {
		data = append(data, header...)
	}
	if len(data) > 0 && data[len(data)-1] != '\n' {
		data = append(data, '\n')
	}
	return append(data, entry...)
}

var _ Sizer = (*MemStore)(nil)

// Size returns the number of stored bytes.
func (s *MemStore) Size(ctx context.Context) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return int64(len(s.data)), nil
}

var _ Peeker = (*MemStore)(nil)

// Peek returns a copy of the first n stored bytes.
func (s *MemStore) Peek(ctx context.Context, n int) ([]byte, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if n < 0 {
		return nil, fmt.Errorf("%w: Peek of %d bytes: n must be 0 or more", ErrInvalid, n)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exists {
		return nil, nil
	}
	return bytes.Clone(s.data[:min(n, len(s.data))]), nil
}
