package storetest_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"os/exec"
	"runtime"
	"sync"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/storetest"
)

// envStore names the store a child process runs the suite on.
const envStore = "MEMORIES_STORETEST_STORE"

// suiteTest is the test a child process runs; its subtests are the suite's.
const suiteTest = "TestSuiteCatchesBrokenStores"

func TestMain(m *testing.M) {
	if os.Getenv(envStore) != "" {
		// Child: run only the suite, on the named store.
		os.Args = []string{os.Args[0], "-test.run=^" + suiteTest + "$", "-test.v", "-test.timeout=2m"}
	}
	os.Exit(m.Run())
}

// brokenStores each break one rule of the contracts in memories/store.go,
// and name the subtest that must fail because of it.
var brokenStores = map[string]struct {
	failing string
	store   func() memories.Store
}{
	"ignoresIfVersion":     {"SaveStaleConflict", func() memories.Store { return ignoresIfVersion{new(memories.MemStore)} }},
	"aliasesLoad":          {"LoadReturnsCopy", func() memories.Store { return &aliasesLoad{MemStore: new(memories.MemStore)} }},
	"retainsSave":          {"SaveDoesNotRetain", func() memories.Store { return &retainsSave{MemStore: new(memories.MemStore)} }},
	"contentVersions":      {"SaveSameBytesChangesVersion", func() memories.Store { return contentVersions{new(memories.MemStore)} }},
	"forgetsHeaderOnEmpty": {"Appender/EmptyWritesHeader", func() memories.Store { return forgetsHeaderOnEmpty{new(memories.MemStore)} }},
	"skipsMissingNewline":  {"Appender/AddsMissingNewline", func() memories.Store { return skipsMissingNewline{new(memories.MemStore)} }},
	"retainsAppend":        {"Appender/DoesNotRetain", func() memories.Store { return &retainsAppend{MemStore: new(memories.MemStore)} }},
	"nonAtomicAppend":      {"Appender/ConcurrentWithSave", func() memories.Store { return nonAtomicAppend{new(memories.MemStore)} }},
	"sizeInRunes":          {"Sizer/AfterSave", func() memories.Store { return sizeInRunes{new(memories.MemStore)} }},
	"sizeIgnoresAppend":    {"Sizer/AfterAppend", func() memories.Store { return &sizeIgnoresAppend{MemStore: new(memories.MemStore)} }},
	"peekIgnoresN":         {"Peeker/Prefix", func() memories.Store { return peekIgnoresN{new(memories.MemStore)} }},
	"peekMissingAsEmpty":   {"Peeker/Missing", func() memories.Store { return peekMissingAsEmpty{new(memories.MemStore)} }},
	"aliasesPeek":          {"Peeker/ReturnsCopy", func() memories.Store { return &aliasesPeek{MemStore: new(memories.MemStore)} }},
	"appendIfIgnoresVersion": {"CondAppender/StaleConflict", func() memories.Store {
		return appendIfIgnoresVersion{new(memories.MemStore)}
	}},
}

// appendIfIgnoresVersion appends whatever the version.
type appendIfIgnoresVersion struct{ *memories.MemStore }

func (s appendIfIgnoresVersion) AppendIf(ctx context.Context, header, entry []byte, _ string) (int64, string, error) {
	return s.MemStore.Append(ctx, header, entry)
}

// partialStores implement only some optional interfaces, correctly; the
// suite must pass them and skip what they lack.
var partialStores = map[string]struct {
	skipped []string
	store   func() memories.Store
}{
	"storeOnly": {[]string{"Appender", "Sizer", "Peeker"},
		func() memories.Store { return storeOnly{new(memories.MemStore)} }},
	"noAppender": {[]string{"Appender", "Sizer/AfterAppend", "Peeker/AfterAppend"},
		func() memories.Store { return noAppender{new(memories.MemStore)} }},
}

// skipMessage is what the suite logs when skipping the subtest named
// skipped (a capability, or a capability's subtest that needs Appender).
func skipMessage(skipped string) string {
	switch skipped {
	case "Sizer", "Peeker":
		return "the store does not implement memories." + skipped
	}
	return "the store does not implement memories.Appender"
}

// runChild runs the suite on the named store in a child process and
// returns its output and error.
func runChild(t *testing.T, name string) (string, error) {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), os.Args[0])
	cmd.Env = append(os.Environ(), envStore+"="+name)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// TestSuiteCatchesBrokenStores runs the suite, in child processes, on stores
// that each break one rule, and checks that the suite fails in the subtest
// for that rule while the basics still pass.
func TestSuiteCatchesBrokenStores(t *testing.T) {
	if name := os.Getenv(envStore); name != "" {
		newStore := brokenStores[name].store
		if p, ok := partialStores[name]; ok {
			newStore = p.store
		}
		require.NotNil(t, newStore, "unknown store %q", name)
		storetest.TestStore(t, func(*testing.T) memories.Store { return newStore() })
		return
	}
	for name, b := range brokenStores {
		t.Run(name, func(t *testing.T) {
			out, err := runChild(t, name)
			require.Error(t, err, "the suite passed a store that breaks the contract:\n%s", out)
			assert.Contains(t, out, "--- FAIL: "+suiteTest+"/"+b.failing+" ", "the subtest for the broken rule must fail:\n%s", out)
			assert.Contains(t, out, "--- PASS: "+suiteTest+"/LoadMissing ", "the basics must still pass:\n%s", out)
		})
	}
}

// TestSuiteSkipsMissingCapabilities runs the suite, in child processes, on
// correct stores that lack optional interfaces: it must pass and say what
// it skipped and why.
func TestSuiteSkipsMissingCapabilities(t *testing.T) {
	for name, p := range partialStores {
		t.Run(name, func(t *testing.T) {
			out, err := runChild(t, name)
			require.NoError(t, err, "the suite failed a correct store:\n%s", out)
			for _, skipped := range p.skipped {
				assert.Contains(t, out, "--- SKIP: "+suiteTest+"/"+skipped+" ", out)
				assert.Contains(t, out, skipMessage(skipped), out)
			}
			assert.Contains(t, out, "--- PASS: "+suiteTest+"/ConcurrentSaveCAS ", out)
		})
	}
}

func TestSuitePassesMemStore(t *testing.T) {
	storetest.TestStore(t, func(*testing.T) memories.Store { return new(memories.MemStore) })
}

// storeOnly hides MemStore's optional interfaces.
type storeOnly struct{ memories.Store }

// noAppender has every optional interface but Appender.
type noAppender struct{ m *memories.MemStore }

func (s noAppender) Load(ctx context.Context) ([]byte, string, error) { return s.m.Load(ctx) }
func (s noAppender) Save(ctx context.Context, data []byte, ifVersion string) (string, error) {
	return s.m.Save(ctx, data, ifVersion)
}
func (s noAppender) Size(ctx context.Context) (int64, error)         { return s.m.Size(ctx) }
func (s noAppender) Peek(ctx context.Context, n int) ([]byte, error) { return s.m.Peek(ctx, n) }

// ignoresIfVersion overwrites whatever is stored.
type ignoresIfVersion struct{ *memories.MemStore }

func (s ignoresIfVersion) Save(ctx context.Context, data []byte, _ string) (string, error) {
	for {
		_, cur, err := s.MemStore.Load(ctx)
		if err != nil {
			return "", err
		}
		v, err := s.MemStore.Save(ctx, data, cur)
		if !errors.Is(err, memories.ErrConflict) {
			return v, err
		}
	}
}

// aliasesLoad hands every Load of one version the same cached buffer.
type aliasesLoad struct {
	*memories.MemStore
	mu      sync.Mutex
	version string
	data    []byte
}

func (s *aliasesLoad) Load(ctx context.Context) ([]byte, string, error) {
	data, v, err := s.MemStore.Load(ctx)
	if err != nil || v == "" {
		return data, v, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v != s.version {
		s.version, s.data = v, data
	}
	return s.data, v, nil
}

// retainsSave keeps the caller's slice from the last Save and serves
// Loads from it.
type retainsSave struct {
	*memories.MemStore
	mu      sync.Mutex
	version string
	data    []byte
}

func (s *retainsSave) Save(ctx context.Context, data []byte, ifVersion string) (string, error) {
	v, err := s.MemStore.Save(ctx, data, ifVersion)
	if err == nil {
		s.mu.Lock()
		s.version, s.data = v, data
		s.mu.Unlock()
	}
	return v, err
}

func (s *retainsSave) Load(ctx context.Context) ([]byte, string, error) {
	data, v, err := s.MemStore.Load(ctx)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err == nil && v != "" && v == s.version {
		return append([]byte{}, s.data...), v, nil
	}
	return data, v, err
}

// contentVersions uses a hash of the content as version, which does not
// change when identical bytes are written again.
type contentVersions struct{ *memories.MemStore }

func hash(b []byte) string { s := sha256.Sum256(b); return hex.EncodeToString(s[:8]) }

func (s contentVersions) Load(ctx context.Context) ([]byte, string, error) {
	data, v, err := s.MemStore.Load(ctx)
	if err != nil || v == "" {
		return data, v, err
	}
	return data, hash(data), nil
}

func (s contentVersions) Save(ctx context.Context, data []byte, ifVersion string) (string, error) {
	for {
		cur, v, err := s.MemStore.Load(ctx)
		if err != nil {
			return "", err
		}
		if ifVersion == "" {
			v = "" // the file must not exist: MemStore checks that
		} else if v == "" || hash(cur) != ifVersion {
			return "", memories.ErrConflict
		}
		_, err = s.MemStore.Save(ctx, data, v)
		if errors.Is(err, memories.ErrConflict) && ifVersion != "" {
			continue // written since cur was read: compare again
		}
		if err != nil {
			return "", err
		}
		return hash(data), nil
	}
}

func (s contentVersions) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	size, _, err := s.MemStore.Append(ctx, header, entry)
	if err != nil {
		return 0, "", err
	}
	_, v, err := s.Load(ctx)
	return size, v, err
}

// forgetsHeaderOnEmpty writes the header only when the file is missing,
// not when it exists but is empty.
type forgetsHeaderOnEmpty struct{ *memories.MemStore }

func (s forgetsHeaderOnEmpty) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	if data, v, err := s.MemStore.Load(ctx); err == nil && v != "" && len(data) == 0 {
		header = nil
	}
	return s.MemStore.Append(ctx, header, entry)
}

// skipsMissingNewline glues entry onto a last line without a newline.
type skipsMissingNewline struct{ *memories.MemStore }

func (s skipsMissingNewline) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	for {
		data, v, err := s.MemStore.Load(ctx)
		if err != nil {
			return 0, "", err
		}
		if len(data) == 0 || data[len(data)-1] == '\n' {
			return s.MemStore.Append(ctx, header, entry)
		}
		next := append(data, entry...)
		nv, err := s.MemStore.Save(ctx, next, v)
		if errors.Is(err, memories.ErrConflict) {
			continue
		}
		return int64(len(next)), nv, err
	}
}

// appended is data after an Append of header and entry under the
// Appender rules, computed by a scratch MemStore; exists says whether the
// file existed (data is nil either way when it is empty).
func appended(ctx context.Context, data []byte, exists bool, header, entry []byte) []byte {
	var scratch memories.MemStore
	if exists {
		_, _ = scratch.Save(ctx, data, "")
	}
	_, _, _ = scratch.Append(ctx, header, entry)
	next, _, _ := scratch.Load(ctx)
	return next
}

// retainsAppend keeps the caller's header and entry from the last Append
// and serves Loads of that version from them, as a store that writes
// lazily would.
type retainsAppend struct {
	*memories.MemStore
	mu            sync.Mutex
	version       string
	before        []byte
	existed       bool
	header, entry []byte
}

func (s *retainsAppend) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	s.mu.Lock() // serialises Appends, so before is what this Append appends to
	defer s.mu.Unlock()
	before, bv, err := s.MemStore.Load(ctx)
	if err != nil {
		return 0, "", err
	}
	size, v, err := s.MemStore.Append(ctx, header, entry)
	if err == nil {
		s.version, s.before, s.existed, s.header, s.entry = v, before, bv != "", header, entry
	}
	return size, v, err
}

func (s *retainsAppend) Load(ctx context.Context) ([]byte, string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	data, v, err := s.MemStore.Load(ctx)
	if err == nil && v != "" && v == s.version {
		data = appended(ctx, s.before, s.existed, s.header, s.entry)
	}
	return data, v, err
}

// nonAtomicAppend reads the file, yields, then writes back the file with
// the entry added, overwriting whatever was written in between.
type nonAtomicAppend struct{ *memories.MemStore }

func (s nonAtomicAppend) Append(ctx context.Context, header, entry []byte) (int64, string, error) {
	data, v, err := s.MemStore.Load(ctx)
	if err != nil {
		return 0, "", err
	}
	next := appended(ctx, data, v != "", header, entry)
	runtime.Gosched() // let other writers in, as a real read-then-write would
	for {
		_, cur, err := s.MemStore.Load(ctx)
		if err != nil {
			return 0, "", err
		}
		nv, err := s.MemStore.Save(ctx, next, cur)
		if !errors.Is(err, memories.ErrConflict) {
			return int64(len(next)), nv, err
		}
	}
}

// sizeInRunes counts characters instead of bytes.
type sizeInRunes struct{ *memories.MemStore }

func (s sizeInRunes) Size(ctx context.Context) (int64, error) {
	data, _, err := s.MemStore.Load(ctx)
	return int64(utf8.RuneCount(data)), err
}

// sizeIgnoresAppend caches the size of the last Save and does not update
// it on Append.
type sizeIgnoresAppend struct {
	*memories.MemStore
	mu   sync.Mutex
	size int64
}

func (s *sizeIgnoresAppend) Save(ctx context.Context, data []byte, ifVersion string) (string, error) {
	v, err := s.MemStore.Save(ctx, data, ifVersion)
	if err == nil {
		s.mu.Lock()
		s.size = int64(len(data))
		s.mu.Unlock()
	}
	return v, err
}

func (s *sizeIgnoresAppend) Size(context.Context) (int64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.size, nil
}

// peekIgnoresN returns the whole file.
type peekIgnoresN struct{ *memories.MemStore }

func (s peekIgnoresN) Peek(ctx context.Context, _ int) ([]byte, error) {
	return s.MemStore.Peek(ctx, math.MaxInt)
}

// peekMissingAsEmpty returns an empty slice, not nil, for a missing file.
type peekMissingAsEmpty struct{ *memories.MemStore }

func (s peekMissingAsEmpty) Peek(ctx context.Context, n int) ([]byte, error) {
	head, err := s.MemStore.Peek(ctx, n)
	if head == nil && err == nil {
		head = []byte{}
	}
	return head, err
}

// aliasesPeek hands out slices of one cached buffer per version.
type aliasesPeek struct {
	*memories.MemStore
	mu      sync.Mutex
	version string
	data    []byte
}

func (s *aliasesPeek) Peek(ctx context.Context, n int) ([]byte, error) {
	if n < 0 {
		return s.MemStore.Peek(ctx, n)
	}
	data, v, err := s.MemStore.Load(ctx)
	if err != nil || v == "" {
		return nil, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if v != s.version {
		s.version, s.data = v, data
	}
	return s.data[:min(n, len(s.data))], nil
}
