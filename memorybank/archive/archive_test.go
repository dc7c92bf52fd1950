package archive_test

import (
	"archive/tar"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

var fixed = func() time.Time { return time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC) }

// fill writes a bank with documents of every kind, history, a deleted
// document, a skill graph and memories with a trash.
func fill(t *testing.T, bank *memorybank.Bank, mem archive.Memories) {
	t.Helper()
	ctx := context.Background()
	w := func(req memorybank.WriteRequest) {
		t.Helper()
		_, err := bank.Write(ctx, req)
		require.NoError(t, err)
	}
	w(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nLayers.\n"})
	w(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "# Architecture\n\nLayers, then ports.\n"})
	w(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "skills/go-tests.json", Content: json.RawMessage(`{"nodes":[{"id":"a"}]}`)})
	w(memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "activeContext.json", Content: json.RawMessage(`{"task":"login"}`)})
	w(memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "notes/gone.md", Text: "bye"})
	require.NoError(t, bank.Delete(ctx, memorybank.DeleteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "notes/gone.md"}))
	_, err := bank.Store().Put(ctx, "global-memory-bank/plain.md", []byte("# Plain\n\nno front matter\n"), memorybank.Condition{})
	require.NoError(t, err)
	if mem.File != nil {
		m, err := memories.New(mem.File, &memories.Options{Trash: mem.Trash})
		require.NoError(t, err)
		a, err := m.Add(ctx, "use testify", "testing")
		require.NoError(t, err)
		_, err = m.Add(ctx, "never sleep in tests")
		require.NoError(t, err)
		require.NoError(t, m.Delete(ctx, a.ID))
	}
}

func export(t *testing.T, bank *memorybank.Bank, mem archive.Memories) ([]byte, *archive.Manifest) {
	t.Helper()
	var buf bytes.Buffer
	m, err := archive.Export(context.Background(), bank, mem, &buf, &archive.ExportOptions{Source: "test", Clock: fixed})
	require.NoError(t, err)
	return buf.Bytes(), m
}

func newMem() archive.Memories {
	return archive.Memories{File: &memories.MemStore{}, Trash: &memories.MemStore{}}
}

func importInto(t *testing.T, bank *memorybank.Bank, mem archive.Memories, data []byte, opts archive.ImportOptions) (*archive.Result, []archive.Item, error) {
	t.Helper()
	var items []archive.Item
	opts.Report = func(it archive.Item) { items = append(items, it) }
	res, err := archive.Import(context.Background(), bank, mem, bytes.NewReader(data), &opts)
	return res, items, err
}

// storeKeys lists every key with its bytes.
func storeKeys(t *testing.T, s memorybank.Store) map[string]string {
	t.Helper()
	out := map[string]string{}
	for obj, err := range s.List(context.Background(), "") {
		require.NoError(t, err)
		o, err := s.Get(context.Background(), obj.Key)
		require.NoError(t, err)
		out[obj.Key] = string(o.Data)
	}
	return out
}

func TestRoundTripMemStore(t *testing.T) {
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), Clock: fixed})
	srcMem := newMem()
	fill(t, src, srcMem)
	first, m := export(t, src, srcMem)
	require.Equal(t, 4, m.Counts.Documents)
	require.Equal(t, 1, m.Counts.Skills)
	require.Equal(t, 1, m.Counts.Memories)
	require.Equal(t, 1, m.Counts.Trash)
	require.Positive(t, m.Counts.History)

	dst := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	dstMem := newMem()
	res, items, err := importInto(t, dst, dstMem, first, archive.ImportOptions{Apply: true})
	require.NoError(t, err)
	require.Zero(t, res.Conflicts)
	for _, it := range items {
		require.Equal(t, archive.Create, it.Action, it.Key)
	}
	second, _ := export(t, dst, dstMem)
	require.Equal(t, first, second, "export → import → export gives the same archive")

	// Versions continue: the next write after the import is version 3.
	r, err := dst.Write(context.Background(), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "x", IfVersion: 2})
	require.NoError(t, err)
	require.EqualValues(t, 3, r.Version)
	h, err := history.List(context.Background(), dst, memorybank.HistoryRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md"})
	require.NoError(t, err)
	require.Len(t, h, 3)
	// A deleted document re-created continues after its tombstone.
	r, err = dst.Write(context.Background(), memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "notes/gone.md", Text: "back"})
	require.NoError(t, err)
	require.EqualValues(t, 3, r.Version)

	// Running it again changes nothing.
	res, _, err = importInto(t, dst, dstMem, first, archive.ImportOptions{Apply: true})
	require.NoError(t, err)
	require.Zero(t, res.Created)
}

func TestRoundTripFSStore(t *testing.T) {
	open := func() *memorybank.Bank {
		s, err := fsstore.Open(t.TempDir(), nil)
		require.NoError(t, err)
		t.Cleanup(func() { s.Close() })
		return memorybank.New(s, &memorybank.Options{History: history.New(nil), Clock: fixed})
	}
	src := open()
	fill(t, src, archive.Memories{})
	// A bank whose index snapshots exist: they are not exported.
	_, err := src.Store().Put(context.Background(), "global-memory-bank/.tagindex.json", []byte("{}"), memorybank.Condition{})
	require.NoError(t, err)
	_, err = src.Store().Put(context.Background(), "global-memory-bank/.textindex.bin", []byte("snapshot"), memorybank.Condition{})
	require.NoError(t, err)
	first, _ := export(t, src, archive.Memories{})
	require.NotContains(t, string(first), ".tagindex.json")
	require.NotContains(t, string(first), ".textindex.bin")
	dst := open()
	_, _, err = importInto(t, dst, archive.Memories{}, first, archive.ImportOptions{Apply: true})
	require.NoError(t, err)
	second, _ := export(t, dst, archive.Memories{})
	require.Equal(t, first, second)
}

func TestExportManifestTimeIsTheOnlyDifference(t *testing.T) {
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), Clock: fixed})
	fill(t, src, archive.Memories{})
	a, _ := export(t, src, archive.Memories{})
	var b bytes.Buffer
	_, err := archive.Export(context.Background(), src, archive.Memories{}, &b, &archive.ExportOptions{Source: "test", Clock: func() time.Time { return fixed().Add(time.Hour) }})
	require.NoError(t, err)
	require.Equal(t, bytes.ReplaceAll(a, []byte(`"createdAt":"2025-01-02T03:04:05Z"`), []byte(`"createdAt":"2025-01-02T04:04:05Z"`)), b.Bytes())
}

func TestDryRunPlansAndWritesNothing(t *testing.T) {
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), Clock: fixed})
	srcMem := newMem()
	fill(t, src, srcMem)
	data, _ := export(t, src, srcMem)

	dst := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	ctx := context.Background()
	_, err := dst.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: "ours"})
	require.NoError(t, err)
	_, err = dst.Store().Put(ctx, "global-memory-bank/plain.md", []byte("# Plain\n\nno front matter\n"), memorybank.Condition{})
	require.NoError(t, err)
	before := storeKeys(t, dst.Store())

	res, items, err := importInto(t, dst, newMem(), data, archive.ImportOptions{})
	require.NoError(t, err)
	require.False(t, res.Applied)
	require.Equal(t, before, storeKeys(t, dst.Store()))
	plan := map[string]archive.Action{}
	for _, it := range items {
		plan[it.Key] = it.Action
	}
	require.Equal(t, archive.Conflict, plan["global-memory-bank/architecture.md"])
	require.Equal(t, archive.Skip, plan["global-memory-bank/plain.md"])
	require.Equal(t, archive.Create, plan["global-memory-bank/skills/go-tests.json"])
	require.Equal(t, archive.Create, plan["branch-memory-bank/feature-login/activeContext.json"])
	require.Equal(t, 1, res.Conflicts)
}

func TestConflictPolicies(t *testing.T) {
	ctx := context.Background()
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), Clock: fixed})
	fill(t, src, archive.Memories{})
	data, _ := export(t, src, archive.Memories{})
	theirs, err := src.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md"})
	require.NoError(t, err)

	newOurs := func() *memorybank.Bank {
		b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
		for _, text := range []string{"ours 1", "ours 2", "ours 3"} {
			_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md", Text: text})
			require.NoError(t, err)
		}
		return b
	}
	read := func(b *memorybank.Bank, p string) *memorybank.Document {
		d, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: p})
		require.NoError(t, err)
		return d
	}

	t.Run("ours", func(t *testing.T) {
		b := newOurs()
		_, items, err := importInto(t, b, archive.Memories{}, data, archive.ImportOptions{Apply: true})
		require.NoError(t, err)
		require.Equal(t, "ours 3", read(b, "architecture.md").Text())
		require.Contains(t, itemFor(items, "global-memory-bank/architecture.md").Resolution, "kept ours")
		// Its history stays ours: three versions.
		h, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md"})
		require.NoError(t, err)
		require.Len(t, h, 3)
	})
	t.Run("theirs", func(t *testing.T) {
		b := newOurs()
		for range 2 { // a second run finds theirs already there
			_, _, err := importInto(t, b, archive.Memories{}, data, archive.ImportOptions{Apply: true, OnConflict: archive.KeepTheirs})
			require.NoError(t, err)
		}
		d := read(b, "architecture.md")
		require.Equal(t, theirs.Text(), d.Text())
		require.EqualValues(t, 4, d.Version, "theirs is the next version of ours")
		old, err := history.ReadVersion(ctx, b, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.md"}, 3)
		require.NoError(t, err)
		require.Equal(t, "ours 3", old.Text(), "ours stays in the history")
	})
	t.Run("both", func(t *testing.T) {
		b := newOurs()
		for range 2 {
			_, _, err := importInto(t, b, archive.Memories{}, data, archive.ImportOptions{Apply: true, OnConflict: archive.KeepBoth})
			require.NoError(t, err)
		}
		require.Equal(t, "ours 3", read(b, "architecture.md").Text())
		require.Equal(t, theirs.Text(), read(b, "architecture.imported.md").Text())
		_, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "architecture.imported-2.md"})
		require.ErrorIs(t, err, memorybank.ErrNotFound)
	})
	t.Run("unknown", func(t *testing.T) {
		_, _, err := importInto(t, newOurs(), archive.Memories{}, data, archive.ImportOptions{OnConflict: "mine"})
		require.ErrorIs(t, err, archive.ErrInvalidOptions)
	})
}

func TestMemoriesMerge(t *testing.T) {
	ctx := context.Background()
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	srcMem := newMem()
	fill(t, src, srcMem)
	data, _ := export(t, src, srcMem)

	dstMem := newMem()
	m, err := memories.New(dstMem.File, nil)
	require.NoError(t, err)
	_, err = m.Add(ctx, "ours only")
	require.NoError(t, err)
	_, _, err = importInto(t, memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)}), dstMem, data, archive.ImportOptions{Apply: true})
	require.NoError(t, err)
	all, err := m.List(ctx)
	require.NoError(t, err)
	var contents []string
	for _, x := range all {
		contents = append(contents, x.Content)
	}
	require.ElementsMatch(t, []string{"ours only", "never sleep in tests"}, contents)
}

func itemFor(items []archive.Item, key string) archive.Item {
	for _, it := range items {
		if it.Key == key {
			return it
		}
	}
	return archive.Item{}
}

// rewrite returns data with fn applied to each entry, as a new archive
// (checksum records kept as they were unless fn changes them).
func rewrite(t *testing.T, data []byte, fn func(h *tar.Header, body []byte) (*tar.Header, []byte)) []byte {
	t.Helper()
	tr := tar.NewReader(bytes.NewReader(data))
	var out bytes.Buffer
	tw := tar.NewWriter(&out)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		require.NoError(t, err)
		body, err := io.ReadAll(tr)
		require.NoError(t, err)
		h, body = fn(h, body)
		if h == nil {
			continue
		}
		h.Size = int64(len(body))
		require.NoError(t, tw.WriteHeader(h))
		_, err = tw.Write(body)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	return out.Bytes()
}

func TestBadArchivesWriteNothing(t *testing.T) {
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), Clock: fixed})
	srcMem := newMem()
	fill(t, src, srcMem)
	good, _ := export(t, src, srcMem)
	const victim = "store/global-memory-bank/architecture.md"

	cases := map[string]struct {
		data  []byte
		err   error
		entry string
	}{
		"a flipped byte": {data: rewrite(t, good, func(h *tar.Header, b []byte) (*tar.Header, []byte) {
			if h.Name == victim {
				b = append([]byte{}, b...)
				b[len(b)-2] ^= 1
			}
			return h, b
		}), err: archive.ErrCorrupt, entry: victim},
		"an entry removed": {data: rewrite(t, good, func(h *tar.Header, b []byte) (*tar.Header, []byte) {
			if h.Name == victim {
				return nil, nil
			}
			return h, b
		}), err: archive.ErrCorrupt, entry: "mnemobank/manifest.jsonl"},
		"a name with ..": {data: rewrite(t, good, func(h *tar.Header, b []byte) (*tar.Header, []byte) {
			if h.Name == victim {
				h.Name = "store/../x"
			}
			return h, b
		}), err: archive.ErrUnsafeName, entry: "store/../x"},
		"an absolute name": {data: rewrite(t, good, func(h *tar.Header, b []byte) (*tar.Header, []byte) {
			if h.Name == victim {
				h.Name = "/etc/passwd"
			}
			return h, b
		}), err: archive.ErrUnsafeName, entry: "/etc/passwd"},
		"a key the store refuses": {data: rewrite(t, good, func(h *tar.Header, b []byte) (*tar.Header, []byte) {
			if h.Name == victim {
				h.Name = "store/global-memory-bank/a:b.md"
			}
			return h, b
		}), err: archive.ErrUnsafeName, entry: "store/global-memory-bank/a:b.md"},
		"a symlink": {data: rewrite(t, good, func(h *tar.Header, b []byte) (*tar.Header, []byte) {
			if h.Name == victim {
				h.Typeflag, h.Linkname, b = tar.TypeSymlink, "/etc/passwd", nil
			}
			return h, b
		}), err: archive.ErrCorrupt, entry: victim},
		"not an archive": {data: []byte("hello"), err: archive.ErrCorrupt},
		"another tar": {data: rewrite(t, good, func(h *tar.Header, b []byte) (*tar.Header, []byte) {
			if h.Name == "mnemobank/format.json" {
				h.Name = "README"
			}
			return h, b
		}), err: archive.ErrUnsupported, entry: "README"},
		"a newer version": {data: rewrite(t, good, func(h *tar.Header, b []byte) (*tar.Header, []byte) {
			if h.Name == "mnemobank/format.json" {
				b = []byte(`{"format":"mnemobank-archive","formatVersion":2}`)
			}
			return h, b
		}), err: archive.ErrUnsupported, entry: "mnemobank/format.json"},
	}
	// (the last bytes are padding and the end-of-archive blocks, after the
	// manifest: nothing is lost when they are)
	for cut := 0; cut < len(good)-2048; cut += 517 {
		cases[fmt.Sprintf("truncated at %d", cut)] = struct {
			data  []byte
			err   error
			entry string
		}{data: good[:cut], err: archive.ErrCorrupt}
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			dst := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
			dstMem := newMem()
			_, _, err := importInto(t, dst, dstMem, c.data, archive.ImportOptions{Apply: true})
			require.ErrorIs(t, err, c.err)
			var ee *archive.EntryError
			require.ErrorAs(t, err, &ee)
			if c.entry != "" {
				require.Equal(t, c.entry, ee.Entry)
				require.Contains(t, err.Error(), c.entry)
			}
			require.Empty(t, storeKeys(t, dst.Store()))
			got, _, _ := dstMem.File.Load(context.Background())
			require.Nil(t, got)
		})
	}
}

func TestLimitsCheckedFirst(t *testing.T) {
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	fill(t, src, archive.Memories{})
	data, _ := export(t, src, archive.Memories{})
	dst := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	_, _, err := importInto(t, dst, archive.Memories{}, data, archive.ImportOptions{Apply: true, MaxEntryBytes: 10})
	require.ErrorIs(t, err, archive.ErrLimit)
	_, _, err = importInto(t, dst, archive.Memories{}, data, archive.ImportOptions{Apply: true, MaxEntries: 3})
	require.ErrorIs(t, err, archive.ErrLimit)
	// A stream (not a file) is spooled up to MaxArchiveBytes.
	_, err = archive.Import(context.Background(), dst, archive.Memories{}, io.MultiReader(bytes.NewReader(data)), &archive.ImportOptions{MaxArchiveBytes: 100})
	require.ErrorIs(t, err, archive.ErrLimit)
	require.Empty(t, storeKeys(t, dst.Store()))
}

func FuzzImport(f *testing.F) {
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), Clock: fixed})
	var buf bytes.Buffer
	_, err := src.Write(context.Background(), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "a.md", Text: "a"})
	require.NoError(f, err)
	_, err = archive.Export(context.Background(), src, archive.Memories{}, &buf, nil)
	require.NoError(f, err)
	f.Add(buf.Bytes())
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, data []byte) {
		dst := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
		_, err := archive.Import(context.Background(), dst, archive.Memories{}, bytes.NewReader(data), &archive.ImportOptions{Apply: true, MaxEntryBytes: 1 << 16, MaxEntries: 64})
		if err != nil {
			require.Empty(t, storeKeys(t, dst.Store()), "a refused archive writes nothing")
		}
	})
}
