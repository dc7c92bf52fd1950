package pgstore_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	memstoretest "github.com/mnemobank/mnemobank/memories/storetest"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// Every subtest gets its own file name in one table, so this also shows
// that files do not see each other.
func TestMemoriesConformance(t *testing.T) {
	s, _, _ := newTestStore(t)
	memstoretest.TestStore(t, func(t *testing.T) memories.Store {
		m, err := s.Memories("memories-" + randomSuffix(t) + ".md")
		require.NoError(t, err)
		return m
	})
}

// Append and AppendIf follow the same rules as memories.MemStore, byte for byte, for
// every combination of stored data, header and entry that the rules
// distinguish.
func TestMemoriesAppendMatchesMemStore(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	type step struct {
		save          *string // Save this first (nil: Append only)
		header, entry string
	}
	str := func(s string) *string { return &s }
	tests := []struct {
		name  string
		steps []step
	}{
		{"missing file gets header", []step{{nil, "# Memories\n\n", "- one\n"}}},
		{"missing file, no header", []step{{nil, "", "- one\n"}}},
		{"missing file, header without newline", []step{{nil, "# H", "- one\n"}}},
		{"missing file, all empty", []step{{nil, "", ""}}},
		{"empty file gets header", []step{{str(""), "H\n", "e\n"}}},
		{"empty file, empty header", []step{{str(""), "", "e"}}},
		{"no header when not empty", []step{{str("x\n"), "H\n", "e\n"}}},
		{"newline added", []step{{str("x"), "H\n", "e\n"}}},
		{"entry without newline, then another", []step{{nil, "H\n", "a"}, {nil, "H\n", "b"}}},
		{"empty entry", []step{{str("x"), "H\n", ""}}},
		{"binary and CR", []step{{str("a\r"), "H\n", "\x00\xff\n"}, {nil, "", "\r\n"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			pg, err := s.Memories("append-" + randomSuffix(t) + ".md")
			require.NoError(t, err)
			cond, err := s.Memories("appendif-" + randomSuffix(t) + ".md")
			require.NoError(t, err)
			var mem memories.MemStore
			for i, st := range tt.steps {
				if st.save != nil {
					_, err := pg.Save(ctx, []byte(*st.save), "")
					require.NoError(t, err)
					_, err = mem.Save(ctx, []byte(*st.save), "")
					require.NoError(t, err)
				}
				pgSize, pgVersion, err := pg.Append(ctx, []byte(st.header), []byte(st.entry))
				require.NoError(t, err, "step %d", i)
				memSize, _, err := mem.Append(ctx, []byte(st.header), []byte(st.entry))
				require.NoError(t, err)
				pgData, loaded, err := pg.Load(ctx)
				require.NoError(t, err)
				memData, _, err := mem.Load(ctx)
				require.NoError(t, err)
				assert.Equal(t, string(memData), string(pgData), "step %d", i)
				assert.Equal(t, memSize, pgSize, "step %d: size", i)
				assert.Equal(t, int64(len(pgData)), pgSize, "step %d: size is not the stored length", i)
				assert.Equal(t, loaded, pgVersion, "step %d: Append's version is not the stored one", i)

				// AppendIf at the current version writes what Append does.
				if st.save != nil {
					_, err := cond.Save(ctx, []byte(*st.save), "")
					require.NoError(t, err)
				}
				_, current, err := cond.Load(ctx)
				require.NoError(t, err)
				condSize, condVersion, err := cond.AppendIf(ctx, []byte(st.header), []byte(st.entry), current)
				require.NoError(t, err, "step %d: AppendIf", i)
				condData, loaded, err := cond.Load(ctx)
				require.NoError(t, err)
				assert.Equal(t, string(memData), string(condData), "step %d: AppendIf", i)
				assert.Equal(t, memSize, condSize, "step %d: AppendIf's size", i)
				assert.Equal(t, loaded, condVersion, "step %d: AppendIf's version is not the stored one", i)
			}
		})
	}
}

func TestMemoriesNamespacesAreSeparate(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	opts := freshOptions(t, pool)
	a, err := pgstore.NewMemoriesStore(pool, "memories.md", &pgstore.Options{Table: opts.Table, MemoriesTable: opts.MemoriesTable, Namespace: "a"})
	require.NoError(t, err)
	b, err := pgstore.NewMemoriesStore(pool, "memories.md", &pgstore.Options{Table: opts.Table, MemoriesTable: opts.MemoriesTable, Namespace: "b"})
	require.NoError(t, err)

	_, _, err = a.Append(ctx, []byte("# A\n"), []byte("- a\n"))
	require.NoError(t, err)
	data, version, err := b.Load(ctx)
	require.NoError(t, err)
	assert.Nil(t, data, "b sees a's file")
	assert.Empty(t, version)
	_, err = b.Save(ctx, []byte("# B\n"), "")
	require.NoError(t, err, "b's first Save conflicts with a's file")
	data, _, err = a.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, "# A\n- a\n", string(data))
}

// Memories files live in their own table: a memories file and a memory-bank
// key with the same name do not meet.
func TestMemoriesApartFromObjects(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	m, err := s.Memories("memories.md")
	require.NoError(t, err)
	_, err = m.Save(ctx, []byte("memories"), "")
	require.NoError(t, err)
	_, err = s.Get(ctx, "memories.md")
	assert.ErrorIs(t, err, memorybank.ErrNotFound)
}

func TestMemoriesInvalidName(t *testing.T) {
	// Names are checked before any I/O: a pool that never connects will do.
	s, err := pgstore.New(new(pgxpool.Pool), nil)
	require.NoError(t, err)
	for _, name := range []string{"", "../memories.md", "/abs.md", "a\\b.md"} {
		_, err := s.Memories(name)
		assert.ErrorIs(t, err, memorybank.ErrInvalidKey, "%q", name)
	}
}

// Size is the stored length in bytes, 0 for a missing file, and sees only
// its own file and namespace.
func TestMemoriesSize(t *testing.T) {
	ctx := context.Background()
	s, pool, opts := newTestStore(t)
	m, err := s.Memories("memories.md")
	require.NoError(t, err)
	other, err := pgstore.NewMemoriesStore(pool, "memories.md", &pgstore.Options{Table: opts.Table, MemoriesTable: opts.MemoriesTable, Namespace: "other"})
	require.NoError(t, err)

	size, err := m.Size(ctx)
	require.NoError(t, err)
	assert.Zero(t, size, "missing file")

	v, err := m.Save(ctx, []byte("héllo"), "")
	require.NoError(t, err)
	size, err = m.Size(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(len("héllo")), size, "bytes, not characters")

	_, err = m.Save(ctx, []byte{}, v)
	require.NoError(t, err)
	size, err = m.Size(ctx)
	require.NoError(t, err)
	assert.Zero(t, size, "empty file")

	appended, _, err := m.Append(ctx, []byte("# H\n"), []byte("- e\n"))
	require.NoError(t, err)
	size, err = m.Size(ctx)
	require.NoError(t, err)
	assert.Equal(t, appended, size)

	size, err = other.Size(ctx)
	require.NoError(t, err)
	assert.Zero(t, size, "another namespace's file")
}

// appendOnly is a MemoriesStore whose Save fails the test: a Manager with
// MaxBytes must take the Size + Append path, never Load + Save.
type appendOnly struct {
	*pgstore.MemoriesStore
	t *testing.T
}

func (a appendOnly) Save(context.Context, []byte, string) (string, error) {
	a.t.Error("Manager.Add called Save: the store's Size was not used")
	return "", errors.New("appendOnly: Save called")
}

func TestMemoriesMaxBytesUsesSize(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	m, err := s.Memories("memories.md")
	require.NoError(t, err)
	mgr, err := memories.New(appendOnly{m, t}, &memories.Options{MaxBytes: 400})
	require.NoError(t, err)

	_, err = mgr.Add(ctx, "use table tests", "go")
	require.NoError(t, err)
	before, err := m.Size(ctx)
	require.NoError(t, err)
	require.Positive(t, before)

	var added int
	for err == nil && added < 20 {
		_, err = mgr.Add(ctx, "another memory that takes some room in the file")
		added++
	}
	require.ErrorIs(t, err, memories.ErrTooLarge, "after %d adds", added)
	after, err := m.Size(ctx)
	require.NoError(t, err)
	assert.LessOrEqual(t, after, int64(400), "MaxBytes was crossed")
}

// An add writes one small row: the file's row keeps its data (a Save's
// text) and each Append adds a row holding only what it appended; Load
// still gives the whole file, and a Save folds the rows back in.
func TestMemoriesAppendWritesOneRow(t *testing.T) {
	ctx := context.Background()
	s, pool, opts := newTestStore(t)
	m, err := s.Memories("memories.md")
	require.NoError(t, err)
	base := "# Memories\n" + strings.Repeat("old entry\n", 1000)
	v, err := m.Save(ctx, []byte(base), "")
	require.NoError(t, err)
	want := base
	for i := range 20 {
		e := fmt.Sprintf("## entry %d\n- Content: x\n", i)
		size, _, err := m.Append(ctx, []byte("# Memories\n"), []byte(e))
		require.NoError(t, err)
		want += e
		assert.Equal(t, int64(len(want)), size)
	}
	rowLen := func() (data, entries int) {
		require.NoError(t, pool.QueryRow(ctx, fmt.Sprintf(`SELECT octet_length(data) FROM %q WHERE name = 'memories.md' AND namespace = $1`, opts.MemoriesTable), opts.Namespace).Scan(&data))
		require.NoError(t, pool.QueryRow(ctx, fmt.Sprintf(`SELECT count(*) FROM %q WHERE name = 'memories.md' AND namespace = $1`, opts.MemoriesTable+"_entries"), opts.Namespace).Scan(&entries))
		return data, entries
	}
	data, entries := rowLen()
	assert.Equal(t, len(base), data, "the file's row is not rewritten by an add")
	assert.Equal(t, 20, entries, "one row per add")
	got, v2, err := m.Load(ctx)
	require.NoError(t, err)
	assert.Equal(t, want, string(got))
	assert.NotEqual(t, v, v2)

	_, err = m.Save(ctx, got[:len(got)-10], v2)
	require.NoError(t, err)
	data, entries = rowLen()
	assert.Equal(t, len(want)-10, data)
	assert.Zero(t, entries, "a save folds the entries back in")
}

// Peek gives the start of the file, joined across appended rows, so a
// Manager keeps a ralph-orchestrator file in ralph's format on PostgreSQL.
func TestMemoriesPeek(t *testing.T) {
	ctx := context.Background()
	s, _, _ := newTestStore(t)
	m, err := s.Memories("memories.md")
	require.NoError(t, err)
	head, err := m.Peek(ctx, 10)
	require.NoError(t, err)
	assert.Nil(t, head, "missing file")
	_, _, err = m.Append(ctx, []byte("# H\n"), []byte("abc\n"))
	require.NoError(t, err)
	_, _, err = m.Append(ctx, []byte("# H\n"), []byte("defghij\n"))
	require.NoError(t, err)
	head, err = m.Peek(ctx, 10)
	require.NoError(t, err)
	assert.Equal(t, "# H\nabc\nde", string(head))
	head, err = m.Peek(ctx, 2)
	require.NoError(t, err)
	assert.Equal(t, "# ", string(head))
}

// AppendIf's version check and its append are one transaction: when another
// Store on the same namespace appends between our Load and our AppendIf,
// AppendIf fails with ErrConflict and writes nothing, so a Manager never
// takes a file it did not read for the one its search index was built from.
func TestMemoriesAppendIfConcurrentAppend(t *testing.T) {
	ctx := context.Background()
	s, pool, opts := newTestStore(t)
	other, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	m, err := s.Memories("memories.md")
	require.NoError(t, err)
	o, err := other.Memories("memories.md")
	require.NoError(t, err)
	ca, ok := any(m).(memories.CondAppender)
	require.True(t, ok, "pgstore's MemoriesStore does not implement memories.CondAppender")
	header := []byte("# Memories\n\n")

	for _, missing := range []bool{true, false} {
		if !missing {
			_, _, err := m.Append(ctx, header, []byte("## ours\n"))
			require.NoError(t, err)
		}
		_, v, err := m.Load(ctx)
		require.NoError(t, err)
		_, _, err = o.Append(ctx, header, []byte("## theirs\n")) // the other Store, meanwhile
		require.NoError(t, err)
		want, wantVersion, err := o.Load(ctx)
		require.NoError(t, err)

		_, _, err = ca.AppendIf(ctx, header, []byte("## late\n"), v)
		require.ErrorIs(t, err, memories.ErrConflict, "missing=%v: AppendIf at the version read before another Store's Append", missing)
		got, gotVersion, err := m.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "missing=%v: a refused AppendIf wrote", missing)
		assert.Equal(t, wantVersion, gotVersion, "missing=%v: a refused AppendIf changed the version", missing)

		size, v2, err := ca.AppendIf(ctx, header, []byte("## now\n"), gotVersion)
		require.NoError(t, err, "missing=%v: AppendIf at the current version", missing)
		got, loaded, err := o.Load(ctx)
		require.NoError(t, err)
		assert.Equal(t, string(want)+"## now\n", string(got))
		assert.Equal(t, int64(len(got)), size)
		assert.Equal(t, loaded, v2)
		_, err = m.Save(ctx, nil, v2) // empty again for the next round
		require.NoError(t, err)
	}
}

// Writers racing with AppendIf at one version, from two Stores: exactly one
// gets through, which a version check outside the append's transaction
// would not guarantee.
func TestMemoriesAppendIfRace(t *testing.T) {
	ctx := context.Background()
	s, pool, opts := newTestStore(t)
	other, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	t.Cleanup(other.Close)
	var files [2]*pgstore.MemoriesStore
	for i, st := range []*pgstore.Store{s, other} {
		files[i], err = st.Memories("memories.md")
		require.NoError(t, err)
	}
	header := []byte("# Memories\n\n")
	for round := range 10 {
		before, v, err := files[0].Load(ctx)
		require.NoError(t, err)
		const writers = 8
		errs := make(chan error, writers)
		for w := range writers {
			go func() {
				_, _, err := files[w%2].AppendIf(ctx, header, fmt.Appendf(nil, "## %d.%d\n", round, w), v)
				errs <- err
			}()
		}
		won := 0
		for range writers {
			err := <-errs
			if err == nil {
				won++
			} else {
				require.ErrorIs(t, err, memories.ErrConflict)
			}
		}
		require.Equal(t, 1, won, "round %d: AppendIfs at version %q that succeeded", round, v)
		after, _, err := files[1].Load(ctx)
		require.NoError(t, err)
		added := strings.TrimPrefix(string(after), string(before))
		if len(before) == 0 {
			added = strings.TrimPrefix(added, string(header))
		}
		assert.Equal(t, 1, strings.Count(added, "## "), "round %d: the file gained %q", round, added)
	}
}
