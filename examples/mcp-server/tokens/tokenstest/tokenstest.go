// Package tokenstest is the conformance test of tokens.Store.
package tokenstest

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
)

// TestStore is the conformance suite every tokens.Store passes: a host
// runs it on a fresh, empty store of its own backend.
func TestStore(t *testing.T, st tokens.Store) {
	ctx := context.Background()
	now := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	text, tok, err := tokens.New(ctx, st, "alice", tokens.ScopeWrite, 90*24*time.Hour, now)
	require.NoError(t, err)
	assert.True(t, strings.HasPrefix(text, tokens.Prefix))
	assert.Equal(t, tokens.Hash(text), tok.Hash)

	got, err := st.Lookup(ctx, tokens.Hash(text))
	require.NoError(t, err)
	assert.Equal(t, "alice", got.Name)
	assert.Equal(t, tokens.ScopeWrite, got.Scope)
	assert.True(t, got.Expires.Equal(now.Add(90*24*time.Hour)))

	_, _, err = tokens.New(ctx, st, "alice", tokens.ScopeRead, 0, now)
	assert.ErrorIs(t, err, tokens.ErrExists)
	_, err = st.Lookup(ctx, tokens.Hash("mnb_guess"))
	assert.ErrorIs(t, err, tokens.ErrNotFound)
	assert.ErrorIs(t, st.Revoke(ctx, "nobody", now), tokens.ErrNotFound)

	require.NoError(t, st.Touch(ctx, "alice", now.Add(time.Minute)))
	require.NoError(t, st.Revoke(ctx, "alice", now.Add(2*time.Minute)))
	got, err = st.Lookup(ctx, tokens.Hash(text))
	require.NoError(t, err)
	assert.True(t, got.Revoked.Equal(now.Add(2*time.Minute)))
	assert.True(t, got.LastUsed.Equal(now.Add(time.Minute)))

	// A revoked name can be given a new token; the old one stays dead.
	text2, _, err := tokens.New(ctx, st, "alice", tokens.ScopeRead, 0, now)
	require.NoError(t, err)
	_, err = st.Lookup(ctx, tokens.Hash(text))
	assert.ErrorIs(t, err, tokens.ErrNotFound)
	_, _, err = tokens.New(ctx, st, "bob", tokens.ScopeAdmin, 0, now)
	require.NoError(t, err)
	list, err := st.List(ctx)
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, "alice", list[0].Name)
	assert.Equal(t, "bob", list[1].Name)
	assert.Equal(t, tokens.Hash(text2), list[0].Hash)

	_, _, err = tokens.New(ctx, st, "a b\n", tokens.ScopeRead, 0, now)
	assert.ErrorIs(t, err, tokens.ErrName)
}
