package memorybank_test

import (
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
)

// The write matrix of seed 000 (conditionHandling and errorHandling), plus
// the modes and IfVersion.
func TestWriteMatrix(t *testing.T) {
	patch := jsonpatch.Patch{op("replace", "/content/status", `"halfway"`)}
	cases := []struct {
		name     string
		existing bool
		req      memorybank.WriteRequest
		wantErr  error
		check    func(t *testing.T, d *memorybank.Document)
	}{
		{name: "new + content creates", req: memorybank.WriteRequest{Content: raw(progressDoc)},
			check: func(t *testing.T, d *memorybank.Document) {
				assert.Equal(t, int64(1), d.Version)
				assert.Equal(t, "started", decode(t, d).Content["status"])
			}},
		{name: "new + patches is not found", req: memorybank.WriteRequest{Patches: patch}, wantErr: memorybank.ErrNotFound},
		{name: "existing + content overwrites", existing: true,
			req: memorybank.WriteRequest{Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"P2","documentType":"progress","tags":["x"]},"content":{"status":"rewritten"}}`)},
			check: func(t *testing.T, d *memorybank.Document) {
				e := decode(t, d)
				assert.Equal(t, map[string]any{"status": "rewritten"}, e.Content)
				assert.Equal(t, "P2", d.Title)
				assert.Equal(t, []string{"x"}, d.Tags)
				assert.Equal(t, int64(2), d.Version)
			}},
		{name: "existing + patches applies to the envelope", existing: true, req: memorybank.WriteRequest{Patches: patch},
			check: func(t *testing.T, d *memorybank.Document) {
				e := decode(t, d)
				assert.Equal(t, "halfway", e.Content["status"])
				assert.Equal(t, []any{}, e.Content["workingFeatures"])
				assert.Equal(t, int64(2), d.Version)
			}},
		{name: "content and patches is invalid", existing: true, req: memorybank.WriteRequest{Content: raw(progressDoc), Patches: patch}, wantErr: memorybank.ErrInvalidRequest},
		{name: "content and patches on new is invalid", req: memorybank.WriteRequest{Content: raw(progressDoc), Patches: patch}, wantErr: memorybank.ErrInvalidRequest},
		{name: "neither is invalid", existing: true, req: memorybank.WriteRequest{}, wantErr: memorybank.ErrInvalidRequest},
		{name: "empty patch list is invalid", existing: true, req: memorybank.WriteRequest{Patches: jsonpatch.Patch{}}, wantErr: memorybank.ErrInvalidRequest},
		// The Go API takes typed input; the agent tools read model-written
		// arguments leniently before they get here.
		{name: "content with an empty patch list is invalid", existing: true, req: memorybank.WriteRequest{Content: raw(`{"status":"only content"}`), Patches: jsonpatch.Patch{}}, wantErr: memorybank.ErrInvalidRequest},
		{name: "null content with patches is invalid", existing: true, req: memorybank.WriteRequest{Content: raw(`null`), Patches: patch}, wantErr: memorybank.ErrInvalidRequest},
		{name: "JSON in a string is not an object", req: memorybank.WriteRequest{Content: must(json.Marshal(`{"status":"s"}`))}, wantErr: memorybank.ErrInvalidRequest},
		{name: "text for a JSON document is invalid", req: memorybank.WriteRequest{Text: `{"status":"s"}`}, wantErr: memorybank.ErrInvalidRequest},
		{name: "failing patch is a patch error", existing: true,
			req: memorybank.WriteRequest{Patches: jsonpatch.Patch{op("replace", "/content/status", `"a"`), op("remove", "/content/missing", "")}}, wantErr: jsonpatch.ErrPathNotFound},
		{name: "failing test op", existing: true,
			req: memorybank.WriteRequest{Patches: jsonpatch.Patch{op("test", "/content/status", `"other"`), op("replace", "/content/status", `"b"`)}}, wantErr: jsonpatch.ErrTestFailed},
		{name: "unknown op", existing: true, req: memorybank.WriteRequest{Patches: jsonpatch.Patch{op("frobnicate", "/content/status", `1`)}}, wantErr: memorybank.ErrPatchFailed},
		{name: "create-only on existing", existing: true, req: memorybank.WriteRequest{Content: raw(progressDoc), Mode: memorybank.ModeCreate}, wantErr: memorybank.ErrExists},
		{name: "create-only on new", req: memorybank.WriteRequest{Content: raw(progressDoc), Mode: memorybank.ModeCreate},
			check: func(t *testing.T, d *memorybank.Document) { assert.Equal(t, int64(1), d.Version) }},
		{name: "update-only on new", req: memorybank.WriteRequest{Content: raw(progressDoc), Mode: memorybank.ModeUpdate}, wantErr: memorybank.ErrNotFound},
		{name: "update-only on existing", existing: true, req: memorybank.WriteRequest{Patches: patch, Mode: memorybank.ModeUpdate},
			check: func(t *testing.T, d *memorybank.Document) { assert.Equal(t, int64(2), d.Version) }},
		{name: "unknown mode", existing: true, req: memorybank.WriteRequest{Patches: patch, Mode: "merge"}, wantErr: memorybank.ErrInvalidRequest},
		{name: "ifVersion current", existing: true, req: memorybank.WriteRequest{Patches: patch, IfVersion: 1},
			check: func(t *testing.T, d *memorybank.Document) { assert.Equal(t, int64(2), d.Version) }},
		{name: "ifVersion stale", existing: true, req: memorybank.WriteRequest{Patches: patch, IfVersion: 7}, wantErr: memorybank.ErrConflict},
		{name: "ifVersion on missing", req: memorybank.WriteRequest{Content: raw(progressDoc), IfVersion: 1}, wantErr: memorybank.ErrConflict},
		{name: "schema violation", existing: true, req: memorybank.WriteRequest{Patches: jsonpatch.Patch{op("replace", "/content/status", `42`)}}, wantErr: memorybank.ErrValidation},
		{name: "content not an object", req: memorybank.WriteRequest{Content: raw(`[1,2]`)}, wantErr: memorybank.ErrInvalidRequest},
		{name: "metadata not an object", req: memorybank.WriteRequest{Content: raw(`{"schema":"memory_document_v2","metadata":null,"content":{"status":"s"}}`)}, wantErr: memorybank.ErrValidation},
		{name: "envelope without content", req: memorybank.WriteRequest{Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"t"}}`)}, wantErr: memorybank.ErrValidation},
		{name: "content not JSON", req: memorybank.WriteRequest{Content: raw(`"{not json"`)}, wantErr: memorybank.ErrInvalidRequest},
	}
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				b := newBank(store)
				path := "cases/" + tc.name + ".json"
				if tc.existing {
					mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "main", Path: path, Content: raw(progressDoc)})
				}
				before := snapshot(t, store)
				req := tc.req
				req.Scope, req.Branch, req.Path = memorybank.ScopeBranch, "main", path
				res, err := b.Write(ctx, req)
				if tc.wantErr != nil {
					require.Error(t, err)
					assert.ErrorIs(t, err, tc.wantErr)
					assert.Nil(t, res)
					assert.Equal(t, before, snapshot(t, store), "a failed write changes nothing")
					return
				}
				require.NoError(t, err)
				assert.Equal(t, !tc.existing, res.Created)
				d := mustRead(t, b, memorybank.ScopeBranch, "main", path)
				assert.Equal(t, res.Version, d.Version)
				tc.check(t, d)
			})
		}
	})
}

func TestWriteErrorDetails(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json", Content: raw(progressDoc)})
	w := func(req memorybank.WriteRequest) error {
		req.Scope, req.Path = memorybank.ScopeGlobal, "p.json"
		_, err := b.Write(ctx, req)
		return err
	}

	err := w(memorybank.WriteRequest{Patches: jsonpatch.Patch{op("replace", "/content/status", `"ok"`), op("remove", "/content/nope", "")}})
	var pe *memorybank.PatchError
	require.ErrorAs(t, err, &pe)
	var oe *jsonpatch.OperationError
	require.ErrorAs(t, err, &oe)
	assert.Equal(t, 1, oe.Index, "the failing operation is named")
	assert.Equal(t, "p.json", pe.Path)

	err = w(memorybank.WriteRequest{Patches: jsonpatch.Patch{op("add", "/metadata/tags/-", `"t"`)}, IfVersion: 5})
	var ce *memorybank.ConflictError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, int64(5), ce.IfVersion)
	assert.Equal(t, int64(1), ce.CurrentVersion)
	assert.Contains(t, err.Error(), "current version is 1")

	err = w(memorybank.WriteRequest{Patches: jsonpatch.Patch{
		op("replace", "/content/status", `1`), op("add", "/content/workingFeatures/-", `{}`), op("replace", "/metadata/title", `""`)}})
	var ve *memorybank.ValidationError
	require.ErrorAs(t, err, &ve)
	var pointers []string
	for _, p := range ve.Problems {
		pointers = append(pointers, p.Pointer)
	}
	assert.Equal(t, []string{"/metadata/title"}, pointers, "envelope problems are reported first")
	err = w(memorybank.WriteRequest{Patches: jsonpatch.Patch{op("replace", "/content/status", `1`), op("add", "/content/completionPercentage", `120`)}})
	require.ErrorAs(t, err, &ve)
	pointers = nil
	for _, p := range ve.Problems {
		pointers = append(pointers, p.Pointer)
	}
	assert.Equal(t, []string{"/content/completionPercentage", "/content/status"}, pointers)
	assert.Equal(t, "progress", ve.Schema)

	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "bc.json",
		Content: raw(`{"schema":"memory_document_v2","metadata":{"title":"B","documentType":"branch_context","tags":[]},"content":{"purpose":"x"}}`)})
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "bc.json", Patches: jsonpatch.Patch{op("remove", "/content/purpose", "")}})
	require.ErrorAs(t, err, &ve)
	require.Len(t, ve.Problems, 1)
	assert.Equal(t, "/content/purpose", ve.Problems[0].Pointer, "a missing required field points at the field")
}

// Metadata rules: version +1, lastModified from the clock, id and createdAt
// kept, id generated when absent, path maintained, canonical form.
func TestWriteMaintainsMetadata(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		g := memorybank.ScopeGlobal
		// An id given on creation is kept, even when not a UUID.
		res := mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "a.json",
			Content: raw(`{"schema":"memory_document_v2","metadata":{"id":"my-own-id","title":"A","documentType":"design","tags":["t"],"version":99,"createdAt":"2020-01-01T00:00:00.000Z","path":"elsewhere.json"},"content":{"k":1}}`)})
		assert.Equal(t, "my-own-id", res.ID)
		assert.Equal(t, int64(1), res.Version, "a new document is version 1 whatever it claims")
		d := mustRead(t, b, g, "", "a.json")
		e := decode(t, d)
		assert.Equal(t, "a.json", e.Metadata["path"])
		assert.Equal(t, "2020-01-01T00:00:00.000Z", e.Metadata["createdAt"], "createdAt supplied on creation is kept")
		assert.Equal(t, "2025-03-17T09:00:00.000Z", e.Metadata["lastModified"])
		assert.Equal(t, t0, d.LastModified)

		// Overwrite with different id/createdAt/version: the bank keeps its own.
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "a.json",
			Content: raw(`{"schema":"memory_document_v2","metadata":{"id":"other","title":"A2","documentType":"design","tags":["t"],"version":1,"createdAt":"2030-01-01T00:00:00.000Z","lastModified":"2030-01-01T00:00:00.000Z"},"content":{"k":2}}`)})
		d = mustRead(t, b, g, "", "a.json")
		e = decode(t, d)
		assert.Equal(t, "my-own-id", d.ID)
		assert.Equal(t, "2020-01-01T00:00:00.000Z", e.Metadata["createdAt"])
		assert.Equal(t, int64(2), d.Version)
		assert.Equal(t, "2025-03-17T09:00:01.000Z", e.Metadata["lastModified"])

		// Patches: version +1 each time, lastModified moves.
		for i := 3; i <= 5; i++ {
			r := mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "a.json", Patches: jsonpatch.Patch{op("replace", "/content/k", `3`)}})
			assert.Equal(t, int64(i), r.Version)
		}
		d = mustRead(t, b, g, "", "a.json")
		assert.Equal(t, t0.Add(4*time.Second), d.LastModified)

		// Bare content: wrapped, id generated, title and type inferred.
		res = mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "notes/activeContext.json", Content: raw(`{"currentWork":"x"}`)})
		assert.Equal(t, "id-1", res.ID, "the id generator is used when no id is given")
		d = mustRead(t, b, g, "", "notes/activeContext.json")
		assert.Equal(t, "activeContext", d.Title)
		assert.Equal(t, "active_context", d.DocumentType)
		assert.Equal(t, []string{}, d.Tags)

		// Content sent as a JSON string holding JSON is parsed, and Read
		// returns an object, never a string.
		mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "notes/activeContext.json", Content: raw(`{"currentWork":"from a string"}`)})
		d = mustRead(t, b, g, "", "notes/activeContext.json")
		assert.Equal(t, byte('{'), d.Content[0])
		assert.Equal(t, "from a string", decode(t, d).Content["currentWork"])
		assert.Equal(t, "activeContext", d.Title, "bare content keeps the stored title")

		// Canonical stored form: fixed key order, indented.
		obj, err := store.Get(ctx, "global-memory-bank/notes/activeContext.json")
		require.NoError(t, err)
		assert.Equal(t, `{
  "schema": "memory_document_v2",
  "metadata": {
    "id": "id-1",
    "title": "activeContext",
    "documentType": "active_context",
    "path": "notes/activeContext.json",
    "tags": [],
    "lastModified": "2025-03-17T09:00:06.000Z",
    "createdAt": "2025-03-17T09:00:05.000Z",
    "version": 2
  },
  "content": {
    "currentWork": "from a string"
  }
}
`, string(obj.Data))
	})
}

func TestWriteTags(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(progressDoc)})

	// A tag patch sticks (the origin server silently reverted it).
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Patches: jsonpatch.Patch{op("add", "/metadata/tags/-", `"urgent"`)}})
	assert.Equal(t, []string{"core", "progress", "urgent"}, mustRead(t, b, g, "", "p.json").Tags)
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Patches: jsonpatch.Patch{op("replace", "/metadata/tags", `["a","b","a"]`)}})
	assert.Equal(t, []string{"a", "b"}, mustRead(t, b, g, "", "p.json").Tags, "tags are deduplicated")

	// Without Tags, a full write keeps the stored tags; with Tags they win.
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"status":"x"}`)})
	assert.Equal(t, []string{"a", "b"}, mustRead(t, b, g, "", "p.json").Tags)
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"status":"y"}`), Tags: []string{"new"}})
	assert.Equal(t, []string{"new"}, mustRead(t, b, g, "", "p.json").Tags)
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Patches: jsonpatch.Patch{op("add", "/metadata/tags/-", `"patched"`)}, Tags: []string{"explicit"}})
	assert.Equal(t, []string{"explicit"}, mustRead(t, b, g, "", "p.json").Tags, "Tags win over a tag patch")
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"status":"z"}`), Tags: []string{}})
	assert.Equal(t, []string{}, mustRead(t, b, g, "", "p.json").Tags, "empty non-nil Tags clears them")

	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"status":"z"}`), Tags: []string{"ok", " "}})
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", Patches: jsonpatch.Patch{op("replace", "/metadata/tags", `"one"`)}})
	assert.ErrorIs(t, err, memorybank.ErrValidation)
}

func TestForbiddenPatches(t *testing.T) {
	cases := []struct {
		name  string
		patch jsonpatch.Patch
		field string // "" = allowed
		index int
	}{
		{"replace schema", jsonpatch.Patch{op("replace", "/schema", `"memory_document_v2"`)}, "/schema", 0},
		{"replace id", jsonpatch.Patch{op("replace", "/metadata/title", `"t"`), op("replace", "/metadata/id", `"x"`)}, "/metadata/id", 1},
		{"remove createdAt", jsonpatch.Patch{op("remove", "/metadata/createdAt", "")}, "/metadata/createdAt", 0},
		{"add version", jsonpatch.Patch{op("add", "/metadata/version", `5`)}, "/metadata/version", 0},
		{"replace lastModified", jsonpatch.Patch{op("replace", "/metadata/lastModified", `"2000-01-01T00:00:00Z"`)}, "/metadata/lastModified", 0},
		{"replace path", jsonpatch.Patch{op("replace", "/metadata/path", `"x.json"`)}, "/metadata/path", 0},
		{"move id away", jsonpatch.Patch{mv("move", "/metadata/id", "/content/id")}, "/metadata/id", 0},
		{"move onto version", jsonpatch.Patch{mv("move", "/content/status", "/metadata/version")}, "/metadata/version", 0},
		{"copy onto id", jsonpatch.Patch{mv("copy", "/content/status", "/metadata/id")}, "/metadata/id", 0},
		{"move metadata away", jsonpatch.Patch{mv("move", "/metadata", "/content/m")}, "/metadata/id", 0},
		{"remove metadata", jsonpatch.Patch{op("remove", "/metadata", "")}, "/metadata/id", 0},
		{"replace metadata changing version", jsonpatch.Patch{op("replace", "/metadata", `{"id":"id-1","title":"t","documentType":"progress","path":"p.json","tags":[],"createdAt":"2025-03-17T09:00:00.000Z","lastModified":"2025-03-17T09:00:00.000Z","version":9}`)}, "/metadata/version", 0},
		{"replace root", jsonpatch.Patch{op("replace", "/content/status", `"a"`), op("replace", "", `{"schema":"memory_document_v2","metadata":{},"content":{}}`)}, "/metadata/id", 1},
		{"test on id is fine", jsonpatch.Patch{op("test", "/metadata/id", `"id-1"`), op("replace", "/content/status", `"a"`)}, "", 0},
		{"copy from id is fine", jsonpatch.Patch{mv("copy", "/metadata/id", "/content/ref")}, "", 0},
		{"replace metadata keeping maintained fields", jsonpatch.Patch{op("replace", "/metadata", `{"id":"id-1","title":"New title","documentType":"progress","path":"p.json","tags":["t"],"createdAt":"2025-03-17T09:00:00.000Z","lastModified":"2025-03-17T09:00:00.000Z","version":1}`)}, "", 0},
		{"title and documentType are free", jsonpatch.Patch{op("replace", "/metadata/title", `"T"`), op("replace", "/metadata/documentType", `"notes"`)}, "", 0},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := &memorybank.MemStore{}
			b := newBank(store)
			mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json", Content: raw(progressDoc)})
			before := snapshot(t, store)
			_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json", Patches: tc.patch})
			if tc.field == "" {
				require.NoError(t, err)
				return
			}
			var fe *memorybank.ForbiddenPatchError
			require.ErrorAs(t, err, &fe)
			assert.ErrorIs(t, err, memorybank.ErrForbiddenPatch)
			assert.Equal(t, tc.field, fe.Field)
			assert.Equal(t, tc.index, fe.Index)
			assert.Equal(t, before, snapshot(t, store))
		})
	}
}

func TestWriteLimits(t *testing.T) {
	b := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{MaxDocumentBytes: 600, MaxPatchOps: 2, MaxTags: 2})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"k":"v"}`)})
	var le *memorybank.LimitError

	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", Patches: jsonpatch.Patch{op("add", "/content/a", "1"), op("add", "/content/b", "1"), op("add", "/content/c", "1")}})
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "patch operations", le.Limit)
	assert.ErrorIs(t, err, memorybank.ErrLimitExceeded)

	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(`{"k":"v"}`), Tags: []string{"a", "b", "c"}})
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "tags", le.Limit)
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", Patches: jsonpatch.Patch{op("replace", "/metadata/tags", `["a","b","c"]`)}})
	require.ErrorAs(t, err, &le, "tags added by a patch count too")
	assert.Equal(t, 3, le.Got)

	big, _ := json.Marshal(map[string]string{"k": string(make([]byte, 500))})
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: big})
	require.ErrorAs(t, err, &le)
	assert.Equal(t, "document size", le.Limit)
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", Patches: jsonpatch.Patch{op("add", "/content/big", string(must(json.Marshal(string(make([]byte, 400))))))}})
	require.ErrorAs(t, err, &le, "the stored size counts, not only the request")
	assert.Greater(t, le.Got, 600)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

func TestWritePathsAndScopes(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	for _, p := range []string{"", "/abs.json", "../up.json", "a/../b.json", ".branch.json", "dir/.hidden.md", "a//b.md", `back\slash.md`} {
		_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: p, Content: raw(`{"k":1}`)})
		assert.ErrorIs(t, err, memorybank.ErrInvalidPath, "path %q", p)
	}
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: "project", Path: "a.json", Content: raw(`{"k":1}`)})
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	_, err = b.Write(ctx, memorybank.WriteRequest{Path: "a.json", Content: raw(`{"k":1}`)})
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Path: "a.json", Content: raw(`{"k":1}`)})
	assert.ErrorIs(t, err, memorybank.ErrInvalidRequest, "branch scope needs a branch")
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "bad..name", Path: "a.json", Content: raw(`{"k":1}`)})
	assert.ErrorIs(t, err, memorybank.ErrInvalidBranch)
}

// Concurrent patch writers, without IfVersion, never lose an update: every
// append lands and the version counts every write.
func TestConcurrentPatchesLoseNothing(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		const writers, each = 4, 10
		seed := newBank(store)
		mustWrite(t, seed, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "log.json", Content: raw(`{"entries":[]}`), Tags: []string{"log"}})
		errs := make(chan error, writers*each)
		for w := range writers {
			// Each writer is its own Bank, as separate agents would be.
			b := memorybank.New(store, nil) // default options: no retry budget to raise
			go func() {
				for i := range each {
					_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "log.json",
						Patches: jsonpatch.Patch{op("add", "/content/entries/-", string(must(json.Marshal([]int{w, i}))))}})
					errs <- err
				}
			}()
		}
		for range writers * each {
			require.NoError(t, <-errs)
		}
		d := mustRead(t, seed, memorybank.ScopeGlobal, "", "log.json")
		entries := decode(t, d).Content["entries"].([]any)
		assert.Len(t, entries, writers*each)
		assert.Equal(t, int64(1+writers*each), d.Version)
		hits, err := seed.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"log"}, Scope: memorybank.ScopeGlobal})
		require.NoError(t, err)
		require.Len(t, hits, 1)
		assert.Equal(t, d.Version, hits[0].Version, "the seed bank's index sees the other banks' writes")
	})
}

// With IfVersion, of two agents that read the same version only one wins.
func TestIfVersionOneWinner(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	g := memorybank.ScopeGlobal
	mustWrite(t, b, memorybank.WriteRequest{Scope: g, Path: "p.json", Content: raw(progressDoc)})
	_, errA := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", IfVersion: 1, Patches: jsonpatch.Patch{op("replace", "/content/status", `"A"`)}})
	_, errB := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "p.json", IfVersion: 1, Patches: jsonpatch.Patch{op("replace", "/content/status", `"B"`)}})
	require.NoError(t, errA)
	var ce *memorybank.ConflictError
	require.ErrorAs(t, errB, &ce)
	assert.Equal(t, int64(2), ce.CurrentVersion)
	assert.Equal(t, "A", decode(t, mustRead(t, b, g, "", "p.json")).Content["status"])
	assert.True(t, errors.Is(errB, memorybank.ErrConflict))
}

// Concurrent full writes without IfVersion: last writer wins, but every
// write is counted in the version and none tears the metadata.
func TestConcurrentContentWritesKeepVersionsMonotonic(t *testing.T) {
	store := &memorybank.MemStore{}
	const writers = 8
	errs := make(chan error, writers)
	for i := range writers {
		b := memorybank.New(store, nil) // default options: no retry budget to raise
		go func() {
			_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json",
				Content: raw(`{"status":"writer ` + string(rune('a'+i)) + `"}`), Tags: []string{"w"}})
			errs <- err
		}()
	}
	for range writers {
		require.NoError(t, <-errs)
	}
	d := mustRead(t, newBank(store), memorybank.ScopeGlobal, "", "p.json")
	assert.Equal(t, int64(writers), d.Version)
	assert.Regexp(t, `^writer [a-h]$`, decode(t, d).Content["status"])
	assert.NotEmpty(t, d.ID)
}

func TestFirstFailedBranchWriteLeavesNothing(t *testing.T) {
	store := &memorybank.MemStore{}
	b := newBank(store)
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "new", Path: "progress.json", Content: raw(`{"status":1}`)})
	require.ErrorIs(t, err, memorybank.ErrValidation)
	assert.Empty(t, snapshot(t, store))
}

func TestJSONWithBOM(t *testing.T) {
	store := &memorybank.MemStore{}
	_, err := store.Put(ctx, "global-memory-bank/bom.json", append([]byte("\xef\xbb\xbf"), progressDoc...), memorybank.Condition{})
	require.NoError(t, err)
	d := mustRead(t, newBank(store), memorybank.ScopeGlobal, "", "bom.json")
	assert.Equal(t, "Progress", d.Title)
}

func TestCorruptDocument(t *testing.T) {
	store := &memorybank.MemStore{}
	_, err := store.Put(ctx, "global-memory-bank/bad.json", []byte("{not json"), memorybank.Condition{})
	require.NoError(t, err)
	b := newBank(store)
	_, err = b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "bad.json"})
	assert.ErrorIs(t, err, memorybank.ErrCorrupt)
	_, err = b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "bad.json", Patches: jsonpatch.Patch{op("add", "/content/a", "1")}})
	assert.ErrorIs(t, err, memorybank.ErrCorrupt)
	list, err := b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	require.Len(t, list, 1, "a corrupt document is still listed, so it can be found and repaired")
	res := mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "bad.json", Content: raw(`{"k":"repaired"}`)})
	assert.Equal(t, int64(1), res.Version)
	assert.Equal(t, "repaired", decode(t, mustRead(t, b, memorybank.ScopeGlobal, "", "bad.json")).Content["k"])
}

// Agents often send JSON inside a JSON string; the Bank stores parsed JSON.
func TestContentInsideAString(t *testing.T) {
	// The Go API stores what it is given: a JSON document's content is an
	// object, and a string holding JSON is not one (the agent tools unwrap
	// it before calling the Bank).
	b := newBank(&memorybank.MemStore{})
	env := `{"schema":"memory_document_v2","metadata":{"title":"T","documentType":"progress"},"content":"{\"status\":\"s\"}"}`
	_, err := b.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "p.json", Content: raw(env)})
	var ve *memorybank.ValidationError
	require.ErrorAs(t, err, &ve)
	assert.Equal(t, "/content", ve.Problems[0].Pointer)
}
