package history_test

// Helpers shared with memorybank's tests (a copy of the part of
// memorybank/helpers_test.go these tests use).

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// storeKinds are the stores every behaviour test runs on.
var storeKinds = []struct {
	name string
	open func(t *testing.T) memorybank.Store
}{
	{"MemStore", func(t *testing.T) memorybank.Store { return &memorybank.MemStore{} }},
	{"fsstore", func(t *testing.T) memorybank.Store {
		s, err := fsstore.Open(t.TempDir(), nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}},
}

// forEachStore runs fn as a subtest on each kind of store.
func forEachStore(t *testing.T, fn func(t *testing.T, store memorybank.Store)) {
	for _, k := range storeKinds {
		t.Run(k.name, func(t *testing.T) { fn(t, k.open(t)) })
	}
}

var t0 = time.Date(2025, 3, 17, 9, 0, 0, 0, time.UTC)

// testClock advances one second per call, so every write has its own time.
func testClock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return t0.Add(time.Duration(n.Add(1)-1) * time.Second) }
}

func testIDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("id-%d", n.Add(1)) }
}

func newBank(store memorybank.Store) *memorybank.Bank {
	return memorybank.New(store, &memorybank.Options{Clock: testClock(), NewID: testIDs()})
}

var ctx = context.Background()

func raw(s string) json.RawMessage { return json.RawMessage(s) }

func op(o, path, value string) jsonpatch.Operation {
	op := jsonpatch.Operation{Op: o, Path: path}
	if value != "" {
		op.Value = raw(value)
	}
	return op
}

func mv(o, from, path string) jsonpatch.Operation {
	return jsonpatch.Operation{Op: o, From: from, Path: path}
}

// envelopeOf decodes Document.Content of a JSON document.
type envelopeOf struct {
	Schema   string         `json:"schema"`
	Metadata map[string]any `json:"metadata"`
	Content  map[string]any `json:"content"`
}

func decode(t *testing.T, d *memorybank.Document) envelopeOf {
	t.Helper()
	var e envelopeOf
	require.NoError(t, json.Unmarshal(d.Content, &e))
	return e
}

func mustWrite(t *testing.T, b *memorybank.Bank, req memorybank.WriteRequest) *memorybank.WriteResult {
	t.Helper()
	res, err := b.Write(ctx, req)
	require.NoError(t, err)
	return res
}

func mustRead(t *testing.T, b *memorybank.Bank, scope memorybank.Scope, branch, path string) *memorybank.Document {
	t.Helper()
	d, err := b.Read(ctx, memorybank.ReadRequest{Scope: scope, Branch: branch, Path: path})
	require.NoError(t, err)
	return d
}
