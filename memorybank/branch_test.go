package memorybank_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
)

func TestBranchNames(t *testing.T) {
	cases := []struct {
		name, dir string // dir "" = invalid
	}{
		{"main", "main"},
		{"master", "master"},
		{"feature/foo", "feature-foo"},
		{"feature/login/v2", "feature-login-v2"},
		{"fix-123", "fix-123"},
		{"release/1.2.3", "release-1.2.3"},
		{"user@host", "user@host"},
		{"日本語/ブランチ", "日本語-ブランチ"},
		{"", ""},
		{"HEAD", ""},
		{"@", ""},
		{"-dash", ""},
		{"/lead", ""},
		{"trail/", ""},
		{"a//b", ""},
		{"a..b", ""},
		{"a/.hidden", ""},
		{".hidden", ""},
		{"x.lock", ""},
		{"a/x.lock/b", ""},
		{"ends.", ""},
		{"has space", ""},
		{"tilde~1", ""},
		{"caret^", ""},
		{"colon:x", ""},
		{"q?", ""},
		{"star*", ""},
		{"br[acket", ""},
		{`back\slash`, ""},
		{"at@{brace", ""},
		{"ctl\x01", ""},
		{"del\x7f", ""},
		{"pipe|x", ""}, // valid for git, but not storable as a directory name
		{"con", ""},    // a Windows device name
		{"a/<b>", ""},  // reserved on Windows
		{`quo"te`, ""}, // reserved on Windows
	}
	for _, tc := range cases {
		dir, err := memorybank.BranchDir(tc.name)
		if tc.dir == "" {
			var be *memorybank.BranchError
			if assert.ErrorAs(t, err, &be, "branch %q", tc.name) {
				assert.ErrorIs(t, err, memorybank.ErrInvalidBranch)
				assert.Equal(t, tc.name, be.Branch)
				assert.NotEmpty(t, be.Reason)
			}
			assert.ErrorIs(t, memorybank.ValidateBranch(tc.name), memorybank.ErrInvalidBranch)
			continue
		}
		require.NoError(t, err, "branch %q", tc.name)
		assert.Equal(t, tc.dir, dir)
		assert.NoError(t, memorybank.ValidateBranch(tc.name))
	}
}

func TestBranchCollision(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/foo", Path: "notes.md", Text: ("x")})
		// The directory records its branch.
		obj, err := store.Get(ctx, "branch-memory-bank/feature-foo/.branch.json")
		require.NoError(t, err)
		assert.JSONEq(t, `{"branch":"feature/foo"}`, string(obj.Data))

		// Another Bank (another process) with the colliding name is refused,
		// for reads, writes, lists and searches alike.
		other := newBank(store)
		before := snapshot(t, store)
		_, err = other.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature-foo", Path: "notes.md", Text: ("y")})
		var be *memorybank.BranchError
		require.ErrorAs(t, err, &be)
		assert.ErrorIs(t, err, memorybank.ErrBranchCollision)
		assert.Equal(t, "feature/foo", be.Owner)
		assert.Equal(t, "feature-foo", be.Dir)
		assert.Contains(t, err.Error(), `holds the memory of branch "feature/foo"`)
		assert.Equal(t, before, snapshot(t, store))
		_, err = other.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeBranch, Branch: "feature-foo", Path: "notes.md"})
		assert.ErrorIs(t, err, memorybank.ErrBranchCollision)
		_, err = other.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeBranch, Branch: "feature-foo"})
		assert.ErrorIs(t, err, memorybank.ErrBranchCollision)
		_, err = other.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "feature-foo"})
		assert.ErrorIs(t, err, memorybank.ErrBranchCollision)
		_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature-foo", Path: "n.md", Text: ("y")})
		assert.ErrorIs(t, err, memorybank.ErrBranchCollision, "the same Bank refuses it too")

		// "main" is a branch like any other.
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "main", Path: "notes.md", Text: ("m")})
		assert.Equal(t, "m", mustRead(t, other, memorybank.ScopeBranch, "main", "notes.md").Text())

		names, err := other.Branches(ctx)
		require.NoError(t, err)
		assert.Equal(t, []string{"feature/foo", "main"}, names)
	})
}

// A directory of an existing bank without a marker is claimed by the first
// branch that writes to it.
func TestBranchClaimsLegacyDirectory(t *testing.T) {
	store := &memorybank.MemStore{}
	_, err := store.Put(ctx, "branch-memory-bank/feature-old/progress.md", []byte("# Progress\n"), memorybank.Condition{})
	require.NoError(t, err)
	b := newBank(store)
	assert.Equal(t, "# Progress\n", mustRead(t, b, memorybank.ScopeBranch, "feature-old", "progress.md").Text(), "reading claims nothing")
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/old", Path: "x.md", Text: ("x")})
	_, err = newBank(store).Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeBranch, Branch: "feature-old", Path: "progress.md"})
	assert.ErrorIs(t, err, memorybank.ErrBranchCollision)
}
