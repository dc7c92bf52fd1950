package storetest

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Concurrency of the compare-and-swap counter subtest: Goroutines goroutines
// each add Increments to one document. Small enough to finish in about a
// second under -race against a network database.
const (
	Goroutines = 8
	Increments = 25
)

// TestStore runs the conformance suite against the stores newStore returns.
// newStore is called once per subtest and must return an empty store; it may
// register cleanups with t.Cleanup.
func TestStore(t *testing.T, newStore func(t *testing.T) memorybank.Store) {
	t.Helper()
	subtests := []struct {
		name string
		run  func(t *testing.T, s memorybank.Store)
	}{
		{"CRUD", testCRUD},
		{"EmptyAndBinaryValues", testValues},
		{"VersionsChangeOnEveryWrite", testVersions},
		{"Conditions", testConditions},
		{"InvalidCondition", testInvalidCondition},
		{"List", testList},
		{"ListEarlyBreak", testListEarlyBreak},
		{"CopyNotAlias", testCopyNotAlias},
		{"InvalidKeys", testInvalidKeys},
		{"CancelledContext", testCancelledContext},
		{"ConcurrentCASCounter", testConcurrentCAS},
		{"ChangeCounter", testChangeCounter},
		{"ChangeNotifier", testChangeNotifier},
		{"KeyLocker", testKeyLocker},
		{"LazyWriter", testLazyWriter},
		{"OrderedWriter", testOrderedWriter},
		{"BatchPutter", testBatchPutter},
		{"PathConflict", testPathConflict},
	}
	for _, st := range subtests {
		t.Run(st.name, func(t *testing.T) {
			s := newStore(t)
			require.NotNil(t, s, "newStore returned nil")
			st.run(t, s)
		})
	}
}

var (
	none      = memorybank.Condition{}
	ifAbsent  = memorybank.Condition{IfAbsent: true}
	ifVersion = func(v string) memorybank.Condition { return memorybank.Condition{IfVersion: v} }
)

func put(t *testing.T, s memorybank.Store, key, data string) memorybank.Object {
	t.Helper()
	obj, err := s.Put(context.Background(), key, []byte(data), none)
	require.NoError(t, err, "Put(%q)", key)
	return obj
}

// requireContent checks that key holds data at version (version "" = any).
func requireContent(t *testing.T, s memorybank.Store, key, data, version string) memorybank.Object {
	t.Helper()
	obj, err := s.Get(context.Background(), key)
	require.NoError(t, err, "Get(%q)", key)
	assert.Equal(t, key, obj.Key, "Get(%q).Key", key)
	assert.Equal(t, data, string(obj.Data), "Get(%q).Data", key)
	if version != "" {
		assert.Equal(t, version, obj.Version, "Get(%q).Version", key)
	}
	return obj
}

func requireAbsent(t *testing.T, s memorybank.Store, key string) {
	t.Helper()
	_, err := s.Get(context.Background(), key)
	require.ErrorIs(t, err, memorybank.ErrNotFound, "Get(%q) of an absent key", key)
}

func listAll(t *testing.T, s memorybank.Store, prefix string) []memorybank.Object {
	t.Helper()
	var objs []memorybank.Object
	for obj, err := range s.List(context.Background(), prefix) {
		require.NoError(t, err, "List(%q)", prefix)
		objs = append(objs, obj)
	}
	return objs
}

func keysOf(objs []memorybank.Object) []string {
	keys := []string{}
	for _, o := range objs {
		keys = append(keys, o.Key)
	}
	return keys
}

func testCRUD(t *testing.T, s memorybank.Store) {
	ctx := context.Background()
	const key = "global-memory-bank/projectbrief.md"

	_, err := s.Get(ctx, key)
	require.ErrorIs(t, err, memorybank.ErrNotFound, "Get before any Put")
	assert.False(t, errors.Is(err, memorybank.ErrConflict))

	obj, err := s.Put(ctx, key, []byte("# Brief\n"), none)
	require.NoError(t, err)
	assert.Equal(t, key, obj.Key, "Put returns the key")
	assert.NotEmpty(t, obj.Version, "Put returns a version")
	assert.False(t, obj.ModTime.IsZero(), "Put returns a ModTime")

	got := requireContent(t, s, key, "# Brief\n", obj.Version)
	assert.False(t, got.ModTime.IsZero(), "Get returns a ModTime")

	obj2, err := s.Put(ctx, key, []byte("# Brief v2\n"), none)
	require.NoError(t, err)
	assert.NotEqual(t, obj.Version, obj2.Version, "an overwrite changes the version")
	requireContent(t, s, key, "# Brief v2\n", obj2.Version)

	// Another key is independent.
	other := put(t, s, "branch-memory-bank/main/activeContext.md", "ctx")
	requireContent(t, s, key, "# Brief v2\n", obj2.Version)
	requireContent(t, s, other.Key, "ctx", other.Version)

	require.NoError(t, s.Delete(ctx, key, none))
	requireAbsent(t, s, key)
	requireContent(t, s, other.Key, "ctx", other.Version)

	err = s.Delete(ctx, key, none)
	require.ErrorIs(t, err, memorybank.ErrNotFound, "Delete of a deleted key")

	// A deleted key can be written again, and gets a version it never had.
	obj3 := put(t, s, key, "# Brief\n")
	assert.NotEqual(t, obj.Version, obj3.Version)
	assert.NotEqual(t, obj2.Version, obj3.Version)
	requireContent(t, s, key, "# Brief\n", obj3.Version)
}

func testValues(t *testing.T, s memorybank.Store) {
	ctx := context.Background()
	obj, err := s.Put(ctx, "empty", nil, none)
	require.NoError(t, err, "Put of nil data stores an empty value")
	got := requireContent(t, s, "empty", "", obj.Version)
	assert.Empty(t, got.Data)

	binary := make([]byte, 0, 3*256)
	for range 3 {
		for b := range 256 {
			binary = append(binary, byte(b))
		}
	}
	_, err = s.Put(ctx, "bin/all-bytes", binary, none)
	require.NoError(t, err)
	requireContent(t, s, "bin/all-bytes", string(binary), "")

	big := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	_, err = s.Put(ctx, "big.txt", big, none)
	require.NoError(t, err)
	requireContent(t, s, "big.txt", string(big), "")

	unicode := "notes/日本語/メモ 1.md"
	put(t, s, unicode, "こんにちは")
	requireContent(t, s, unicode, "こんにちは", "")
}

func testVersions(t *testing.T, s memorybank.Store) {
	seen := map[string]int{}
	for i := range 5 {
		obj := put(t, s, "same.txt", "identical bytes")
		if prev, ok := seen[obj.Version]; ok {
			t.Fatalf("write %d of identical bytes returned version %q, already returned by write %d", i, obj.Version, prev)
		}
		seen[obj.Version] = i
		requireContent(t, s, "same.txt", "identical bytes", obj.Version)
	}
}

func testConditions(t *testing.T, s memorybank.Store) {
	ctx := context.Background()

	t.Run("PutIfAbsentOnAbsent", func(t *testing.T) {
		obj, err := s.Put(ctx, "c/new", []byte("1"), ifAbsent)
		require.NoError(t, err)
		requireContent(t, s, "c/new", "1", obj.Version)
	})
	t.Run("PutIfAbsentOnPresent", func(t *testing.T) {
		old := put(t, s, "c/present", "old")
		_, err := s.Put(ctx, "c/present", []byte("new"), ifAbsent)
		require.ErrorIs(t, err, memorybank.ErrConflict)
		assert.False(t, errors.Is(err, memorybank.ErrNotFound))
		requireContent(t, s, "c/present", "old", old.Version)
	})
	t.Run("PutIfVersionCurrent", func(t *testing.T) {
		old := put(t, s, "c/cur", "old")
		obj, err := s.Put(ctx, "c/cur", []byte("new"), ifVersion(old.Version))
		require.NoError(t, err)
		assert.NotEqual(t, old.Version, obj.Version)
		requireContent(t, s, "c/cur", "new", obj.Version)
	})
	t.Run("PutIfVersionStale", func(t *testing.T) {
		v1 := put(t, s, "c/stale", "v1")
		v2 := put(t, s, "c/stale", "v2")
		_, err := s.Put(ctx, "c/stale", []byte("v3"), ifVersion(v1.Version))
		require.ErrorIs(t, err, memorybank.ErrConflict)
		requireContent(t, s, "c/stale", "v2", v2.Version)
	})
	t.Run("PutIfVersionMadeUp", func(t *testing.T) {
		v1 := put(t, s, "c/madeup", "v1")
		_, err := s.Put(ctx, "c/madeup", []byte("v2"), ifVersion("no-such-version-"+v1.Version))
		require.ErrorIs(t, err, memorybank.ErrConflict)
		requireContent(t, s, "c/madeup", "v1", v1.Version)
	})
	t.Run("PutIfVersionOnAbsent", func(t *testing.T) {
		_, err := s.Put(ctx, "c/absent", []byte("x"), ifVersion("1"))
		require.ErrorIs(t, err, memorybank.ErrConflict)
		requireAbsent(t, s, "c/absent")
	})
	t.Run("PutIfVersionOfDeleted", func(t *testing.T) {
		old := put(t, s, "c/deleted", "x")
		require.NoError(t, s.Delete(ctx, "c/deleted", none))
		_, err := s.Put(ctx, "c/deleted", []byte("y"), ifVersion(old.Version))
		require.ErrorIs(t, err, memorybank.ErrConflict)
		requireAbsent(t, s, "c/deleted")
	})
	t.Run("DeleteIfVersionCurrent", func(t *testing.T) {
		old := put(t, s, "c/del-cur", "x")
		require.NoError(t, s.Delete(ctx, "c/del-cur", ifVersion(old.Version)))
		requireAbsent(t, s, "c/del-cur")
	})
	t.Run("DeleteIfVersionStale", func(t *testing.T) {
		v1 := put(t, s, "c/del-stale", "v1")
		v2 := put(t, s, "c/del-stale", "v2")
		err := s.Delete(ctx, "c/del-stale", ifVersion(v1.Version))
		require.ErrorIs(t, err, memorybank.ErrConflict)
		requireContent(t, s, "c/del-stale", "v2", v2.Version)
	})
	t.Run("DeleteIfAbsentOnPresent", func(t *testing.T) {
		old := put(t, s, "c/del-ifabsent", "x")
		err := s.Delete(ctx, "c/del-ifabsent", ifAbsent)
		require.ErrorIs(t, err, memorybank.ErrConflict)
		requireContent(t, s, "c/del-ifabsent", "x", old.Version)
	})
	t.Run("DeleteAbsentIsNotFoundBeforeCondition", func(t *testing.T) {
		for _, cond := range []memorybank.Condition{none, ifAbsent, ifVersion("1")} {
			err := s.Delete(ctx, "c/never", cond)
			require.ErrorIs(t, err, memorybank.ErrNotFound, "Delete(absent, %+v)", cond)
			assert.False(t, errors.Is(err, memorybank.ErrConflict), "Delete(absent, %+v)", cond)
		}
	})
}

func testInvalidCondition(t *testing.T, s memorybank.Store) {
	ctx := context.Background()
	both := memorybank.Condition{IfAbsent: true, IfVersion: "1"}

	_, err := s.Put(ctx, "absent", []byte("x"), both)
	require.ErrorIs(t, err, memorybank.ErrInvalidCondition)
	requireAbsent(t, s, "absent")

	old := put(t, s, "present", "x")
	both.IfVersion = old.Version
	_, err = s.Put(ctx, "present", []byte("y"), both)
	require.ErrorIs(t, err, memorybank.ErrInvalidCondition)
	err = s.Delete(ctx, "present", both)
	require.ErrorIs(t, err, memorybank.ErrInvalidCondition)
	requireContent(t, s, "present", "x", old.Version)
}

func testList(t *testing.T, s memorybank.Store) {
	// Inserted out of order. No key is also a "directory" of another, so
	// file-system stores can hold them all. '-' < '.' < '/' in byte order,
	// which a naive directory walk gets wrong.
	keys := []string{"b", "a/c/d", "ab", "a.json", "z/y", "a/b", "a-b", "a/c/e", "A"}
	versions := map[string]string{}
	for _, k := range keys {
		versions[k] = put(t, s, k, "data of "+k).Version
	}
	tests := []struct {
		prefix string
		want   []string
	}{
		{"", []string{"A", "a-b", "a.json", "a/b", "a/c/d", "a/c/e", "ab", "b", "z/y"}},
		{"a", []string{"a-b", "a.json", "a/b", "a/c/d", "a/c/e", "ab"}},
		{"a/", []string{"a/b", "a/c/d", "a/c/e"}},
		{"a/c", []string{"a/c/d", "a/c/e"}},
		{"a/c/", []string{"a/c/d", "a/c/e"}},
		{"a/c/d", []string{"a/c/d"}},
		{"a.", []string{"a.json"}},
		{"z/", []string{"z/y"}},
		{"b", []string{"b"}},
		{"b/", []string{}},
		{"nothing/", []string{}},
		{"nothing", []string{}},
		{"../", []string{}},
		{"/", []string{}},
	}
	for _, tt := range tests {
		objs := listAll(t, s, tt.prefix)
		assert.Equal(t, tt.want, keysOf(objs), "List(%q)", tt.prefix)
		for _, o := range objs {
			assert.Nil(t, o.Data, "List(%q) returned Data for %q", tt.prefix, o.Key)
			assert.Equal(t, versions[o.Key], o.Version, "List(%q): version of %q", tt.prefix, o.Key)
			assert.False(t, o.ModTime.IsZero(), "List(%q): ModTime of %q", tt.prefix, o.Key)
		}
	}

	// Deleted keys disappear from the listing; versions follow writes.
	require.NoError(t, s.Delete(context.Background(), "a/b", none))
	v := put(t, s, "b", "new").Version
	objs := listAll(t, s, "")
	assert.Equal(t, []string{"A", "a-b", "a.json", "a/c/d", "a/c/e", "ab", "b", "z/y"}, keysOf(objs))
	for _, o := range objs {
		if o.Key == "b" {
			assert.Equal(t, v, o.Version, "List shows the version of the latest write")
		}
	}
}

func testListEarlyBreak(t *testing.T, s memorybank.Store) {
	for i := range 20 {
		put(t, s, fmt.Sprintf("many/%02d", i), "x")
	}
	var got []string
	for obj, err := range s.List(context.Background(), "many/") {
		require.NoError(t, err)
		got = append(got, obj.Key)
		if len(got) == 3 {
			break
		}
	}
	assert.Equal(t, []string{"many/00", "many/01", "many/02"}, got)
}

func testCopyNotAlias(t *testing.T, s memorybank.Store) {
	ctx := context.Background()
	in := []byte("original")
	_, err := s.Put(ctx, "alias", in, none)
	require.NoError(t, err)
	copy(in, "MUTATED!")
	requireContent(t, s, "alias", "original", "")

	got, err := s.Get(ctx, "alias")
	require.NoError(t, err)
	copy(got.Data, "CHANGED!")
	got.Data = append(got.Data, " and grown"...)
	requireContent(t, s, "alias", "original", "")

	// Two Gets do not share a buffer either.
	a, err := s.Get(ctx, "alias")
	require.NoError(t, err)
	b, err := s.Get(ctx, "alias")
	require.NoError(t, err)
	a.Data[0] = 'X'
	assert.Equal(t, "original", string(b.Data))
}

// InvalidKeys returns a sample of keys every Store must reject with
// ErrInvalidKey, a new slice on every call.
func InvalidKeys() []string {
	return []string{
		"", "/abs", "trailing/", "a//b", ".", "..", "../escape", "a/../../b", "a/./b",
		`back\slash`, "nul\x00byte", "new\nline", "colon:x", "star*", "q?", "pipe|x",
		"CON", "dir/nul.txt", "com1", "dot.", "bad\xffutf8",
		string(make([]byte, memorybank.MaxKeyLen+1)),
	}
}

func testInvalidKeys(t *testing.T, s memorybank.Store) {
	ctx := context.Background()
	for _, key := range InvalidKeys() {
		_, err := s.Get(ctx, key)
		assert.ErrorIs(t, err, memorybank.ErrInvalidKey, "Get(%q)", key)
		_, err = s.Put(ctx, key, []byte("x"), none)
		assert.ErrorIs(t, err, memorybank.ErrInvalidKey, "Put(%q)", key)
		_, err = s.Put(ctx, key, []byte("x"), ifAbsent)
		assert.ErrorIs(t, err, memorybank.ErrInvalidKey, "Put(%q, IfAbsent)", key)
		err = s.Delete(ctx, key, none)
		assert.ErrorIs(t, err, memorybank.ErrInvalidKey, "Delete(%q)", key)
	}
	assert.Empty(t, listAll(t, s, ""), "rejected Puts stored something")
}

func testCancelledContext(t *testing.T, s memorybank.Store) {
	old := put(t, s, "ctx/doc", "before")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()

	_, err := s.Get(ctx, "ctx/doc")
	assert.ErrorIs(t, err, context.Canceled, "Get")
	_, err = s.Put(ctx, "ctx/doc", []byte("after"), none)
	assert.ErrorIs(t, err, context.Canceled, "Put over an existing key")
	_, err = s.Put(ctx, "ctx/new", []byte("after"), none)
	assert.ErrorIs(t, err, context.Canceled, "Put of a new key")
	err = s.Delete(ctx, "ctx/doc", none)
	assert.ErrorIs(t, err, context.Canceled, "Delete")

	n := 0
	for _, err := range s.List(ctx, "") {
		n++
		assert.ErrorIs(t, err, context.Canceled, "List")
	}
	assert.Equal(t, 1, n, "List with a cancelled context yields exactly one pair, the error")

	// Nothing changed.
	requireContent(t, s, "ctx/doc", "before", old.Version)
	requireAbsent(t, s, "ctx/new")
}

func testConcurrentCAS(t *testing.T, s memorybank.Store) {
	ctx := context.Background()
	const key = "counter.txt"
	put(t, s, key, "0")

	var wg sync.WaitGroup
	errs := make(chan error, Goroutines)
	for range Goroutines {
		wg.Go(func() {
			if err := Increment(ctx, s, key, Increments); err != nil {
				errs <- err
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
	requireContent(t, s, key, strconv.Itoa(Goroutines*Increments), "")
}

// Increment adds n to the decimal counter stored at key, one
// compare-and-swap at a time, retrying each on ErrConflict. Hosts use it to
// test that compare-and-swap holds across their own processes or machines.
func Increment(ctx context.Context, s memorybank.Store, key string, n int) error {
	for range n {
		for {
			obj, err := s.Get(ctx, key)
			if err != nil {
				return err
			}
			v, err := strconv.Atoi(string(obj.Data))
			if err != nil {
				return fmt.Errorf("counter %q holds %q, not a number: %w", key, obj.Data, err)
			}
			_, err = s.Put(ctx, key, []byte(strconv.Itoa(v+1)), ifVersion(obj.Version))
			if err == nil {
				break
			}
			if !errors.Is(err, memorybank.ErrConflict) {
				return err
			}
		}
	}
	return nil
}

// testChangeCounter checks the optional ChangeCounter: every successful Put
// and Delete adds exactly one, refused calls add nothing, the epoch stays,
// and concurrent writers are all counted.
func testChangeCounter(t *testing.T, s memorybank.Store) {
	ctx := context.Background()
	cc, ok := s.(memorybank.ChangeCounter)
	if !ok {
		t.Skip("the store does not implement memorybank.ChangeCounter (optional)")
	}
	count := func() memorybank.ChangeCount {
		t.Helper()
		c, err := cc.Changes(ctx)
		require.NoError(t, err)
		return c
	}
	put(t, s, "count/seed", "x") // the counter may be created by the first write
	c0 := count()
	a := put(t, s, "count/a", "1")
	put(t, s, "count/a", "2")
	require.NoError(t, s.Delete(ctx, "count/seed", none))
	c1 := count()
	assert.Equal(t, c0.Epoch, c1.Epoch, "the epoch stays")
	assert.Equal(t, c0.N+3, c1.N, "two Puts and a Delete add three")

	_, err := s.Put(ctx, "count/a", []byte("3"), ifVersion(a.Version))
	require.ErrorIs(t, err, memorybank.ErrConflict)
	_, err = s.Put(ctx, "count/a", []byte("3"), ifAbsent)
	require.ErrorIs(t, err, memorybank.ErrConflict)
	require.ErrorIs(t, s.Delete(ctx, "count/missing", none), memorybank.ErrNotFound)
	_, err = s.Put(ctx, "../escape", []byte("x"), none)
	require.ErrorIs(t, err, memorybank.ErrInvalidKey)
	assert.Equal(t, c1, count(), "refused calls add nothing")

	const writers, each = 4, 5
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				_, err := s.Put(ctx, fmt.Sprintf("count/w%d-%d", w, i), []byte("x"), none)
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	assert.Equal(t, c1.N+writers*each, count().N, "concurrent writes are all counted")

	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = cc.Changes(cancelled)
	assert.ErrorIs(t, err, context.Canceled)
}

// testPathConflict: a store may refuse a key that is a folder of another
// ("a" beside "a/b", or "a/b" beside "a"); when it does, the error wraps
// memorybank.ErrPathConflict (so callers can tell the user to choose another
// path), is neither ErrConflict nor ErrNotFound, and changes nothing.
func testPathConflict(t *testing.T, s memorybank.Store) {
	ctx := context.Background()
	put(t, s, "p/a/b", "deep")
	put(t, s, "q/a", "flat")
	for _, key := range []string{"p/a", "q/a/b"} {
		_, err := s.Put(ctx, key, []byte("x"), none)
		if err == nil {
			continue // this store holds both
		}
		assert.ErrorIs(t, err, memorybank.ErrPathConflict, "Put(%q) beside another key", key)
		assert.False(t, errors.Is(err, memorybank.ErrConflict) || errors.Is(err, memorybank.ErrNotFound), "Put(%q): %v", key, err)
	}
	requireContent(t, s, "p/a/b", "deep", "")
	requireContent(t, s, "q/a", "flat", "")
}
