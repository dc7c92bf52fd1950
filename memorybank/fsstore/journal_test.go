package fsstore_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// setFile stands for what a power failure can leave of a key: data with
// modification time mt.
func setFile(t *testing.T, dir, key string, data []byte, mt time.Time) {
	t.Helper()
	name := filepath.Join(dir, filepath.FromSlash(key))
	require.NoError(t, os.MkdirAll(filepath.Dir(name), 0o755))
	require.NoError(t, os.WriteFile(name, data, 0o644))
	require.NoError(t, os.Chtimes(name, mt, mt))
}

// After a power failure, files may hold what they held before writes that
// had returned (the renames were not synced); Open replays the journal:
// each key gets its last write back, deleted keys go, and a file changed
// by another program after the write is kept.
func TestJournalReplaysAfterAPowerFailure(t *testing.T) {
	if !fsstore.JournalSupported {
		t.Skip("no write-ahead journal on this system: every write syncs its file and directory")
	}
	dir := t.TempDir()
	s := open(t, dir, nil)
	v1, err := s.Put(ctx, "a/doc.json", []byte(`{"v":1}`), memorybank.Condition{})
	require.NoError(t, err)
	v2, err := s.Put(ctx, "a/doc.json", []byte(`{"v":2}`), memorybank.Condition{})
	require.NoError(t, err)
	gone, err := s.Put(ctx, "gone.json", []byte(`{"gone":true}`), memorybank.Condition{})
	require.NoError(t, err)
	require.NoError(t, s.Delete(ctx, "gone.json", memorybank.Condition{}))
	_, err = s.Put(ctx, "edited.json", []byte(`{"by":"store"}`), memorybank.Condition{})
	require.NoError(t, err)
	_, err = s.Put(ctx, "lost/new.json", []byte(`{"new":true}`), memorybank.Condition{})
	require.NoError(t, err)

	// What the crash left: the old a/doc.json, gone.json still there,
	// lost/ never reached the disk; edited.json was edited by hand after.
	setFile(t, dir, "a/doc.json", []byte(`{"v":1}`), v1.ModTime)
	setFile(t, dir, "gone.json", []byte(`{"gone":true}`), gone.ModTime)
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "lost")))
	setFile(t, dir, "edited.json", []byte(`{"by":"hand"}`), time.Now().Add(time.Hour))

	// In the same boot nothing was lost, so Open changes nothing: what
	// differs was done by another program.
	same := open(t, dir, nil)
	obj, err := same.Get(ctx, "a/doc.json")
	require.NoError(t, err)
	assert.JSONEq(t, `{"v":1}`, string(obj.Data), "an Open in the boot that wrote the journal replays nothing")

	fsstore.SimulateReboot(t)
	after := open(t, dir, nil)
	obj, err = after.Get(ctx, "a/doc.json")
	require.NoError(t, err)
	assert.JSONEq(t, `{"v":2}`, string(obj.Data), "the last write is back")
	assert.Equal(t, v2.ModTime, obj.ModTime, "with its modification time")
	_, err = after.Get(ctx, "gone.json")
	assert.ErrorIs(t, err, memorybank.ErrNotFound, "the delete is done again")
	obj, err = after.Get(ctx, "lost/new.json")
	require.NoError(t, err, "a write lost with its directory comes back")
	assert.JSONEq(t, `{"new":true}`, string(obj.Data))
	obj, err = after.Get(ctx, "edited.json")
	require.NoError(t, err)
	assert.JSONEq(t, `{"by":"hand"}`, string(obj.Data), "an edit made after the write is kept")

	fi, err := os.Stat(filepath.Join(dir, fsstore.JournalFileName))
	require.NoError(t, err)
	assert.Zero(t, fi.Size(), "once the repairs are durable, the journal is emptied")
	for range after.List(ctx, "") {
	}
	_, err = after.Get(ctx, fsstore.JournalFileName)
	assert.ErrorIs(t, err, memorybank.ErrInvalidKey, "the journal is not a key")
}

// childJournalKill writes old.json, then starts a write of new content and
// SIGKILLs itself right after the journal append, before the rename.
func childJournalKill(dir string) int {
	s, err := fsstore.Open(dir, nil)
	if err != nil {
		return 1
	}
	if _, err := s.Put(ctx, "k.json", []byte(`"old"`), memorybank.Condition{}); err != nil {
		return 1
	}
	fsstore.SetAfterJournal(s, func() {
		// SIGKILL where there are signals: nothing of the process runs on.
		if p, err := os.FindProcess(os.Getpid()); err == nil {
			_ = p.Kill()
		}
	})
	_, _ = s.Put(ctx, "k.json", []byte(`"new"`), memorybank.Condition{})
	return 1 // not reached
}

// A writer SIGKILLed between its journal append and its rename leaves the
// key as it was (the write never returned); if the machine then fails, the
// journal holds the write and Open completes it, whole.
func TestJournalCompletesAWriteKilledBeforeItsRename(t *testing.T) {
	if !fsstore.JournalSupported {
		t.Skip("no write-ahead journal on this system: every write syncs its file and directory")
	}
	dir := t.TempDir()
	cmd := child(t, "journalkill", dir)
	err := cmd.Run()
	var exitErr *exec.ExitError
	require.ErrorAs(t, err, &exitErr, "child: %s", cmd.Stderr)
	require.False(t, exitErr.Exited(), "the child exited with %d instead of being killed: %s", exitErr.ExitCode(), cmd.Stderr)

	s := open(t, dir, nil)
	obj, err := s.Get(ctx, "k.json")
	require.NoError(t, err)
	assert.Equal(t, `"old"`, string(obj.Data), "the killed write did not reach the key")

	fsstore.SimulateReboot(t)
	s = open(t, dir, nil)
	obj, err = s.Get(ctx, "k.json")
	require.NoError(t, err)
	assert.Equal(t, `"new"`, string(obj.Data), "after a power failure the journalled write is completed")
	_, err = s.Put(ctx, "k.json", []byte(`"next"`), memorybank.Condition{IfVersion: obj.Version})
	require.NoError(t, err, "the store is writable after recovery")
}

// A write through the Ordered view is journalled, so a power failure after
// the next durable write keeps both: a delete's tombstone rides on the
// delete.
func TestOrderedWriteRidesOnTheNextDurableOne(t *testing.T) {
	if !fsstore.JournalSupported {
		t.Skip("no write-ahead journal on this system: every write syncs its file and directory")
	}
	dir := t.TempDir()
	s := open(t, dir, nil)
	doc, err := s.Put(ctx, "doc.json", []byte(`{"v":1}`), memorybank.Condition{})
	require.NoError(t, err)
	_, err = s.Ordered().Put(ctx, "tomb/doc.json", []byte(`{"version":2}`), memorybank.Condition{})
	require.NoError(t, err)
	require.NoError(t, s.Delete(ctx, "doc.json", memorybank.Condition{}))

	// The crash lost both renames.
	require.NoError(t, os.RemoveAll(filepath.Join(dir, "tomb")))
	setFile(t, dir, "doc.json", []byte(`{"v":1}`), doc.ModTime)
	fsstore.SimulateReboot(t)
	after := open(t, dir, nil)
	obj, err := after.Get(ctx, "tomb/doc.json")
	require.NoError(t, err, "the ordered write was journalled")
	assert.JSONEq(t, `{"version":2}`, string(obj.Data))
	_, err = after.Get(ctx, "doc.json")
	assert.ErrorIs(t, err, memorybank.ErrNotFound)
}
