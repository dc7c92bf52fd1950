// Package scrub finds credentials already stored in a memory bank and its
// learned memories, every key included (documents, their history entries,
// tombstones, indexes, the memories file and its trash), and removes them
// by replacing each with screen.Marker of its kind.
//
// It works on the stores, below the Bank, so that the history keeps every
// version: each entry loses only the credential, and the patches of
// neighbouring versions, redacted the same way, still line up. Find only
// reads; Remove writes each key with compare-and-swap on the version Find
// saw, so a key changed since is scanned again rather than overwritten.
package scrub

import (
	"context"
	"errors"
	"fmt"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/screen"
)

// Source is what Find and Remove scan: a bank's store and any number of
// memories files (the file and its trash), each with a name for reports.
type Source struct {
	Store    memorybank.Store
	Memories []NamedMemories
}

// NamedMemories is a memories store with the name reports give it (its
// file name).
type NamedMemories struct {
	Name  string
	Store memories.Store
}

// Hit is one stored key or memories file holding credentials.
type Hit struct {
	// Key is the store key, or the memories file's Name when Memories.
	Key      string
	Memories bool
	Findings []screen.Finding
	version  string
}

// Find scans every key of src.Store and every memories file of src with
// scanner and returns the ones holding credentials, in key order.
func Find(ctx context.Context, src Source, scanner screen.Scanner) ([]Hit, error) {
	if scanner == nil {
		return nil, errors.New("scrub: no scanner")
	}
	var hits []Hit
	if src.Store != nil {
		for obj, err := range src.Store.List(ctx, "") {
			if err != nil {
				return nil, fmt.Errorf("scrub: listing the bank: %w", err)
			}
			full, err := src.Store.Get(ctx, obj.Key)
			if errors.Is(err, memorybank.ErrNotFound) {
				continue // deleted since listed
			}
			if err != nil {
				return nil, fmt.Errorf("scrub: reading %q: %w", obj.Key, err)
			}
			if f := scanner.Scan(string(full.Data)); len(f) > 0 {
				hits = append(hits, Hit{Key: obj.Key, Findings: f, version: full.Version})
			}
		}
	}
	for _, m := range src.Memories {
		if m.Store == nil {
			continue
		}
		data, v, err := m.Store.Load(ctx)
		if err != nil {
			return nil, fmt.Errorf("scrub: reading %s: %w", m.Name, err)
		}
		if f := scanner.Scan(string(data)); len(f) > 0 {
			hits = append(hits, Hit{Key: m.Name, Memories: true, Findings: f, version: v})
		}
	}
	return hits, nil
}

// ErrChanged is the error of Remove for a key changed since Find: nothing
// was written to it; run Find again.
var ErrChanged = errors.New("scrub: changed since it was scanned")

// Remove replaces every credential of hits (as Find returned them) with
// screen.Marker of its kind, key by key, each only if it is still the
// version Find read. It returns how many keys it rewrote; a key changed
// since Find is left alone and reported in the error (wrapping ErrChanged)
// after the others are done.
func Remove(ctx context.Context, src Source, hits []Hit) (int, error) {
	mems := map[string]memories.Store{}
	for _, m := range src.Memories {
		mems[m.Name] = m.Store
	}
	done := 0
	var changed []string
	for _, h := range hits {
		if h.Memories {
			s := mems[h.Key]
			if s == nil {
				return done, fmt.Errorf("scrub: no memories file named %q", h.Key)
			}
			data, v, err := s.Load(ctx)
			if err != nil {
				return done, fmt.Errorf("scrub: reading %s: %w", h.Key, err)
			}
			if v != h.version {
				changed = append(changed, h.Key)
				continue
			}
			_, err = s.Save(ctx, []byte(screen.RedactFindings(string(data), h.Findings)), v)
			if errors.Is(err, memories.ErrConflict) {
				changed = append(changed, h.Key)
				continue
			}
			if err != nil {
				return done, fmt.Errorf("scrub: writing %s: %w", h.Key, err)
			}
			done++
			continue
		}
		obj, err := src.Store.Get(ctx, h.Key)
		if errors.Is(err, memorybank.ErrNotFound) {
			continue // gone: nothing to remove
		}
		if err != nil {
			return done, fmt.Errorf("scrub: reading %q: %w", h.Key, err)
		}
		if obj.Version != h.version {
			changed = append(changed, h.Key)
			continue
		}
		_, err = src.Store.Put(ctx, h.Key, []byte(screen.RedactFindings(string(obj.Data), h.Findings)), memorybank.Condition{IfVersion: h.version})
		if errors.Is(err, memorybank.ErrConflict) {
			changed = append(changed, h.Key)
			continue
		}
		if err != nil {
			return done, fmt.Errorf("scrub: writing %q: %w", h.Key, err)
		}
		done++
	}
	if len(changed) > 0 {
		return done, fmt.Errorf("%w: %q; run scrub again to scan them anew", ErrChanged, changed)
	}
	return done, nil
}
