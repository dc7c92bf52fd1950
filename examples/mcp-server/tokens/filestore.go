package tokens

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/mnemobank/mnemobank/internal/lockfile"
)

// FileName is the file name FileStore uses in tests and examples.
const FileName = "tokens.json"

// FileFor is the tokens file of the directory bank at root: beside it, not
// in it, so an export or a copy of the bank never carries its tokens
// (./docs keeps them in ./docs.tokens.json).
func FileFor(root string) string {
	root = filepath.Clean(root)
	return filepath.Join(filepath.Dir(root), filepath.Base(root)+".tokens.json")
}

// MaxFileBytes bounds the tokens file read: about 40,000 tokens.
const MaxFileBytes = 8 << 20

// lockTimeout bounds the wait for another process's change to the file.
const lockTimeout = 10 * time.Second

// FileStore keeps tokens in a JSON file (mode 0600), read afresh on every
// call so a change by another process (mnemobank token revoke) is seen at
// once. Every change holds an advisory lock on Path+".lock" across its
// read, change and atomic rename, so concurrent writers lose nothing.
type FileStore struct{ Path string }

var _ Store = (*FileStore)(nil)

type fileDoc struct {
	Tokens []Token `json:"tokens"`
}

func (f *FileStore) read() ([]Token, error) {
	fh, err := os.Open(f.Path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer fh.Close()
	if st, err := fh.Stat(); err == nil && st.Size() > MaxFileBytes {
		return nil, fmt.Errorf("tokens: %s is %d bytes, over the limit of %d", f.Path, st.Size(), MaxFileBytes)
	}
	var d fileDoc
	if err := json.NewDecoder(fh).Decode(&d); err != nil {
		return nil, fmt.Errorf("tokens: %s: %w", f.Path, err)
	}
	return d.Tokens, nil
}

// change runs fn over the tokens under the lock and writes what it leaves.
func (f *FileStore) change(ctx context.Context, fn func([]Token) ([]Token, error)) error {
	if err := os.MkdirAll(filepath.Dir(f.Path), 0o700); err != nil {
		return err
	}
	l, err := lockfile.Acquire(ctx, f.Path+".lock", lockTimeout)
	if err != nil {
		return err
	}
	defer l.Unlock()
	ts, err := f.read()
	if err != nil {
		return err
	}
	ts, err = fn(ts)
	if err != nil {
		return err
	}
	data, err := json.MarshalIndent(fileDoc{Tokens: sorted(ts)}, "", "  ")
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.Path), ".tokens-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return err
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), f.Path)
}

func (f *FileStore) Create(ctx context.Context, t Token) error {
	return f.change(ctx, func(ts []Token) ([]Token, error) { return create(ts, t) })
}

func (f *FileStore) Lookup(_ context.Context, hash string) (Token, error) {
	ts, err := f.read()
	if err != nil {
		return Token{}, err
	}
	return lookup(ts, hash)
}

func (f *FileStore) List(context.Context) ([]Token, error) {
	ts, err := f.read()
	return sorted(ts), err
}

func (f *FileStore) Revoke(ctx context.Context, name string, at time.Time) error {
	return f.change(ctx, func(ts []Token) ([]Token, error) { return ts, revoke(ts, name, at) })
}

func (f *FileStore) Touch(ctx context.Context, name string, at time.Time) error {
	return f.change(ctx, func(ts []Token) ([]Token, error) { return ts, touch(ts, name, at) })
}
