// Package banktest holds the helpers the tests of memorybank and of the
// packages over it share: the stores every behaviour test runs on, a Bank
// with a deterministic clock and ids, and small constructors and checks.
// It is for tests only.
package banktest

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
	"github.com/mnemobank/mnemobank/memorybank/history"
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

// ForEachStore runs fn as a subtest on each kind of store.
func ForEachStore(t *testing.T, fn func(t *testing.T, store memorybank.Store)) {
	for _, k := range storeKinds {
		t.Run(k.name, func(t *testing.T) { fn(t, k.open(t)) })
	}
}

// T0 is the time of the first write of a Bank made by NewBank.
var T0 = time.Date(2025, 3, 17, 9, 0, 0, 0, time.UTC)

// Clock advances one second per call, so every write has its own time.
func Clock() func() time.Time {
	var n atomic.Int64
	return func() time.Time { return T0.Add(time.Duration(n.Add(1)-1) * time.Second) }
}

func IDs() func() string {
	var n atomic.Int64
	return func() string { return fmt.Sprintf("id-%d", n.Add(1)) }
}

// NewBank returns a Bank over store with the clock and ids above that
// records history, as the server's does.
func NewBank(store memorybank.Store) *memorybank.Bank {
	return memorybank.New(store, &memorybank.Options{Clock: Clock(), NewID: IDs(), History: history.New(nil)})
}

func Raw(s string) json.RawMessage { return json.RawMessage(s) }

func Op(o, path, value string) jsonpatch.Operation {
	op := jsonpatch.Operation{Op: o, Path: path}
	if value != "" {
		op.Value = Raw(value)
	}
	return op
}

func Mv(o, from, path string) jsonpatch.Operation {
	return jsonpatch.Operation{Op: o, From: from, Path: path}
}

// Envelope decodes Document.Content of a JSON document.
type Envelope struct {
	Schema   string         `json:"schema"`
	Metadata map[string]any `json:"metadata"`
	Content  map[string]any `json:"content"`
}

func Decode(t *testing.T, d *memorybank.Document) Envelope {
	t.Helper()
	var e Envelope
	require.NoError(t, json.Unmarshal(d.Content, &e))
	return e
}

func MustWrite(t *testing.T, b *memorybank.Bank, req memorybank.WriteRequest) *memorybank.WriteResult {
	t.Helper()
	res, err := b.Write(context.Background(), req)
	require.NoError(t, err)
	return res
}

func MustRead(t *testing.T, b *memorybank.Bank, scope memorybank.Scope, branch, path string) *memorybank.Document {
	t.Helper()
	d, err := b.Read(context.Background(), memorybank.ReadRequest{Scope: scope, Branch: branch, Path: path})
	require.NoError(t, err)
	return d
}
