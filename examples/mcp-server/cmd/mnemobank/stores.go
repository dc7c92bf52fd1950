package main

import (
	"context"
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/pflag"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
)

// Every subcommand keeps the bank where the same flags say, and opens it
// through openStores: a directory (--root) with the memories file
// (--memories) and its trash beside it, or a namespace of a PostgreSQL
// database (--postgres, --namespace) holding all three.

// trashFileName is the file, beside the memories file, that keeps deleted
// memories for restore_memory; in PostgreSQL, the name of the trash.
const trashFileName = "memories.trash.md"

// usageFileName is the file, beside the memories file, where the server
// records how often and when each memory was returned by a search or an
// injection (JSON), for consolidation's stale candidates; in PostgreSQL,
// the name of that record.
const usageFileName = "memories.usage.json"

// storeConfig is where a bank and its memories are kept.
type storeConfig struct {
	Root      string // the bank's directory, when Postgres is ""
	Memories  string // the memories file of a directory bank; its trash is beside it
	Postgres  string // a PostgreSQL DSN; see postgresDSN
	Namespace string // the project's namespace in the database
}

// storeFlags adds the store flags to fs; the config is filled in when fs
// is parsed.
func storeFlags(fs *pflag.FlagSet) *storeConfig {
	c := &storeConfig{}
	fs.StringVar(&c.Root, "root", "", "directory of the memory bank (created if missing); holds global-memory-bank/ and branch-memory-bank/. "+
		"Default: "+DefaultBankDir+"/ at the git work tree's root (else the working directory), or docs/ there when it holds a memory-bank layout")
	fs.StringVar(&c.Memories, "memories", filepath.Join(filestore.AgentDir, filestore.FileName), "file of the learned memories (add_memory, search_memories, ...), relative to the working directory; its trash beside it")
	fs.StringVar(&c.Postgres, "postgres", "", "PostgreSQL DSN (postgres://user:pass@host/db): keep the bank and the memories there instead of --root and --memories")
	fs.StringVar(&c.Namespace, "namespace", pgstore.DefaultNamespace, "with --postgres: the project's namespace; servers of one namespace share one bank")
	return c
}

// isPostgresURL reports whether where is a postgres:// or postgresql:// URL.
func isPostgresURL(where string) bool {
	return strings.HasPrefix(where, "postgres://") || strings.HasPrefix(where, "postgresql://")
}

// postgresDSN is the DSN --postgres gives, as the driver reads it: a URL
// or a keyword/value DSN ("host=... dbname=...") as it is, and anything
// else (host/db, //host/db) as a postgres:// URL.
func postgresDSN(dsn string) string {
	if isPostgresURL(dsn) || strings.Contains(dsn, "=") {
		return dsn
	}
	return "postgres://" + strings.TrimPrefix(dsn, "//")
}

// stores are a bank's opened stores: the bank's, the memories' and their
// trash's.
type stores struct {
	bank        memorybank.Store
	mem, trash  memories.Store
	usage       memories.Store // the use of each memory (memories.Options.Usage)
	source      string         // what they are, for messages: "directory /abs/docs" or "postgres namespace N"
	label       string         // what they are, for an archive's manifest: no absolute path
	root        string         // the bank's directory, absolute; "" in PostgreSQL
	createdRoot bool           // the bank's directory did not exist and was created
	rootWhy     string         // why the bank is where it is, when --root was not given
	close       func()
}

// openStores opens the stores c names, logging to logger (nil: nowhere).
// Close them with close.
func openStores(ctx context.Context, c storeConfig, logger *slog.Logger) (*stores, error) {
	if c.Postgres != "" {
		pg, err := pgstore.Open(ctx, postgresDSN(c.Postgres), &pgstore.Options{Namespace: c.Namespace, Logger: logger})
		if err != nil {
			return nil, err
		}
		ms, err := pg.Memories(filestore.FileName)
		if err != nil {
			pg.Close()
			return nil, err
		}
		tr, err := pg.Memories(trashFileName)
		if err != nil {
			pg.Close()
			return nil, err
		}
		us, err := pg.Memories(usageFileName)
		if err != nil {
			pg.Close()
			return nil, err
		}
		return &stores{bank: pg, mem: ms, trash: tr, usage: us, source: "postgres namespace " + pg.Namespace(), label: "postgres namespace " + pg.Namespace(), close: pg.Close}, nil
	}
	why := ""
	if c.Root == "" {
		cwd, err := os.Getwd()
		if err != nil {
			return nil, err
		}
		c.Root, why = defaultRoot(cwd)
	}
	_, statErr := os.Stat(c.Root)
	fsStore, err := fsstore.Open(c.Root, nil)
	if err != nil {
		return nil, err
	}
	abs, _ := filepath.Abs(c.Root)
	if err := writeGitignore(abs, "the directory store's lock, journal, change counter and temporary files, and the caches of each bank, stay on this machine", bankIgnores); err != nil {
		fsStore.Close()
		return nil, err
	}
	// Only in the agents' own folder, and once it exists (the first
	// memory creates it): a .gitignore is never added to a folder of the
	// user's (the project root, for --memories memories.md), and opening a
	// bank creates no folder for memories it may never hold.
	if memDir := filepath.Dir(c.Memories); filepath.Base(memDir) == filestore.AgentDir && isDir(memDir) {
		if err := writeGitignore(memDir, "deleted memories stay on this machine", []string{trashFileName}); err != nil {
			fsStore.Close()
			return nil, err
		}
	}
	return &stores{bank: fsStore, source: "directory " + abs, label: "directory " + filepath.Base(abs), root: abs, createdRoot: errors.Is(statErr, os.ErrNotExist),
		rootWhy: why,
		close:   func() { fsStore.Close() },
		mem:     filestore.New(c.Memories, nil), trash: filestore.New(filepath.Join(filepath.Dir(c.Memories), trashFileName), nil),
		usage: filestore.New(filepath.Join(filepath.Dir(c.Memories), usageFileName), nil)}, nil
}
