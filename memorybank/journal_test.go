package memorybank_test

import (
	"context"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// auditJournal is a host's own journal: it keeps what it is given, and
// checks that it is called while the document's lock is held.
type auditJournal struct {
	bank    *memorybank.Bank
	mu      sync.Mutex
	changes []memorybank.Change
	patches []jsonpatch.Patch
	free    []bool // the document's lock was free during Record
}

func (j *auditJournal) Record(ctx context.Context, store memorybank.Store, c *memorybank.Change) {
	fwd, _, err := c.Patches(1 << 20)
	// With an expired context, taking a free lock succeeds about every
	// other try and a held one never does.
	expired, cancel := context.WithTimeout(ctx, 0)
	defer cancel()
	var lerr error
	for range 32 {
		var unlock func()
		if unlock, lerr = j.bank.LockDocument(expired, c.Key); lerr == nil {
			unlock()
			break
		}
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if err == nil {
		j.patches = append(j.patches, fwd)
	}
	j.changes = append(j.changes, *c)
	j.free = append(j.free, lerr == nil)
}

// A Bank hands its journal every write and delete, under the document's
// lock, with the change computable as a patch.
func TestJournalGetsEveryChange(t *testing.T) {
	j := &auditJournal{}
	b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: j})
	j.bank = b
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"n":1}`), Actor: "me", Reason: "start"})
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Patches: jsonpatch.Patch{op("replace", "/content/n", "2")}})
	require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: "p.json", Reason: "done"}))

	require.Len(t, j.changes, 3)
	c := j.changes
	assert.Equal(t, memorybank.Location{Scope: g, Path: "p.json", Prefix: memorybank.GlobalPrefix, Key: memorybank.GlobalPrefix + "p.json"}, c[0].Location)
	assert.Equal(t, []int64{1, 2, 3}, []int64{c[0].Version, c[1].Version, c[2].Version})
	assert.True(t, c[0].Created)
	assert.Equal(t, "me", c[0].Actor)
	assert.Equal(t, "start", c[0].Reason)
	assert.True(t, c[2].Deleted)
	assert.Equal(t, []bool{false, false, false}, j.free, "Record runs under the document's lock")
	require.Len(t, j.patches, 3)
	assert.Equal(t, "add", j.patches[0][0].Op, "a creation adds the whole document")
	assert.Equal(t, "/content/n", j.patches[1][0].Path, "a patch write is its operations")
	assert.Nil(t, j.patches[2], "a delete has no forward patch")
}

// Without a journal no history is written, and a delete still consumes a
// version: a re-created document continues after it.
func TestNoJournalRecordsNoHistory(t *testing.T) {
	store := &memorybank.MemStore{}
	b := memorybank.New(store, nil)
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"n":1}`)})
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"n":2}`)})
	require.NoError(t, b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: "p.json"}))
	res := mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"n":3}`)})
	assert.Equal(t, int64(4), res.Version, "versions never repeat")
	var keys []string
	for obj, err := range store.List(ctx, ".history/") {
		require.NoError(t, err)
		keys = append(keys, obj.Key)
	}
	require.Len(t, keys, 1, "only the tombstone: %v", keys)
	assert.Contains(t, keys[0], "/deleted.json")
}
