package pgtokens_test

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"os"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens/pgtokens"
	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens/tokenstest"
)

// Pool is a pool on the database MNEMOBANK_PG_DSN names; the test is
// skipped without one.
func pool(t *testing.T) *pgxpool.Pool {
	dsn := os.Getenv("MNEMOBANK_PG_DSN")
	if dsn == "" {
		t.Skip("MNEMOBANK_PG_DSN is not set: no PostgreSQL server to test against")
	}
	p, err := pgxpool.New(context.Background(), dsn)
	require.NoError(t, err)
	t.Cleanup(p.Close)
	return p
}

func namespace() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "test-" + hex.EncodeToString(b[:])
}

func TestStore(t *testing.T) {
	tokenstest.TestStore(t, pgtokens.New(pool(t), namespace()))
}
