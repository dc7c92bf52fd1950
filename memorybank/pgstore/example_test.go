package pgstore_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"os"

	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// A team's shared memory bank: every agent opens the same database and
// namespace. (Not run by go test: it needs a server.)
func ExampleOpen() {
	ctx := context.Background()
	s, err := pgstore.Open(ctx, os.Getenv("MNEMOBANK_PG_DSN"), &pgstore.Options{Namespace: "team-a"})
	if err != nil {
		log.Fatal(err)
	}
	defer s.Close()

	bank := memorybank.New(s, nil)
	res, err := bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeGlobal,
		Path:  "decisions.md",
		Text:  "# Decisions\n\n- PostgreSQL for shared memory\n",
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("version", res.Version)

	// The team's learned memories, on the same database.
	mem, err := s.Memories("memories.md")
	if err != nil {
		log.Fatal(err)
	}
	if _, _, err := mem.Append(ctx, []byte("# Memories\n\n"), []byte("- run go test -race before pushing\n")); err != nil {
		log.Fatal(err)
	}
}

// Sharing a pool the program already has: build it with ParseConfig so
// that cancelled writes are cancelled on the server too.
func ExampleNew() {
	ctx := context.Background()
	cfg, err := pgstore.ParseConfig(os.Getenv("MNEMOBANK_PG_DSN"))
	if err != nil {
		log.Fatal(err)
	}
	cfg.MaxConns = 8
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		log.Fatal(err)
	}
	defer pool.Close()

	s, err := pgstore.New(pool, &pgstore.Options{Table: "ci_memory", Namespace: "repo/mnemobank"})
	if err != nil {
		log.Fatal(err)
	}
	obj, err := s.Put(ctx, "global-memory-bank/ci.json", json.RawMessage(`{"flaky":[]}`), memorybank.Condition{IfAbsent: true})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(obj.Key)
}
