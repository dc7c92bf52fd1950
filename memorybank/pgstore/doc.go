// Package pgstore keeps a memory bank in PostgreSQL, for teams whose agents
// run on many machines (CI runners, several laptops, a hosted fleet) and
// need one shared bank with the guarantees of a single one: no lost
// updates, nothing torn, every agent sees the latest version.
//
// [Store] implements [memorybank.Store]; [MemoriesStore] implements
// [memories.Store], [memories.Appender], [memories.CondAppender] and
// [memories.Sizer] on the same database, so a team shares learned memories
// too.
//
//	s, err := pgstore.Open(ctx, os.Getenv("MNEMOBANK_PG_DSN"), &pgstore.Options{Namespace: "team-a"})
//	...
//	defer s.Close()
//	bank := memorybank.New(s, nil)
//	mem, err := s.Memories("memories.md")
//
// It is a separate module, so the root module never depends on a database
// driver. It does I/O only through the pgx pool it is given or opens.
//
// # Storage
//
// One row per key in a table (default "mnemobank_objects"; see
// [Options.Table]) with the primary key (namespace, key), where key is text
// COLLATE "C". Memories files are rows (namespace, name) of a second table
// (default "mnemobank_memories"). Both are created on first use (or by
// [Store.Migrate], or by [Open]) by migrations recorded in
// "mnemobank_schema_versions", applied in one transaction holding an
// advisory lock, so processes starting at once on an empty database do not
// race. A table migrated by a newer pgstore is refused rather than misused,
// also by a process that was already running when the newer one migrated
// (a rolling upgrade): every statement names the table's schema marker, a
// function "<table>_schema_v<version>" returning true, which PostgreSQL
// folds away when planning (so it costs nothing per execution) but which
// the migration to the next version drops; the next execution of an old
// statement then fails before it reads or writes, and the Store, reading
// the recorded version on that error path, returns a [*SchemaError]
// wrapping [ErrSchemaNewer]: never stale data or a raw SQL error. Every
// release keeps that rule: migrating a table to version N+1 drops the
// markers of versions up to N.
// A table dropped by hand (its version row kept) is created again, empty: by
// the migration of the next Store, and by a running Store on the call after
// the one that found it missing. A table of the configured name that
// pgstore did not create (no version row) is refused with an error saying
// so, never adopted.
//
// A memories file is its row (the text as of the last Save) followed by one
// row per Append since ("<memories table>_entries"), so an add writes one
// small row, not a new version of the whole file; Load joins them, and a
// Save writes the row and drops the entries in one statement.
//
// The Store is a [memorybank.ChangeCounter]: a third table ("<table>_changes")
// holds each namespace's count in 64 rows, one of which the same statement
// as every Put and Delete that changed a row increments, so a Bank in any
// process on any machine learns with one short index scan whether anybody
// wrote, instead of listing the bank. A Store spreads its concurrent writes
// over the rows, so writers of distinct documents do not queue on one row
// lock; it is a [memorybank.ChangeNotifier] too (PostgreSQL LISTEN/NOTIFY:
// since any role may NOTIFY, a notification only makes the watcher read the
// count, at most once per [WatchCheckInterval], and it signals only when
// the count moved, so a flood costs a read per interval and no refresh),
// and a [memorybank.KeyLocker] (advisory locks), so writers of one document
// wait for each other instead of retrying.
//
// An advisory lock's key can be computed, and any role of the database may
// take it (no rights on the tables are needed); a stopped server holds its
// locks too. So [Store.LockKey] waits at most [Options.LockWait] at the
// database (lock_timeout) and returns [ErrLockTimeout]: a Bank then writes
// under compare-and-swap alone, the documented fallback, which loses
// nothing. The Store logs a warning naming the lock and the sessions that
// hold it (pid and role) through [Options.Logger], and for ten times
// LockWait only tries that lock once instead of waiting, so writers of the
// document do not each wait in turn.
//
// # Decisions where the contract is silent
//
//   - Versions are the decimal values of a per-table sequence, taken on
//     every write; they never repeat within a table, so a key deleted and
//     written again never gets back a version a caller may still hold.
//   - Every compare-and-swap is one statement: Put is an upsert, INSERT ...
//     ON CONFLICT DO NOTHING (IfAbsent) or UPDATE ... WHERE version = $v
//     (IfVersion); Delete is DELETE ... WHERE version = $v. Only when such a
//     statement changes nothing does the store read the key again, to say in
//     the error whether it was missing (ErrNotFound) or at which version it
//     is (ErrConflict).
//   - List reads pages of 1000 keys, each an index range scan of the
//     primary key (key >= prefix AND key < successor-of-prefix, in byte
//     order), and holds no connection while the caller's loop body runs.
//     Keys written during a List may or may not be seen. A prefix that no
//     valid key can start with (NUL, or bytes that are not UTF-8 other than
//     a character cut off at its end) yields nothing without a query.
//   - ModTime is the server's clock (clock_timestamp()), the same for every
//     machine.
//   - Contract errors (memorybank.ErrNotFound, ErrConflict, ErrInvalidKey,
//     ErrInvalidCondition, memories.ErrConflict) are returned as the
//     in-memory stores return them; database failures come as [*OpError].
//   - Table names are plain lower-case identifiers; to use another schema,
//     set search_path in the DSN. SchemaTable and names ending in
//     "_version_seq" (pgstore's sequences) are refused, as is one table for
//     both Table and MemoriesTable. Namespaces are any UTF-8 text without
//     control characters. A memories file name follows the key rules.
//   - Cancellation: [ParseConfig] (used by [Open]) makes a cancelled
//     context cancel the statement on the server and wait for its answer,
//     so a write that fails was not applied; pgx's default would drop the
//     connection and let the server apply the write later.
//   - Append sends only the entry (data = data || entry on the server);
//     PostgreSQL still writes a new version of the row, so an append costs
//     server-side I/O in the size of the file.
//
// # Testing
//
// The tests need a PostgreSQL server whose DSN is in MNEMOBANK_PG_DSN;
// without it they skip, saying so. `bash .ci/run` installs PostgreSQL if
// needed and starts a throwaway server (see .ci/postgres.sh) whose test
// database's default collation is ICU "en", not byte order, so that the
// List tests fail if the columns' COLLATE "C" goes missing. Only
// PostgreSQL 15 is tested. The tests run
// [github.com/mnemobank/mnemobank/memorybank/storetest.TestStore] and
// the memories conformance suite against the server, check with EXPLAIN
// that List is an index scan, and run two OS processes that increment one
// document through a memorybank.Bank, and append to one memories file,
// 200 times each.
package pgstore
