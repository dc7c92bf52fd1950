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
