package consolidate_test

import (
	"context"
	"encoding/binary"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/consolidate"
	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

type seqRand struct {
	mu sync.Mutex
	n  uint32
}

func (r *seqRand) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 0; i < len(p); i += 4 {
		r.n++
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], r.n)
		copy(p[i:], b[:])
	}
	return len(p), nil
}

var today = time.Date(2026, 6, 1, 9, 0, 0, 0, time.UTC)

type fixture struct {
	mm    *memories.Manager
	bank  *memorybank.Bank
	store *memories.MemStore
	usage *memories.MemStore // set by loadSeed
}

func newFixture(t testing.TB) *fixture {
	t.Helper()
	store := new(memories.MemStore)
	mm, err := memories.New(store, &memories.Options{Trash: new(memories.MemStore), Usage: new(memories.MemStore),
		Now: func() time.Time { return today }, Location: time.UTC, Rand: new(seqRand)})
	require.NoError(t, err)
	clock := today
	bank := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil),
		Clock: func() time.Time { clock = clock.Add(time.Minute); return clock }})
	return &fixture{mm: mm, bank: bank, store: store}
}

// seed writes memories straight into the file, so they can carry old dates.
func (f *fixture) seed(t testing.TB, ms ...memories.Memory) {
	t.Helper()
	d := memories.Parse(nil)
	for _, m := range ms {
		if m.Title == "" {
			m.Title = memories.MakeTitle(m.Content)
		}
		require.NoError(t, d.Append(m))
	}
	data, v, err := f.store.Load(context.Background())
	require.NoError(t, err)
	require.Empty(t, data)
	_, err = f.store.Save(context.Background(), memories.Format(d), v)
	require.NoError(t, err)
}

func (f *fixture) targets() consolidate.Targets {
	return consolidate.Targets{Memories: f.mm, Bank: f.bank, Actor: "test"}
}

func kinds(c *consolidate.Candidates, k consolidate.Kind) []consolidate.Candidate {
	var out []consolidate.Candidate
	for _, it := range c.Items {
		if it.Kind == k {
			out = append(out, it)
		}
	}
	return out
}

func TestGatherFindsEachKind(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.seed(t,
		memories.Memory{ID: "m1", Date: "2026-05-01", Tags: []string{"test"}, Content: "Run the integration tests with make itest; they need docker running"},
		memories.Memory{ID: "m2", Date: "2026-05-20", Tags: []string{"ci"}, Content: "Integration tests run with make itest and need docker running"},
		memories.Memory{ID: "m3", Date: "2026-05-02", Content: "The connection pool size for the billing service is 20"},
		memories.Memory{ID: "m4", Date: "2026-05-03", Content: "The connection pool size for the billing service is 50"},
		memories.Memory{ID: "m5", Date: "2025-01-10", Content: "The legacy FTP uploader reads its password from FTP_PASS"},
	)
	_, err := f.bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "notes/auth.md",
		Text: "Sessions expire after 30 minutes of inactivity; the refresh token lives 14 days."})
	require.NoError(t, err)
	_, err = f.bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/other", Path: "notes/x.md", Text: "unmerged work"})
	require.NoError(t, err)

	c, err := consolidate.Gather(ctx, consolidate.Sources{Memories: f.mm, Bank: f.bank},
		&consolidate.Options{Now: func() time.Time { return today }, MergedBranches: []string{"feature/login"}})
	require.NoError(t, err)

	dup := kinds(c, consolidate.KindDuplicate)
	require.Len(t, dup, 1)
	assert.Equal(t, "m2", dup[0].Entries[0].Ref.Memory, "newest first")
	assert.Equal(t, "m1", dup[0].Entries[1].Ref.Memory)

	con := kinds(c, consolidate.KindConflict)
	require.Len(t, con, 1)
	assert.Equal(t, [][]string{{"20"}, {"50"}}, con[0].Differs)

	stale := kinds(c, consolidate.KindStale)
	require.Len(t, stale, 1)
	assert.Equal(t, "m5", stale[0].Entries[0].Ref.Memory)

	pro := kinds(c, consolidate.KindPromote)
	require.Len(t, pro, 1)
	assert.Equal(t, "notes/auth.md", pro[0].Entries[0].Ref.Path)
}

// A memory returned by a search is not stale, however old.
func TestUseKeepsAMemoryFresh(t *testing.T) {
	f := newFixture(t)
	ctx := t.Context()
	f.seed(t, memories.Memory{ID: "old", Date: "2024-01-01", Content: "The legacy FTP uploader reads its password from FTP_PASS"})
	opts := &consolidate.Options{Now: func() time.Time { return today }}
	c, err := consolidate.Gather(ctx, consolidate.Sources{Memories: f.mm}, opts)
	require.NoError(t, err)
	require.Len(t, kinds(c, consolidate.KindStale), 1)
	_, err = f.mm.Search(ctx, "FTP password")
	require.NoError(t, err)
	c, err = consolidate.Gather(ctx, consolidate.Sources{Memories: f.mm}, opts)
	require.NoError(t, err)
	assert.Empty(t, kinds(c, consolidate.KindStale))
}

func dupFixture(t *testing.T) (*fixture, *consolidate.Plan) {
	f := newFixture(t)
	ctx := t.Context()
	f.seed(t,
		memories.Memory{ID: "m1", Date: "2026-05-01", Tags: []string{"test"}, Content: "Run the integration tests with make itest; they need docker running"},
		memories.Memory{ID: "m2", Date: "2026-05-20", Tags: []string{"ci"}, Content: "Integration tests run with make itest and need docker running"},
		memories.Memory{ID: "m3", Date: "2026-05-02", Content: "Prefer table tests with testify require for preconditions"},
	)
	for _, p := range []string{"notes/a.md", "notes/b.md"} {
		_, err := f.bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: p,
			Text: "Deploys go through the release pipeline; never push to the prod branch directly."})
		require.NoError(t, err)
	}
	_, err := f.bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "notes/auth.md",
		Text: "Sessions expire after 30 minutes of inactivity."})
	require.NoError(t, err)
	c, err := consolidate.Gather(ctx, consolidate.Sources{Memories: f.mm, Bank: f.bank},
		&consolidate.Options{Now: func() time.Time { return today }, MergedBranches: []string{"feature/login"}})
	require.NoError(t, err)
	p := consolidate.DefaultPlan(c)
	require.Len(t, p.Merge, 2, "one memory cluster, one document cluster: %+v", c.Items)
	for _, it := range kinds(c, consolidate.KindPromote) {
		pr := consolidate.Promotion{Member: consolidate.Member{Ref: it.Entries[0].Ref, Version: it.Entries[0].Version}}
		if len(it.Entries) > 1 {
			pr.Global = it.Entries[1].Version
		}
		p.Promote = append(p.Promote, pr)
	}
	p.Retire = []consolidate.Member{{Ref: consolidate.Ref{Memory: "m3"}, Version: kinds3(t, f)}}
	return f, p
}

func kinds3(t *testing.T, f *fixture) string {
	m, err := f.mm.Get(t.Context(), "m3")
	require.NoError(t, err)
	return memories.Fingerprint(m)
}

func snapshot(t *testing.T, f *fixture) (string, []memorybank.ListEntry, []memorybank.ListEntry) {
	t.Helper()
	data, _, err := f.store.Load(t.Context())
	require.NoError(t, err)
	g, err := f.bank.List(t.Context(), memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	b, err := f.bank.List(t.Context(), memorybank.ListRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login"})
	require.NoError(t, err)
	return string(data), g, b
}

// A plan is shown as diffs, applied whole, and undone to the texts before.
func TestPlanAppliedAndUndone(t *testing.T) {
	f, p := dupFixture(t)
	ctx := t.Context()
	text, err := consolidate.Describe(ctx, f.targets(), p)
	require.NoError(t, err)
	assert.Contains(t, text, "- Run the integration tests with make itest; they need docker running\n")
	assert.Contains(t, text, "+ Sessions expire after 30 minutes of inactivity.\n")
	assert.Contains(t, text, "retire 1: memory m3\n")

	before, beforeG, _ := snapshot(t, f)
	applied, err := consolidate.Apply(ctx, f.targets(), p)
	require.NoError(t, err)
	ms, err := f.mm.List(ctx)
	require.NoError(t, err)
	require.Len(t, ms, 1)
	assert.Equal(t, "Integration tests run with make itest and need docker running", ms[0].Content)
	assert.Equal(t, []string{"ci", "test"}, ms[0].Tags, "the union of the tags, newest first")
	g, err := f.bank.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	var paths []string
	for _, e := range g {
		paths = append(paths, e.Path)
	}
	assert.ElementsMatch(t, []string{"notes/b.md", "notes/auth.md"}, paths, "one merged document left, the promoted one added")
	inj, err := f.mm.InjectionContent(ctx)
	require.NoError(t, err)
	assert.NotContains(t, inj, "Prefer table tests", "a retired memory is not injected")

	require.NoError(t, consolidate.Undo(ctx, f.targets(), applied))
	after, afterG, _ := snapshot(t, f)
	assert.ElementsMatch(t, memoriesOf(t, before), memoriesOf(t, after))
	require.Len(t, afterG, len(beforeG))
	for i := range afterG {
		assert.Equal(t, beforeG[i].Path, afterG[i].Path)
	}
	d, err := f.bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "notes/a.md"})
	require.NoError(t, err)
	assert.Contains(t, d.Text(), "release pipeline")
}

func memoriesOf(t *testing.T, file string) []string {
	var out []string
	for _, m := range memories.Parse([]byte(file)).Memories() {
		out = append(out, m.ID+"|"+m.Content+"|"+m.Date)
	}
	return out
}

// A member changed after the plan was built refuses the whole plan: no
// memory and no document changes.
func TestPlanRefusedWhenAMemberChanged(t *testing.T) {
	t.Run("memory", func(t *testing.T) {
		f, p := dupFixture(t)
		ctx := t.Context()
		require.NoError(t, f.mm.Delete(ctx, "m3"))
		before, g, b := snapshot(t, f)
		_, err := consolidate.Apply(ctx, f.targets(), p)
		var ce *consolidate.ChangedError
		require.ErrorAs(t, err, &ce)
		assert.ErrorIs(t, err, consolidate.ErrChanged)
		assert.Equal(t, "m3", ce.Ref.Memory)
		after, g2, b2 := snapshot(t, f)
		assert.Equal(t, before, after)
		assert.Equal(t, g, g2)
		assert.Equal(t, b, b2)
	})
	t.Run("document", func(t *testing.T) {
		f, p := dupFixture(t)
		ctx := t.Context()
		_, err := f.bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/a.md", Text: "edited meanwhile"})
		require.NoError(t, err)
		before, g, b := snapshot(t, f)
		_, err = consolidate.Apply(ctx, f.targets(), p)
		var ce *consolidate.ChangedError
		require.ErrorAs(t, err, &ce)
		assert.Equal(t, "notes/a.md", ce.Ref.Path)
		assert.Equal(t, "2", ce.Got)
		after, g2, b2 := snapshot(t, f)
		assert.Equal(t, before, after)
		assert.Equal(t, g, g2)
		assert.Equal(t, b, b2)
	})
}

// A document step that fails after the memories changed undoes them: the
// plan lands whole or not at all.
func TestPlanRolledBackWhenADocumentStepFails(t *testing.T) {
	f, p := dupFixture(t)
	ctx := t.Context()
	// The global bank gains the promoted path after the plan was built,
	// so the promotion (a create) conflicts once the memories are done.
	_, err := f.bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/auth.md", Text: "written meanwhile"})
	require.NoError(t, err)
	before, g, _ := snapshot(t, f)
	_, err = consolidate.Apply(ctx, f.targets(), p)
	require.Error(t, err)
	after, g2, _ := snapshot(t, f)
	assert.ElementsMatch(t, memoriesOf(t, before), memoriesOf(t, after))
	require.Len(t, g2, len(g))
	d, err := f.bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "notes/a.md"})
	require.NoError(t, err)
	assert.Contains(t, d.Text(), "release pipeline")
}

func TestPlanErrors(t *testing.T) {
	f := newFixture(t)
	for name, p := range map[string]*consolidate.Plan{
		"no version":      {Retire: []consolidate.Member{{Ref: consolidate.Ref{Memory: "m1"}}}},
		"one member":      {Merge: []consolidate.Merge{{Text: "x", Members: []consolidate.Member{{Ref: consolidate.Ref{Memory: "m1"}, Version: "a"}}}}},
		"named twice":     {Retire: []consolidate.Member{{Ref: consolidate.Ref{Memory: "m1"}, Version: "a"}, {Ref: consolidate.Ref{Memory: "m1"}, Version: "a"}}},
		"promote global":  {Promote: []consolidate.Promotion{{Member: consolidate.Member{Ref: consolidate.Ref{Scope: memorybank.ScopeGlobal, Path: "a.md"}, Version: "1"}}}},
		"bad doc version": {Retire: []consolidate.Member{{Ref: consolidate.Ref{Scope: memorybank.ScopeGlobal, Path: "a.md"}, Version: "v1"}}},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := consolidate.Apply(t.Context(), f.targets(), p)
			var pe *consolidate.PlanError
			require.ErrorAs(t, err, &pe)
			assert.ErrorIs(t, err, consolidate.ErrInvalidPlan)
		})
	}
}
