package ownrevert_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/ownrevert"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

var (
	alice  = tokens.Identity{Name: "alice", Scope: tokens.ScopeWrite}
	reader = tokens.Identity{Name: "reader", Scope: tokens.ScopeRead}
	admin  = tokens.Identity{Name: "carol", Scope: tokens.ScopeAdmin}
)

// writes stores notes.md once per actor, in order: version i+1 by
// actors[i].
func writes(t *testing.T, b *memorybank.Bank, actors ...string) {
	t.Helper()
	for i, a := range actors {
		_, err := b.Write(context.Background(), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md",
			Text: fmt.Sprintf("# Notes\n\nline %d\n", i+1), Actor: a})
		require.NoError(t, err)
	}
}

func newBank(o *memorybank.Options) *memorybank.Bank {
	if o == nil {
		o = &memorybank.Options{}
	}
	o.Language = memorybank.English
	if o.History == nil {
		o.History = history.New(nil)
	}
	return memorybank.New(&memorybank.MemStore{}, o)
}

func revert(to int64) memorybank.RevertRequest {
	return memorybank.RevertRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md", ToVersion: to}
}

func TestCheck(t *testing.T) {
	ctx := context.Background()
	b := newBank(nil)
	writes(t, b, "alice", "bob", "alice", "alice")

	req, err := ownrevert.Check(ctx, b, alice, revert(2))
	require.NoError(t, err, "versions 3 and 4 are alice's")
	assert.Equal(t, int64(4), req.IfVersion, "pinned to the version checked")

	_, err = ownrevert.Check(ctx, b, alice, revert(1))
	var de *ownrevert.DeniedError
	require.ErrorAs(t, err, &de)
	assert.ErrorIs(t, err, ownrevert.ErrDenied)
	assert.Equal(t, tokens.ScopeAdmin, de.Need)
	assert.Equal(t, []ownrevert.Version{{Version: 2, Actor: "bob"}}, de.Others)
	assert.Contains(t, err.Error(), `needs a token of scope admin`)
	assert.Contains(t, err.Error(), `version 2 was written by "bob"`)

	req, err = ownrevert.Check(ctx, b, admin, revert(1))
	require.NoError(t, err)
	assert.Zero(t, req.IfVersion, "an admin's revert is left as asked")

	_, err = ownrevert.Check(ctx, b, reader, revert(3))
	require.ErrorAs(t, err, &de)
	assert.Equal(t, tokens.ScopeWrite, de.Need)

	// Going back to the current version undoes nothing of anyone's.
	_, err = ownrevert.Check(ctx, b, tokens.Identity{Name: "bob", Scope: tokens.ScopeWrite}, revert(4))
	require.NoError(t, err)

	_, err = ownrevert.Check(ctx, b, alice, memorybank.RevertRequest{Scope: memorybank.ScopeGlobal, Path: "missing.md", ToVersion: 1})
	require.NoError(t, err, "nothing to undo: the revert itself reports the missing document")
}

// A write by someone else after the check makes the pinned revert fail
// rather than undo that write.
func TestCheckPinsTheVersion(t *testing.T) {
	ctx := context.Background()
	b := newBank(nil)
	writes(t, b, "bob", "alice")
	req, err := ownrevert.Check(ctx, b, alice, revert(1))
	require.NoError(t, err)
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md", Text: "# Notes\n\nbob again\n", Actor: "bob"})
	require.NoError(t, err)
	req.Actor = "alice"
	_, err = history.Revert(ctx, b, req)
	assert.ErrorIs(t, err, memorybank.ErrConflict)
	d, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md"})
	require.NoError(t, err)
	assert.Contains(t, d.Text(), "bob again")
}

// A document its writer deleted is restored by that writer; the pin
// holds for a deleted document too.
func TestCheckDeletedDocument(t *testing.T) {
	ctx := context.Background()
	b := newBank(nil)
	writes(t, b, "alice")
	err := b.Delete(ctx, memorybank.DeleteRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md", Actor: "alice"})
	require.NoError(t, err)
	req, err := ownrevert.Check(ctx, b, alice, revert(1))
	require.NoError(t, err)
	assert.Equal(t, int64(2), req.IfVersion)
	req.Actor = "alice"
	_, err = history.Revert(ctx, b, req)
	require.NoError(t, err)

	err = b.Delete(ctx, memorybank.DeleteRequest{Scope: memorybank.ScopeGlobal, Path: "notes.md", Actor: "bob"})
	require.NoError(t, err)
	_, err = ownrevert.Check(ctx, b, alice, revert(3))
	assert.ErrorIs(t, err, ownrevert.ErrDenied, "bob's delete is not alice's to undo")
}

// Versions the history no longer keeps have no known writer: reverting
// past them needs admin.
func TestCheckForgottenVersions(t *testing.T) {
	ctx := context.Background()
	b := newBank(&memorybank.Options{History: history.New(&history.Options{Versions: 2})})
	actors := make([]string, 16) // the history drops old entries 16 versions at a time
	for i := range actors {
		actors[i] = "alice"
	}
	writes(t, b, actors...)
	_, err := ownrevert.Check(ctx, b, alice, revert(15))
	require.NoError(t, err)
	_, err = ownrevert.Check(ctx, b, alice, revert(1))
	var de *ownrevert.DeniedError
	require.ErrorAs(t, err, &de)
	assert.NotEmpty(t, de.Unknown)
	assert.Contains(t, err.Error(), "writer is unknown")
}
