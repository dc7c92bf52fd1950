package claudememory_test

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

// mapFiles is an in-memory claudememory.Files for tests: the smallest
// implementation of the contract, independent of the bank.
type mapFiles struct {
	mu    sync.Mutex
	files map[string]mapFile
	next  int
	// beforeWrite, when set, runs before every WriteText and Delete takes
	// effect, outside the lock: tests use it to play another writer.
	beforeWrite func(path string)
}

type mapFile struct {
	text, version string
}

var _ claudememory.Files = (*mapFiles)(nil)

func newMapFiles(files map[string]string) *mapFiles {
	m := &mapFiles{files: map[string]mapFile{}}
	for p, t := range files {
		m.put(p, t)
	}
	return m
}

func (m *mapFiles) put(p, text string) string {
	m.next++
	v := strconv.Itoa(m.next)
	m.files[p] = mapFile{text, v}
	return v
}

func (m *mapFiles) text(p string) (string, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[p]
	return f.text, ok
}

func (m *mapFiles) paths() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var ps []string
	for p := range m.files {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

func (m *mapFiles) hook(p string) {
	if h := m.beforeWrite; h != nil {
		h(p)
	}
}

func (m *mapFiles) ReadText(ctx context.Context, p string) (string, string, error) {
	if err := ctx.Err(); err != nil {
		return "", "", err
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[p]
	if !ok {
		return "", "", fmt.Errorf("%w: %s", memorybank.ErrNotFound, p)
	}
	return f.text, f.version, nil
}

func (m *mapFiles) WriteText(ctx context.Context, p, text string, cond memorybank.Condition) (string, error) {
	if err := memorybank.ValidateKey(p); err != nil {
		return "", err
	}
	m.hook(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[p]
	if err := cond.Check(p, ok, f.version); err != nil {
		return "", err
	}
	return m.put(p, text), nil
}

func (m *mapFiles) Delete(ctx context.Context, p string, cond memorybank.Condition) error {
	m.hook(p)
	m.mu.Lock()
	defer m.mu.Unlock()
	f, ok := m.files[p]
	if !ok {
		return fmt.Errorf("%w: %s", memorybank.ErrNotFound, p)
	}
	if err := cond.Check(p, ok, f.version); err != nil {
		return err
	}
	delete(m.files, p)
	return nil
}

func (m *mapFiles) List(ctx context.Context, prefix string) ([]claudememory.Entry, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	var out []claudememory.Entry
	for p, f := range m.files {
		if strings.HasPrefix(p, prefix) {
			out = append(out, claudememory.Entry{Path: p, Size: int64(len(f.text)), Version: f.version})
		}
	}
	slices.SortFunc(out, func(a, b claudememory.Entry) int { return strings.Compare(a.Path, b.Path) })
	return out, nil
}
