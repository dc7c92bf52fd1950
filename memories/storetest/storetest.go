// Package storetest is a conformance suite for memories.Store
// implementations, in the spirit of testing/fstest.TestFS.
//
// A store package runs it from its own tests:
//
//	func TestConformance(t *testing.T) {
//		storetest.TestStore(t, func(t *testing.T) memories.Store { return newEmptyStore(t) })
//	}
//
// newStore must return a fresh, empty store (no file) each time it is called.
//
// The subtests, and when they run:
//
//   - LoadMissing, SaveCreate, SaveCreateEmpty, SaveCreateConflict,
//     SaveMissingWithVersion, SaveReplace, SaveSameBytesChangesVersion,
//     SaveStaleConflict, LoadReturnsCopy, SaveDoesNotRetain and
//     ConcurrentSaveCAS check memories.Store and always run.
//   - Appender/… (MissingWritesHeader, EmptyWritesHeader,
//     HeaderWithoutNewline, MissingWithoutHeader, NoHeaderWhenNotEmpty,
//     AddsMissingNewline, ChangesVersion, DoesNotRetain, Concurrent,
//     ConcurrentWithSave) run when the store implements memories.Appender.
//   - Sizer/… (Missing, AfterSave, AfterAppend) run when it implements
//     memories.Sizer.
//   - Peeker/… (NegativeN, Missing, Prefix, EmptyFile, AfterReplace, ReturnsCopy,
//     AfterAppend) run when it implements memories.Peeker.
//   - Versioner/… (Missing, AfterSave, AfterAppend) run when it implements
//     memories.Versioner.
//   - CondAppender/… (Missing, StaleConflict, Current) run when it
//     implements memories.CondAppender.
//
// A capability the store lacks is skipped as a whole, logging "the store
// does not implement memories.<Interface>"; Sizer/AfterAppend and
// Peeker/AfterAppend are skipped with the Appender message when the store
// has the capability but not memories.Appender (so is Versioner/AfterAppend).
package storetest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// Concurrency used by the concurrent subtests: workers × opsPerWorker writes.
const (
	workers      = 8
	opsPerWorker = 25
)

// TestStore checks the memories.Store contract, and those of
// memories.Appender, memories.Sizer, memories.Peeker and memories.Versioner
// when implemented,
// against stores made by newStore.
func TestStore(t *testing.T, newStore func(t *testing.T) memories.Store) {
	t.Helper()
	ctx := context.Background()

	t.Run("LoadMissing", func(t *testing.T) {
		data, version, err := newStore(t).Load(ctx)
		require.NoError(t, err)
		assert.Nil(t, data, "a missing file loads as nil data")
		assert.Equal(t, "", version, "a missing file has version \"\"")
	})

	t.Run("SaveCreate", func(t *testing.T) {
		s := newStore(t)
		v, err := s.Save(ctx, []byte("# Memories\n"), "")
		require.NoError(t, err)
		assert.NotEmpty(t, v, "a stored file must have a non-empty version")
		data, lv, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "# Memories\n", string(data))
		assert.Equal(t, v, lv, "Load must return the version Save returned")
	})

	t.Run("SaveCreateEmpty", func(t *testing.T) {
		s := newStore(t)
		v, err := s.Save(ctx, nil, "")
		require.NoError(t, err)
		assert.NotEmpty(t, v, "an existing empty file still has a version")
		data, lv, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Empty(t, data)
		assert.Equal(t, v, lv)
		_, err = s.Save(ctx, []byte("x"), "")
		assert.ErrorIs(t, err, memories.ErrConflict, "an empty file exists, so ifVersion \"\" must conflict")
	})

	t.Run("SaveCreateConflict", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Save(ctx, []byte("first"), "")
		require.NoError(t, err)
		_, err = s.Save(ctx, []byte("second"), "")
		assert.ErrorIs(t, err, memories.ErrConflict)
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "first", string(data), "a conflicting Save must change nothing")
	})

	t.Run("SaveMissingWithVersion", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Save(ctx, []byte("x"), "some-version")
		assert.ErrorIs(t, err, memories.ErrConflict, "a missing file has no version to match")
		data, v, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Nil(t, data)
		assert.Equal(t, "", v)
	})

	t.Run("SaveReplace", func(t *testing.T) {
		s := newStore(t)
		v1, err := s.Save(ctx, []byte("one"), "")
		require.NoError(t, err)
		v2, err := s.Save(ctx, []byte("two"), v1)
		require.NoError(t, err)
		assert.NotEqual(t, v1, v2, "different contents must have different versions")
		data, lv, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "two", string(data))
		assert.Equal(t, v2, lv)
		// Shorter contents must not leave a tail of the old ones.
		v3, err := s.Save(ctx, []byte("3"), v2)
		require.NoError(t, err)
		data, lv, err = s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "3", string(data))
		assert.Equal(t, v3, lv)
	})

	t.Run("SaveSameBytesChangesVersion", func(t *testing.T) {
		s := newStore(t)
		v1, err := s.Save(ctx, []byte("same\n"), "")
		require.NoError(t, err)
		v2, err := s.Save(ctx, []byte("same\n"), v1)
		require.NoError(t, err)
		assert.NotEqual(t, v1, v2, "the version changes on every successful write, also of identical bytes")
		_, err = s.Save(ctx, []byte("lost\n"), v1)
		assert.ErrorIs(t, err, memories.ErrConflict, "a Save based on the version before a rewrite must conflict")
		data, lv, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "same\n", string(data))
		assert.Equal(t, v2, lv)
	})

	t.Run("SaveStaleConflict", func(t *testing.T) {
		s := newStore(t)
		v1, err := s.Save(ctx, []byte("one"), "")
		require.NoError(t, err)
		_, err = s.Save(ctx, []byte("two"), v1)
		require.NoError(t, err)
		_, err = s.Save(ctx, []byte("three"), v1)
		assert.ErrorIs(t, err, memories.ErrConflict)
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "two", string(data), "a conflicting Save must change nothing")
	})

	t.Run("LoadReturnsCopy", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Save(ctx, []byte("abc"), "")
		require.NoError(t, err)
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		data[0] = 'X'
		again, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "abc", string(again), "changing a loaded slice must not change the store")
	})

	t.Run("SaveDoesNotRetain", func(t *testing.T) {
		s := newStore(t)
		in := []byte("abc")
		_, err := s.Save(ctx, in, "")
		require.NoError(t, err)
		in[0] = 'X'
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "abc", string(data), "changing the saved slice afterwards must not change the store")
	})

	t.Run("ConcurrentSaveCAS", func(t *testing.T) {
		s := newStore(t)
		runWorkers(t, func(w, i int) error {
			return casAppendLine(ctx, s, fmt.Sprintf("save-%d-%d", w, i))
		})
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assertEachLineOnce(t, string(data), "save-")
	})

	t.Run("Appender", func(t *testing.T) {
		if _, ok := newStore(t).(memories.Appender); !ok {
			t.Skip("the store does not implement memories.Appender")
		}
		testAppender(t, newStore)
	})

	t.Run("Sizer", func(t *testing.T) {
		if _, ok := newStore(t).(memories.Sizer); !ok {
			t.Skip("the store does not implement memories.Sizer")
		}
		testSizer(t, newStore)
	})

	t.Run("Peeker", func(t *testing.T) {
		if _, ok := newStore(t).(memories.Peeker); !ok {
			t.Skip("the store does not implement memories.Peeker")
		}
		testPeeker(t, newStore)
	})
	t.Run("Versioner", func(t *testing.T) {
		if _, ok := newStore(t).(memories.Versioner); !ok {
			t.Skip("the store does not implement memories.Versioner")
		}
		testVersioner(t, newStore)
	})
	t.Run("CondAppender", func(t *testing.T) {
		if _, ok := newStore(t).(memories.CondAppender); !ok {
			t.Skip("the store does not implement memories.CondAppender")
		}
		testCondAppender(t, newStore)
	})
}

// testCondAppender checks the memories.CondAppender contract; newStore's
// stores implement it.
func testCondAppender(t *testing.T, newStore func(t *testing.T) memories.Store) {
	ctx := context.Background()
	header := []byte("# Memories\n\n")
	t.Run("Missing", func(t *testing.T) {
		s := newStore(t)
		size, v, err := s.(memories.CondAppender).AppendIf(ctx, header, []byte("## one\n"), "")
		require.NoError(t, err, "AppendIf on a missing file with version \"\" must append")
		data, lv, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "# Memories\n\n## one\n", string(data))
		assert.Equal(t, int64(len(data)), size, "AppendIf must return the new size")
		assert.Equal(t, lv, v, "AppendIf must return the version Load reports")
	})
	t.Run("StaleConflict", func(t *testing.T) {
		s := newStore(t)
		v1, err := s.Save(ctx, []byte("# Memories\n\n## one\n"), "")
		require.NoError(t, err)
		v2, err := s.Save(ctx, []byte("# Memories\n\n## two\n"), v1)
		require.NoError(t, err)
		for _, stale := range []string{v1, ""} {
			_, _, err = s.(memories.CondAppender).AppendIf(ctx, header, []byte("## three\n"), stale)
			require.ErrorIs(t, err, memories.ErrConflict, "AppendIf with a stale version %q must fail with ErrConflict", stale)
		}
		data, v, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "# Memories\n\n## two\n", string(data), "a refused AppendIf must write nothing")
		assert.Equal(t, v2, v, "a refused AppendIf must not change the version")
	})
	t.Run("Current", func(t *testing.T) {
		s := newStore(t)
		v1, err := s.Save(ctx, []byte("# Memories\n\n## one"), "")
		require.NoError(t, err)
		size, v, err := s.(memories.CondAppender).AppendIf(ctx, header, []byte("## two\n"), v1)
		require.NoError(t, err)
		data, lv, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "# Memories\n\n## one\n## two\n", string(data), "AppendIf follows Append's rules")
		assert.Equal(t, int64(len(data)), size)
		assert.Equal(t, lv, v)
		assert.NotEqual(t, v1, v, "AppendIf must change the version")
	})
}

// testAppender checks the memories.Appender contract; newStore's stores
// implement it.
func testAppender(t *testing.T, newStore func(t *testing.T) memories.Store) {
	ctx := context.Background()
	appender := func(t *testing.T) (memories.Store, memories.Appender) {
		s := newStore(t)
		return s, s.(memories.Appender)
	}

	t.Run("MissingWritesHeader", func(t *testing.T) {
		s, a := appender(t)
		size, v, err := a.Append(ctx, []byte("# Memories\n\n"), []byte("## one\n"))
		require.NoError(t, err)
		data, lv, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "# Memories\n\n## one\n", string(data))
		assert.Equal(t, int64(len(data)), size, "Append must return the new size")
		assert.Equal(t, lv, v, "Append must return the version Load then sees")
		assert.NotEmpty(t, v)
	})

	t.Run("EmptyWritesHeader", func(t *testing.T) {
		s, a := appender(t)
		_, err := s.Save(ctx, []byte{}, "")
		require.NoError(t, err)
		size, v, err := a.Append(ctx, []byte("H\n"), []byte("e\n"))
		require.NoError(t, err)
		data, lv, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "H\ne\n", string(data))
		assert.Equal(t, int64(len(data)), size, "Append must return the new size")
		assert.Equal(t, lv, v, "Append must return the version Load then sees")
	})

	t.Run("HeaderWithoutNewline", func(t *testing.T) {
		s, a := appender(t)
		size, _, err := a.Append(ctx, []byte("H"), []byte("e\n"))
		require.NoError(t, err)
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "H\ne\n", string(data), "a header without a trailing newline gets one before the entry")
		assert.Equal(t, int64(len(data)), size)
	})

	t.Run("MissingWithoutHeader", func(t *testing.T) {
		s, a := appender(t)
		_, v, err := a.Append(ctx, nil, []byte("e\n"))
		require.NoError(t, err)
		data, lv, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "e\n", string(data), "no header, no newline before the entry")
		assert.NotEmpty(t, lv, "Append creates the file")
		assert.Equal(t, lv, v)
	})

	t.Run("NoHeaderWhenNotEmpty", func(t *testing.T) {
		s, a := appender(t)
		_, err := s.Save(ctx, []byte("existing\n"), "")
		require.NoError(t, err)
		size, _, err := a.Append(ctx, []byte("HEADER\n"), []byte("e\n"))
		require.NoError(t, err)
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "existing\ne\n", string(data))
		assert.Equal(t, int64(len("existing\ne\n")), size)
	})

	t.Run("AddsMissingNewline", func(t *testing.T) {
		s, a := appender(t)
		_, err := s.Save(ctx, []byte("no newline"), "")
		require.NoError(t, err)
		size, _, err := a.Append(ctx, []byte("HEADER\n"), []byte("e\n"))
		require.NoError(t, err)
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "no newline\ne\n", string(data))
		assert.Equal(t, int64(len(data)), size)
	})

	t.Run("ChangesVersion", func(t *testing.T) {
		s, a := appender(t)
		v1, err := s.Save(ctx, []byte("x\n"), "")
		require.NoError(t, err)
		_, v2, err := a.Append(ctx, nil, []byte("y\n"))
		require.NoError(t, err)
		assert.NotEqual(t, v1, v2)
		_, err = s.Save(ctx, []byte("lost"), v1)
		assert.ErrorIs(t, err, memories.ErrConflict, "a Save based on the version before an Append must conflict")
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "x\ny\n", string(data))
	})

	t.Run("DoesNotRetain", func(t *testing.T) {
		s, a := appender(t)
		header, entry := []byte("H\n"), []byte("e\n")
		_, _, err := a.Append(ctx, header, entry)
		require.NoError(t, err)
		header[0], entry[0] = 'X', 'X'
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "H\ne\n", string(data), "changing header or entry afterwards must not change the store")
	})

	t.Run("Concurrent", func(t *testing.T) {
		s, a := appender(t)
		runWorkers(t, func(w, i int) error {
			_, _, err := a.Append(ctx, []byte("# H\n"), fmt.Appendf(nil, "app-%d-%d\n", w, i))
			return err
		})
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(string(data), "# H\n"), "header written exactly once, first")
		assert.Equal(t, 1, strings.Count(string(data), "# H\n"), "header written exactly once")
		assertEachLineOnce(t, string(data), "app-")
	})

	t.Run("ConcurrentWithSave", func(t *testing.T) {
		s, a := appender(t)
		runWorkers(t, func(w, i int) error {
			if w%2 == 0 {
				_, _, err := a.Append(ctx, nil, fmt.Appendf(nil, "mix-%d-%d\n", w, i))
				return err
			}
			return casAppendLine(ctx, s, fmt.Sprintf("mix-%d-%d", w, i))
		})
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assertEachLineOnce(t, string(data), "mix-")
	})
}

// testSizer checks the memories.Sizer contract; newStore's stores
// implement it.
func testVersioner(t *testing.T, newStore func(t *testing.T) memories.Store) {
	ctx := context.Background()
	// assertVersion checks that Version is the version Load returns: a
	// Manager skips reading a file whose Version it has indexed.
	assertVersion := func(t *testing.T, s memories.Store, want, msg string) {
		t.Helper()
		_, loaded, err := s.Load(ctx)
		require.NoError(t, err)
		v, err := s.(memories.Versioner).Version(ctx)
		require.NoError(t, err)
		assert.Equal(t, loaded, v, "%s: Version must be the version Load returns", msg)
		assert.Equal(t, want, v, "%s: Version must be the version the write returned", msg)
	}

	t.Run("Missing", func(t *testing.T) {
		assertVersion(t, newStore(t), "", "a missing file")
	})

	t.Run("AfterSave", func(t *testing.T) {
		s := newStore(t)
		v, err := s.Save(ctx, []byte("# Memories\n"), "")
		require.NoError(t, err)
		assertVersion(t, s, v, "after creating the file")
		v2, err := s.Save(ctx, []byte("# Memories\n"), v)
		require.NoError(t, err)
		assertVersion(t, s, v2, "after saving the same bytes")
		_, err = s.Save(ctx, []byte("conflicting"), v)
		require.ErrorIs(t, err, memories.ErrConflict)
		assertVersion(t, s, v2, "after a conflicting Save")
	})

	t.Run("AfterAppend", func(t *testing.T) {
		s := newStore(t)
		a, ok := s.(memories.Appender)
		if !ok {
			t.Skip("the store does not implement memories.Appender")
		}
		_, v, err := a.Append(ctx, []byte("# H\n"), []byte("- one\n"))
		require.NoError(t, err)
		assertVersion(t, s, v, "after an Append to a missing file")
		_, v, err = a.Append(ctx, []byte("# H\n"), []byte("- two\n"))
		require.NoError(t, err)
		assertVersion(t, s, v, "after an Append")
	})
}

func testSizer(t *testing.T, newStore func(t *testing.T) memories.Store) {
	ctx := context.Background()
	// assertSize checks that Size is the length of what Load returns.
	assertSize := func(t *testing.T, s memories.Store, msg string) {
		t.Helper()
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		size, err := s.(memories.Sizer).Size(ctx)
		require.NoError(t, err)
		assert.Equal(t, int64(len(data)), size, "%s: Size must be the length in bytes of Load's data", msg)
	}

	t.Run("Missing", func(t *testing.T) {
		size, err := newStore(t).(memories.Sizer).Size(ctx)
		require.NoError(t, err)
		assert.Zero(t, size, "a missing file has size 0")
	})

	t.Run("AfterSave", func(t *testing.T) {
		s := newStore(t)
		v, err := s.Save(ctx, []byte("# Mémoires\n"), "")
		require.NoError(t, err)
		assertSize(t, s, "after creating the file (bytes, not characters)")
		v, err = s.Save(ctx, []byte("ab"), v)
		require.NoError(t, err)
		assertSize(t, s, "after a shorter Save")
		_, err = s.Save(ctx, nil, v)
		require.NoError(t, err)
		assertSize(t, s, "after emptying the file")
		_, err = s.Save(ctx, []byte("conflicting"), v)
		require.ErrorIs(t, err, memories.ErrConflict)
		assertSize(t, s, "after a conflicting Save")
	})

	t.Run("AfterAppend", func(t *testing.T) {
		s := newStore(t)
		a, ok := s.(memories.Appender)
		if !ok {
			t.Skip("the store does not implement memories.Appender")
		}
		size, _, err := a.Append(ctx, []byte("# H"), []byte("- é\n"))
		require.NoError(t, err)
		assertSize(t, s, "after an Append creating the file")
		got, err := s.(memories.Sizer).Size(ctx)
		require.NoError(t, err)
		assert.Equal(t, size, got, "Size must agree with the size Append returned")
		_, _, err = a.Append(ctx, []byte("# H\n"), []byte("- two"))
		require.NoError(t, err)
		assertSize(t, s, "after a second Append")
		_, _, err = a.Append(ctx, nil, []byte("- three\n"))
		require.NoError(t, err)
		assertSize(t, s, "after an Append adding the missing newline")
	})
}

// testPeeker checks the memories.Peeker contract; newStore's stores
// implement it.
func testPeeker(t *testing.T, newStore func(t *testing.T) memories.Store) {
	ctx := context.Background()
	peek := func(t *testing.T, s memories.Store, n int) string {
		t.Helper()
		head, err := s.(memories.Peeker).Peek(ctx, n)
		require.NoError(t, err)
		return string(head)
	}

	t.Run("NegativeN", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Save(ctx, []byte("# Memories\n"), "")
		require.NoError(t, err)
		_, err = s.(memories.Peeker).Peek(ctx, -1)
		assert.ErrorIs(t, err, memories.ErrInvalid, "a negative n is invalid input")
	})

	t.Run("Missing", func(t *testing.T) {
		head, err := newStore(t).(memories.Peeker).Peek(ctx, 4)
		require.NoError(t, err)
		assert.Nil(t, head, "a missing file peeks as nil")
	})

	t.Run("Prefix", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Save(ctx, []byte("# Memories\n"), "")
		require.NoError(t, err)
		assert.Equal(t, "# Me", peek(t, s, 4), "Peek returns the first n bytes")
		assert.Equal(t, "# Memories\n", peek(t, s, len("# Memories\n")), "n equal to the size is the whole file")
		assert.Equal(t, "# Memories\n", peek(t, s, 100), "all of a shorter file")
		assert.Empty(t, peek(t, s, 0), "n = 0 returns no bytes")
	})

	t.Run("EmptyFile", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Save(ctx, nil, "")
		require.NoError(t, err)
		assert.Empty(t, peek(t, s, 4))
	})

	t.Run("AfterReplace", func(t *testing.T) {
		s := newStore(t)
		v, err := s.Save(ctx, []byte("a long first version\n"), "")
		require.NoError(t, err)
		_, err = s.Save(ctx, []byte("short"), v)
		require.NoError(t, err)
		assert.Equal(t, "short", peek(t, s, 100), "Peek must see the new contents and no tail of the old")
	})

	t.Run("ReturnsCopy", func(t *testing.T) {
		s := newStore(t)
		_, err := s.Save(ctx, []byte("abcdef"), "")
		require.NoError(t, err)
		head, err := s.(memories.Peeker).Peek(ctx, 3)
		require.NoError(t, err)
		require.Equal(t, "abc", string(head))
		head[0] = 'X'
		assert.Equal(t, "abc", peek(t, s, 3), "changing a peeked slice must not change what Peek returns")
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, "abcdef", string(data), "changing a peeked slice must not change the store")
	})

	t.Run("AfterAppend", func(t *testing.T) {
		s := newStore(t)
		a, ok := s.(memories.Appender)
		if !ok {
			t.Skip("the store does not implement memories.Appender")
		}
		_, _, err := a.Append(ctx, []byte("# H\n"), []byte("abc"))
		require.NoError(t, err)
		_, _, err = a.Append(ctx, nil, []byte("defghij\n"))
		require.NoError(t, err)
		data, _, err := s.Load(ctx)
		require.NoError(t, err)
		require.Equal(t, "# H\nabc\ndefghij\n", string(data))
		for _, n := range []int{2, 4, 9, 12, len(data), len(data) + 10} {
			assert.Equal(t, string(data[:min(n, len(data))]), peek(t, s, n), "Peek(%d) across appended entries", n)
		}
	})
}

// casAppendLine adds line through Load + Save, retrying on ErrConflict: the
// read-modify-write a MemoryManager does for Delete.
func casAppendLine(ctx context.Context, s memories.Store, line string) error {
	for {
		data, v, err := s.Load(ctx)
		if err != nil {
			return err
		}
		next := append(data, line+"\n"...)
		_, err = s.Save(ctx, next, v)
		if errors.Is(err, memories.ErrConflict) {
			continue
		}
		return err
	}
}

func runWorkers(t *testing.T, op func(w, i int) error) {
	t.Helper()
	var wg sync.WaitGroup
	errs := make(chan error, workers*opsPerWorker)
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range opsPerWorker {
				if err := op(w, i); err != nil {
					errs <- fmt.Errorf("worker %d op %d: %w", w, i, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		require.NoError(t, err)
	}
}

// assertEachLineOnce checks that every "<prefix><w>-<i>" line is present
// exactly once and that no line is torn.
func assertEachLineOnce(t *testing.T, data, prefix string) {
	t.Helper()
	seen := map[string]int{}
	for line := range strings.Lines(data) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, prefix) {
			seen[line]++
		}
	}
	for w := range workers {
		for i := range opsPerWorker {
			want := fmt.Sprintf("%s%d-%d", prefix, w, i)
			assert.Equal(t, 1, seen[want], "line %q must appear exactly once", want)
		}
	}
	assert.Len(t, seen, workers*opsPerWorker, "unexpected extra or torn lines")
}
