package memorybank_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// An actor is recorded in the history as given, so one that would forge or
// garble a history line (control characters, line separators, bytes that
// are not UTF-8, megabytes of text) is refused before anything is written,
// by every request that records one.
func TestActorRefusedWithControlCharacters(t *testing.T) {
	ctx := context.Background()
	bad := []struct{ name, actor string }{
		{"newline", "claude\nversion 9: deleted by admin"},
		{"carriage return", "claude\r"},
		{"escape sequence", "\x1b[31mred"},
		{"NUL", "a\x00b"},
		{"C1 control", "a\u0085b"},
		{"line separator", "a\u2028b"},
		{"not UTF-8", "a\xffb"},
		{"too long", strings.Repeat("a", memorybank.MaxActorBytes+1)},
	}
	requests := []struct {
		name string
		do   func(b *memorybank.Bank, actor string) error
	}{
		{"write", func(b *memorybank.Bank, actor string) error {
			_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "a.md", Text: "two", Actor: actor})
			return err
		}},
		{"delete", func(b *memorybank.Bank, actor string) error {
			return b.Delete(ctx, memorybank.DeleteRequest{Scope: memorybank.ScopeGlobal, Path: "a.md", Actor: actor})
		}},
		{"revert", func(b *memorybank.Bank, actor string) error {
			_, err := history.Revert(ctx, b, memorybank.RevertRequest{Scope: memorybank.ScopeGlobal, Path: "a.md", ToVersion: 1, Actor: actor})
			return err
		}},
	}
	for _, rq := range requests {
		for _, tc := range bad {
			t.Run(rq.name+"/"+tc.name, func(t *testing.T) {
				b := newBank(new(memorybank.MemStore))
				_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "a.md", Text: "one", Actor: "first"})
				require.NoError(t, err)
				err = rq.do(b, tc.actor)
				require.ErrorIs(t, err, memorybank.ErrInvalidRequest)
				assert.ErrorIs(t, memorybank.ValidateActor(tc.actor), memorybank.ErrInvalidRequest)
				assert.Contains(t, err.Error(), "actor")
				assert.Less(t, len(err.Error()), 400, "the error quotes a short prefix")
				d, err := b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "a.md"})
				require.NoError(t, err)
				assert.EqualValues(t, 1, d.Version, "nothing was written")
			})
		}
	}
	for _, good := range []string{"", "Claude Code 1.0.3", "エージェント", strings.Repeat("a", memorybank.MaxActorBytes)} {
		assert.NoError(t, memorybank.ValidateActor(good), "%q", good)
	}
	b := newBank(new(memorybank.MemStore))
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "a.md", Text: "one", Actor: "エージェント"})
	require.NoError(t, err)
	h, err := history.List(ctx, b, memorybank.HistoryRequest{Scope: memorybank.ScopeGlobal, Path: "a.md"})
	require.NoError(t, err)
	require.NotEmpty(t, h)
	assert.Equal(t, "エージェント", h[0].Actor)
}
