package tokens_test

import (
	"bytes"
	"context"
	"log/slog"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
)

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func TestAuthenticator(t *testing.T) {
	ctx := context.Background()
	c := &clock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	st := &tokens.MemStore{}
	var logs bytes.Buffer
	a := tokens.NewAuthenticator(st, &tokens.AuthOptions{AdminToken: "shared-secret-shared-secret-12345", Now: c.now,
		Logger: slog.New(slog.NewTextHandler(&logs, nil))})
	text, _, err := tokens.New(ctx, st, "alice", tokens.ScopeRead, time.Hour, c.t)
	require.NoError(t, err)

	id, err := a.Verify(ctx, text, "1.2.3.4")
	require.NoError(t, err)
	assert.Equal(t, tokens.Identity{Name: "alice", Scope: tokens.ScopeRead, Expires: c.t.Add(time.Hour)}, id)
	id, err = a.Verify(ctx, "shared-secret-shared-secret-12345", "1.2.3.4")
	require.NoError(t, err)
	assert.Equal(t, tokens.AdminName, id.Name)
	assert.Equal(t, tokens.ScopeAdmin, id.Scope)

	// Last use is written, then not again within a minute.
	got, _ := st.Lookup(ctx, tokens.Hash(text))
	assert.True(t, got.LastUsed.Equal(c.t))
	c.t = c.t.Add(30 * time.Second)
	_, err = a.Verify(ctx, text, "1.2.3.4")
	require.NoError(t, err)
	got, _ = st.Lookup(ctx, tokens.Hash(text))
	assert.True(t, got.LastUsed.Equal(c.t.Add(-30*time.Second)))

	// A revocation is seen once the cache entry is older than CacheTTL.
	require.NoError(t, st.Revoke(ctx, "alice", c.t))
	c.t = c.t.Add(tokens.DefaultCacheTTL)
	_, err = a.Verify(ctx, text, "1.2.3.4")
	assert.ErrorIs(t, err, tokens.ErrRevoked)

	// An expired token is refused.
	bob, _, err := tokens.New(ctx, st, "bob", tokens.ScopeWrite, time.Minute, c.t)
	require.NoError(t, err)
	c.t = c.t.Add(time.Minute)
	_, err = a.Verify(ctx, bob, "5.6.7.8")
	assert.ErrorIs(t, err, tokens.ErrExpired)

	assert.NotContains(t, logs.String(), text)
	assert.NotContains(t, logs.String(), bob)
}

// Guessing is limited per client: after MaxFailures failures even the
// right token is refused until the window ends; other clients are not
// affected.
func TestAuthenticatorRateLimit(t *testing.T) {
	ctx := context.Background()
	c := &clock{time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)}
	st := &tokens.MemStore{}
	a := tokens.NewAuthenticator(st, &tokens.AuthOptions{Now: c.now, MaxFailures: 3, FailWindow: time.Minute})
	good, _, err := tokens.New(ctx, st, "alice", tokens.ScopeRead, 0, c.t)
	require.NoError(t, err)
	for range 3 {
		_, err := a.Verify(ctx, "mnb_guess", "9.9.9.9")
		require.ErrorIs(t, err, tokens.ErrInvalid)
	}
	_, err = a.Verify(ctx, good, "9.9.9.9")
	var rl *tokens.RateLimitError
	require.ErrorAs(t, err, &rl)
	assert.Equal(t, time.Minute, rl.RetryAfter)
	_, err = a.Verify(ctx, good, "1.1.1.1")
	require.NoError(t, err)
	c.t = c.t.Add(time.Minute)
	_, err = a.Verify(ctx, good, "9.9.9.9")
	require.NoError(t, err)
}

// spyStore records what the authenticator asks a store for.
type spyStore struct {
	tokens.MemStore
	asked []string
}

func (s *spyStore) Lookup(ctx context.Context, hash string) (tokens.Token, error) {
	s.asked = append(s.asked, hash)
	return s.MemStore.Lookup(ctx, hash)
}

// Timing: a presented token is hashed before anything compares it, so a
// store (and the comparison of the shared token) only ever sees a
// fixed-length SHA-256 that shares no prefix with the guess; a guess
// closer to a good token takes no different path.
func TestVerifyComparesOnlyHashes(t *testing.T) {
	ctx := context.Background()
	st := &spyStore{}
	good, _, err := tokens.New(ctx, st, "alice", tokens.ScopeRead, 0, time.Now())
	require.NoError(t, err)
	a := tokens.NewAuthenticator(st, &tokens.AuthOptions{AdminToken: "shared-secret-shared-secret-12345", MaxFailures: 100})
	near := good[:len(good)-1] + "A"
	if near == good {
		near = good[:len(good)-1] + "B"
	}
	for _, guess := range []string{near, "x", good[:10], "shared-secret-shared-secret-1234"} {
		_, err := a.Verify(ctx, guess, "1.2.3.4")
		require.ErrorIs(t, err, tokens.ErrInvalid, guess)
	}
	require.Len(t, st.asked, 4)
	for _, h := range st.asked {
		assert.Len(t, h, 64)
		assert.NotContains(t, h, good[:8])
	}
	assert.Equal(t, tokens.Hash(near), st.asked[0])
}
