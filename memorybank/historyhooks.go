package memorybank

import (
	"context"
	"errors"
	"fmt"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"time"

	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
)

// The history package reads what Write and Delete record; these hooks give
// it the Bank internals it needs without exporting them (see histio).
func init() {
	histio.Locate = func(ctx context.Context, bank any, scope, branch, path string) (histio.Loc, error) {
		b, _ := bank.(*Bank)
		if err := b.ready(); err != nil {
			return histio.Loc{}, err
		}
		l, err := b.locate(ctx, Scope(scope), branch, path, false)
		if err != nil {
			return histio.Loc{}, err
		}
		return histio.Loc{Scope: string(l.scope), Branch: l.branch, Prefix: l.prefix, Path: l.path, Key: l.key, Where: l.describe()}, nil
	}
	histio.Current = func(ctx context.Context, bank any, hl histio.Loc) ([]byte, int64, string, error) {
		return bank.(*Bank).current(ctx, fromHistLoc(hl))
	}
	histio.AwaitWriters = func(ctx context.Context, bank any, hl histio.Loc) error {
		unlock, err := bank.(*Bank).locks.lock(ctx, foldKey(hl.Key))
		if err != nil {
			return err
		}
		unlock() // this Bank's writers record their entry before unlocking
		return nil
	}
	histio.Document = func(hl histio.Loc, data []byte) (any, error) {
		e, ok := codec.SplitEnvelope(codec.FormatOf(hl.Path), hl.Path, data)
		if !ok {
			return nil, corrupt(hl.Path, errors.New("a rebuilt version is not a JSON object"))
		}
		return documentOf(e, Scope(hl.Scope), hl.Branch, time.Time{})
	}
	histio.Backoff = backoff
	histio.LockDocument = func(ctx context.Context, bank any, key string) (func(), error) {
		return bank.(*Bank).lockDocument(ctx, key)
	}
}

func fromHistLoc(hl histio.Loc) loc {
	return loc{scope: Scope(hl.Scope), branch: hl.Branch, prefix: hl.Prefix, path: hl.Path, key: hl.Key}
}

// current reads the state of the document at l: its canonical form (nil
// when absent), its version, and its store version ("" when absent).
func (b *Bank) current(ctx context.Context, l loc) (state []byte, cur int64, storeVersion string, err error) {
	obj, err := b.store.Get(ctx, l.key)
	switch {
	case err == nil:
		e, err := decodeStored(codec.FormatOf(l.path), l.path, obj.Data)
		if err != nil {
			return nil, 0, "", err
		}
		if state, err = e.Canonical(true); err != nil {
			return nil, 0, "", corrupt(l.path, err)
		}
		return state, e.Version(), obj.Version, nil
	case errors.Is(err, ErrNotFound):
		if cur, err = b.lastDeleted(ctx, l); err != nil {
			return nil, 0, "", err
		}
		if cur == 0 {
			return nil, 0, "", fmt.Errorf("%w: %q in the %s has no history", ErrNotFound, l.path, l.describe())
		}
		return nil, cur, "", nil
	}
	return nil, 0, "", err
}
