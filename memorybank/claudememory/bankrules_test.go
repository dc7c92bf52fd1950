package claudememory_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

// The bank keeps a path ending in .json in any letter case as a JSON
// document; the memory tool never lists, shows or deletes one.
func TestBankFilesLeaveJSONDocumentsOfAnyCase(t *testing.T) {
	ctx := context.Background()
	for _, name := range []string{"data.json", "Data.JSON", "x.Json"} {
		t.Run(name, func(t *testing.T) {
			bank := memorybank.New(new(memorybank.MemStore), nil)
			_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal,
				Path: claudememory.BankPrefix + name, Content: []byte(`{"keep":true}`)})
			require.NoError(t, err)
			h := claudememory.New(claudememory.BankFiles(bank), nil)

			_, err = call(t, h, map[string]any{"command": "create", "path": "/memories/moved.md", "file_text": "x"})
			require.NoError(t, err)
			listing, err := call(t, h, map[string]any{"command": "view", "path": "/memories"})
			require.NoError(t, err)
			assert.NotContains(t, listing, name, "a JSON document is not a memory file")
			for _, in := range []map[string]any{
				{"command": "view", "path": "/memories/" + name},
				{"command": "delete", "path": "/memories/" + name},
				{"command": "str_replace", "path": "/memories/" + name, "old_str": "keep", "new_str": "lose"},
				{"command": "create", "path": "/memories/" + name, "file_text": "x"},
				{"command": "rename", "old_path": "/memories/moved.md", "new_path": "/memories/" + name},
			} {
				_, err := call(t, h, in)
				require.ErrorIs(t, err, claudememory.ErrInvalidPath, "%v", in)
				assert.Contains(t, err.Error(), "/memories/"+name)
				assert.Contains(t, err.Error(), ".json")
			}
			_, err = call(t, h, map[string]any{"command": "rename", "old_path": "/memories/" + name, "new_path": "/memories/other.md"})
			require.ErrorIs(t, err, claudememory.ErrNotFound, "a JSON document is not a memory file to rename")
			d, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: claudememory.BankPrefix + name})
			require.NoError(t, err, "the JSON document is still there")
			assert.EqualValues(t, 1, d.Version, "and unchanged")
		})
	}
}

// A file whose name collides with another's (letter case, Unicode
// normalisation, a file where a directory would be) is reported with the
// memory tool's paths and words, not the bank's paths.
func TestBankFilesCollisionsInToolWords(t *testing.T) {
	for _, tc := range []struct {
		name, existing, create, want string
		err                          error
	}{
		{"letter case", "/memories/notes.md", "/memories/Notes.md", "/memories/notes.md", claudememory.ErrExists},
		{"normalisation", "/memories/caf\u00e9.md", "/memories/cafe\u0301.md", "/memories/caf\u00e9.md", claudememory.ErrExists},
		{"a file on the way", "/memories/a", "/memories/A/b.md", "/memories/a is a file", claudememory.ErrNotFile},
		{"a directory there", "/memories/d/x.md", "/memories/D", "/memories/d", claudememory.ErrExists},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := claudememory.New(claudememory.BankFiles(memorybank.New(new(memorybank.MemStore), nil)), nil)
			_, err := call(t, h, map[string]any{"command": "create", "path": tc.existing, "file_text": "first"})
			require.NoError(t, err)
			_, err = call(t, h, map[string]any{"command": "create", "path": tc.create, "file_text": "second"})
			require.ErrorIs(t, err, tc.err)
			var te *claudememory.ToolError
			require.ErrorAs(t, err, &te)
			assert.Contains(t, te.Text, tc.want)
			assert.Contains(t, te.Text, tc.create)
			assert.NotRegexp(t, `(^|[^/])`+claudememory.BankPrefix, te.Text, "no bank path")
			assert.NotContains(t, te.Text, "memorybank:", "the tool's words")
		})
	}
}

// A file deleted and created again does not start over at version 1, so a
// stale version never matches it.
func TestBankFilesRecreatedFileKeepsCounting(t *testing.T) {
	ctx := context.Background()
	files := claudememory.BankFiles(memorybank.New(new(memorybank.MemStore), nil))
	v1, err := files.WriteText(ctx, "a.md", "one", memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)
	require.NoError(t, files.Delete(ctx, "a.md", memorybank.Condition{IfVersion: v1}))
	v2, err := files.WriteText(ctx, "a.md", "two", memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)
	assert.NotEqual(t, v1, v2)
	_, err = files.WriteText(ctx, "a.md", "stale", memorybank.Condition{IfVersion: v1})
	assert.ErrorIs(t, err, memorybank.ErrConflict)
}
