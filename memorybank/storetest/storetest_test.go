package storetest_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"iter"
	"os"
	"os/exec"
	"slices"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/storetest"
)

// envBroken names the broken store a child process runs the suite on.
const envBroken = "STORETEST_BROKEN_STORE"

func TestMain(m *testing.M) {
	if os.Getenv(envBroken) != "" {
		// Child: run only the suite, on the broken store.
		os.Args = []string{os.Args[0], "-test.run=^TestSuiteCatchesBrokenStores$", "-test.v"}
	}
	os.Exit(m.Run())
}

// brokenStores each break one rule of the contract, and name a subtest that
// must fail because of it.
var brokenStores = map[string]struct {
	failing string
	store   func() memorybank.Store
}{
	"ignoresIfVersion": {"Conditions", func() memorybank.Store { return ignoresIfVersion{new(memorybank.MemStore)} }},
	"aliasesGet":       {"CopyNotAlias", func() memorybank.Store { return &aliasesGet{MemStore: new(memorybank.MemStore)} }},
	"unsortedList":     {"List", func() memorybank.Store { return unsortedList{new(memorybank.MemStore)} }},
	"ignoresContext":   {"CancelledContext", func() memorybank.Store { return ignoresContext{new(memorybank.MemStore)} }},
	"contentVersions":  {"VersionsChangeOnEveryWrite", func() memorybank.Store { return contentVersions{new(memorybank.MemStore)} }},

	"lockDoesNotExclude":    {"KeyLocker", func() memorybank.Store { return lockDoesNotExclude{newFullStore()} }},
	"lazyIsAnotherStore":    {"LazyWriter", func() memorybank.Store { return lazyIsAnotherStore{newFullStore()} }},
	"orderedIsAnotherStore": {"OrderedWriter", func() memorybank.Store { return orderedIsAnotherStore{newFullStore()} }},
	"batchIgnoresCondition": {"BatchPutter", func() memorybank.Store { return batchIgnoresCondition{newFullStore()} }},
	"watchNeverSignals":     {"ChangeNotifier", func() memorybank.Store { return watchNeverSignals{newFullStore()} }},
}

// fullStoreName names, for a child process, the store with every optional
// interface implemented correctly.
const fullStoreName = "fullStore"

func storeNamed(name string) memorybank.Store {
	if name == fullStoreName {
		return newFullStore()
	}
	return brokenStores[name].store()
}

// TestSuiteCatchesBrokenStores runs the suite, in child processes, on stores
// that each break one rule, and checks that the suite fails in the subtest
// for that rule while the CRUD basics still pass.
func TestSuiteCatchesBrokenStores(t *testing.T) {
	if name := os.Getenv(envBroken); name != "" {
		storetest.TestStore(t, func(*testing.T) memorybank.Store { return storeNamed(name) })
		return
	}
	for name, b := range brokenStores {
		t.Run(name, func(t *testing.T) {
			cmd := exec.Command(os.Args[0])
			cmd.Env = append(os.Environ(), envBroken+"="+name)
			out, err := cmd.CombinedOutput()
			require.Error(t, err, "the suite passed a store that breaks the contract:\n%s", out)
			assert.Contains(t, string(out), "--- FAIL: TestSuiteCatchesBrokenStores/"+b.failing+" ")
			assert.Contains(t, string(out), "--- PASS: TestSuiteCatchesBrokenStores/InvalidKeys ")
		})
	}
}

// TestSuiteChecksEveryOptionalInterface runs the suite on a store with
// every optional interface and checks that it passes with nothing skipped,
// so a check that silently stopped running would show.
func TestSuiteChecksEveryOptionalInterface(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), envBroken+"="+fullStoreName)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "the suite failed a correct store:\n%s", out)
	assert.NotContains(t, string(out), "--- SKIP")
	for _, name := range []string{"ChangeCounter", "ChangeNotifier", "KeyLocker", "LazyWriter", "OrderedWriter", "BatchPutter"} {
		assert.Contains(t, string(out), "--- PASS: TestSuiteCatchesBrokenStores/"+name+" ")
	}
}

func TestSuitePassesMemStore(t *testing.T) {
	storetest.TestStore(t, func(*testing.T) memorybank.Store { return new(memorybank.MemStore) })
}

type ignoresIfVersion struct{ *memorybank.MemStore }

func (s ignoresIfVersion) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	cond.IfVersion = ""
	return s.MemStore.Put(ctx, key, data, cond)
}

// aliasesGet hands every caller the same cached buffer.
type aliasesGet struct {
	*memorybank.MemStore
	mu    sync.Mutex
	cache map[string]memorybank.Object
}

func (s *aliasesGet) Get(ctx context.Context, key string) (memorybank.Object, error) {
	obj, err := s.MemStore.Get(ctx, key)
	if err != nil {
		return obj, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cache == nil {
		s.cache = map[string]memorybank.Object{}
	}
	if c, ok := s.cache[key]; ok && c.Version == obj.Version {
		return c, nil
	}
	s.cache[key] = obj
	return obj, nil
}

type unsortedList struct{ *memorybank.MemStore }

func (s unsortedList) List(ctx context.Context, prefix string) iter.Seq2[memorybank.Object, error] {
	return func(yield func(memorybank.Object, error) bool) {
		var objs []memorybank.Object
		for o, err := range s.MemStore.List(ctx, prefix) {
			if err != nil {
				yield(o, err)
				return
			}
			objs = append(objs, o)
		}
		slices.Reverse(objs)
		for _, o := range objs {
			if !yield(o, nil) {
				return
			}
		}
	}
}

type ignoresContext struct{ *memorybank.MemStore }

func (s ignoresContext) Put(_ context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	return s.MemStore.Put(context.Background(), key, data, cond)
}

// contentVersions uses a hash of the content as version, which does not
// change when identical bytes are written again.
type contentVersions struct{ *memorybank.MemStore }

func hash(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:8]) }

func (s contentVersions) Get(ctx context.Context, key string) (memorybank.Object, error) {
	obj, err := s.MemStore.Get(ctx, key)
	obj.Version = hash(obj.Data)
	return obj, err
}

func (s contentVersions) Put(ctx context.Context, key string, data []byte, cond memorybank.Condition) (memorybank.Object, error) {
	if cond.IfVersion != "" {
		cur, err := s.MemStore.Get(ctx, key)
		if err != nil || !bytes.Equal([]byte(hash(cur.Data)), []byte(cond.IfVersion)) {
			return memorybank.Object{}, memorybank.ErrConflict
		}
		cond.IfVersion = cur.Version
	}
	obj, err := s.MemStore.Put(ctx, key, data, cond)
	obj.Version = hash(data)
	return obj, err
}
