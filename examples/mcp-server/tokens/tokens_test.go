package tokens_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens/tokenstest"
)

func TestMemStore(t *testing.T) { tokenstest.TestStore(t, &tokens.MemStore{}) }

func TestFileStore(t *testing.T) {
	path := filepath.Join(t.TempDir(), tokens.FileName)
	st := &tokens.FileStore{Path: path}
	tokenstest.TestStore(t, st)
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
}

// The clear token is nowhere in what a store keeps.
func TestFileStoreKeepsNoClearToken(t *testing.T) {
	path := filepath.Join(t.TempDir(), tokens.FileName)
	text, _, err := tokens.New(context.Background(), &tokens.FileStore{Path: path}, "alice", tokens.ScopeRead, 0, time.Now())
	require.NoError(t, err)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.NotContains(t, string(data), text)
	assert.NotContains(t, string(data), strings.TrimPrefix(text, tokens.Prefix))
	assert.Contains(t, string(data), tokens.Hash(text))
}

func TestParseScope(t *testing.T) {
	for _, s := range []tokens.Scope{tokens.ScopeRead, tokens.ScopeWrite, tokens.ScopeAdmin} {
		got, err := tokens.ParseScope(s.String())
		require.NoError(t, err)
		assert.Equal(t, s, got)
	}
	_, err := tokens.ParseScope("root")
	assert.ErrorIs(t, err, tokens.ErrScope)
	assert.True(t, tokens.ScopeAdmin.Allows(tokens.ScopeWrite))
	assert.False(t, tokens.ScopeRead.Allows(tokens.ScopeWrite))
}

// The shared token's name is not given to a personal token: the history
// could not tell their writes apart, and a write token may revert what
// its name wrote.
func TestNewRefusesTheSharedTokensName(t *testing.T) {
	st := &tokens.MemStore{}
	_, _, err := tokens.New(context.Background(), st, tokens.AdminName, tokens.ScopeWrite, 0, time.Now())
	require.ErrorIs(t, err, tokens.ErrName)
	assert.Contains(t, err.Error(), "MNEMOBANK_TOKEN")
	list, err := st.List(context.Background())
	require.NoError(t, err)
	assert.Empty(t, list)
}

// VerifyHash, which a session holding the hash uses, judges the token as
// Verify does: the shared token, a personal one, and a revoked one after
// the cache.
func TestVerifyHash(t *testing.T) {
	ctx := context.Background()
	c := &clock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	st := &tokens.MemStore{}
	a := tokens.NewAuthenticator(st, &tokens.AuthOptions{AdminToken: "shared-secret-shared-secret-12345", Now: c.now})
	text, _, err := tokens.New(ctx, st, "alice", tokens.ScopeWrite, 0, c.t)
	require.NoError(t, err)
	id, err := a.VerifyHash(ctx, tokens.Hash(text), "1.2.3.4")
	require.NoError(t, err)
	assert.Equal(t, "alice", id.Name)
	id, err = a.VerifyHash(ctx, tokens.Hash("shared-secret-shared-secret-12345"), "1.2.3.4")
	require.NoError(t, err)
	assert.Equal(t, tokens.AdminName, id.Name)
	_, err = a.VerifyHash(ctx, text, "1.2.3.4")
	assert.ErrorIs(t, err, tokens.ErrInvalid, "the token itself is not its hash")
	require.NoError(t, st.Revoke(ctx, "alice", c.t))
	c.t = c.t.Add(tokens.DefaultCacheTTL)
	_, err = a.VerifyHash(ctx, tokens.Hash(text), "1.2.3.4")
	assert.ErrorIs(t, err, tokens.ErrRevoked)
}
