package claudememory_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

func call(t *testing.T, h *claudememory.Handler, in map[string]any) (string, error) {
	t.Helper()
	data, err := json.Marshal(in)
	require.NoError(t, err)
	return h.Handle(context.Background(), data)
}

// Paths that must never reach Files: each is refused with ErrInvalidPath
// (or ErrLimit) and leaves the files as they were.
func TestRefusesPathsOutsideOrAmbiguous(t *testing.T) {
	cases := []struct {
		path, want string
		err        error
	}{
		{"/etc/passwd", "Path must start with /memories, got: /etc/passwd", claudememory.ErrInvalidPath},
		{"memories/a.md", "Path must start with /memories, got: memories/a.md", claudememory.ErrInvalidPath},
		{"", "Path must start with /memories, got: ", claudememory.ErrInvalidPath},
		{"/memoriesX/a.md", "outside /memories", claudememory.ErrInvalidPath},
		{"/memories/../etc/passwd", "Path /memories/../etc/passwd would escape /memories directory", claudememory.ErrInvalidPath},
		{"/memories/a/../../b", "would escape /memories directory", claudememory.ErrInvalidPath},
		{"/memories/a/../b.md", `contains a ".." segment; give it without . or .. segments, as /memories/b.md`, claudememory.ErrInvalidPath},
		{"/memories/./b.md", `contains a "." segment`, claudememory.ErrInvalidPath},
		{"/memories/%2e%2e/x", `percent-encoded character "%2e"`, claudememory.ErrInvalidPath},
		{"/memories/a%2Fb", `percent-encoded character "%2f"`, claudememory.ErrInvalidPath},
		{"/memories/%252e%252e/x", `percent-encoded character "%25"`, claudememory.ErrInvalidPath},
		{"/memories/\uff0e\uff0e/x", "some systems read as . or ..", claudememory.ErrInvalidPath},
		{"/memories/a\\..\\..\\b", "backslash", claudememory.ErrInvalidPath},
		{"/memories//etc/passwd", "empty segment", claudememory.ErrInvalidPath},
		{"/memories/.hidden", `hidden entry ".hidden"`, claudememory.ErrInvalidPath},
		{"/memories/a/.git/config", `hidden entry ".git"`, claudememory.ErrInvalidPath},
		{"/memories/a\x00b", "control character", claudememory.ErrInvalidPath},
		{"/memories/con.md", "reserved device name", claudememory.ErrInvalidPath},
		{"/memories/" + strings.Repeat("a", 600), "paths under /memories are at most 512 bytes", claudememory.ErrLimit},
	}
	for _, tc := range cases {
		t.Run(tc.path, func(t *testing.T) {
			files := newMapFiles(map[string]string{"keep.md": "x"})
			h := claudememory.New(files, nil)
			for _, in := range []map[string]any{
				{"command": "view", "path": tc.path},
				{"command": "create", "path": tc.path, "file_text": "x"},
				{"command": "str_replace", "path": tc.path, "old_str": "x", "new_str": "y"},
				{"command": "insert", "path": tc.path, "insert_line": 0, "insert_text": "y"},
				{"command": "delete", "path": tc.path},
				{"command": "rename", "old_path": "/memories/keep.md", "new_path": tc.path},
				{"command": "rename", "old_path": tc.path, "new_path": "/memories/new.md"},
			} {
				_, err := call(t, h, in)
				require.Error(t, err, "%v", in)
				assert.ErrorIs(t, err, tc.err, "%v", in)
				assert.Contains(t, err.Error(), tc.want, "%v", in)
			}
			assert.Equal(t, []string{"keep.md"}, files.paths())
		})
	}
}

func TestRefusesMalformedInput(t *testing.T) {
	h := claudememory.New(newMapFiles(map[string]string{"a.md": "x\n"}), nil)
	cases := []struct{ input, want string }{
		{`not json`, "is not a valid memory command"},
		{`[]`, "is not a valid memory command"},
		{`{"command": "view", "path": "/memories"} {}`, "data after its JSON object"},
		{`{}`, "has no command"},
		{`{"command": "chmod", "path": "/memories/a.md"}`, `Unknown command: "chmod"`},
		{`{"command": "view"}`, "Parameter `path` is required for command: view"},
		{`{"command": "create", "path": "/memories/b.md"}`, "Parameter `file_text` is required for command: create"},
		{`{"command": "str_replace", "path": "/memories/a.md", "new_str": "y"}`, "Parameter `old_str` is required"},
		{`{"command": "str_replace", "path": "/memories/a.md", "old_str": "x"}`, "Parameter `new_str` is required"},
		{`{"command": "str_replace", "path": "/memories/a.md", "old_str": "", "new_str": "y"}`, "old_str is empty"},
		{`{"command": "insert", "path": "/memories/a.md", "insert_text": "y"}`, "Parameter `insert_line` is required"},
		{`{"command": "insert", "path": "/memories/a.md", "insert_line": 1.5, "insert_text": "y"}`, "is not a valid memory command"},
		{`{"command": "insert", "path": "/memories/a.md", "insert_line": 0}`, "Parameter `insert_text` is required"},
		{`{"command": "rename", "old_path": "/memories/a.md"}`, "Parameter `new_path` is required"},
		{`{"command": "view", "path": 7}`, "is not a valid memory command"},
	}
	for _, tc := range cases {
		_, err := h.Handle(context.Background(), json.RawMessage(tc.input))
		require.Error(t, err, tc.input)
		var te *claudememory.ToolError
		require.ErrorAs(t, err, &te, tc.input)
		assert.Contains(t, err.Error(), tc.want, tc.input)
	}
}

func TestViewRange(t *testing.T) {
	h := claudememory.New(newMapFiles(map[string]string{"a.md": "one\ntwo\nthree"}), nil)
	got, err := call(t, h, map[string]any{"command": "view", "path": "/memories/a.md", "view_range": []int{0, 2}})
	require.NoError(t, err)
	assert.Equal(t, "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\ttwo", got)
	got, err = call(t, h, map[string]any{"command": "view", "path": "/memories/a.md", "view_range": []int{3, 99}})
	require.NoError(t, err)
	assert.Equal(t, "Here's the content of /memories/a.md with line numbers:\n     3\tthree", got)
	got, err = call(t, h, map[string]any{"command": "view", "path": "/memories/a.md", "view_range": []int{}})
	require.NoError(t, err)
	assert.Equal(t, "Here's the content of /memories/a.md with line numbers:\n     1\tone\n     2\ttwo\n     3\tthree", got)
	for _, vr := range [][]int{{4, -1}, {3, 2}, {1}, {1, 2, 3}} {
		_, err := call(t, h, map[string]any{"command": "view", "path": "/memories/a.md", "view_range": vr})
		assert.ErrorIs(t, err, claudememory.ErrLineRange, "%v", vr)
		assert.Contains(t, err.Error(), "Invalid `view_range` parameter", "%v", vr)
	}
}

func TestLimits(t *testing.T) {
	ctx := context.Background()
	t.Run("file size, before the write", func(t *testing.T) {
		files := newMapFiles(map[string]string{"a.md": "small"})
		h := claudememory.New(files, &claudememory.Options{MaxFileBytes: 10})
		_, err := call(t, h, map[string]any{"command": "create", "path": "/memories/b.md", "file_text": "12345678901"})
		assert.ErrorIs(t, err, claudememory.ErrLimit)
		assert.Contains(t, err.Error(), "the file would be 11 bytes, and a memory file holds at most 10 bytes")
		_, err = call(t, h, map[string]any{"command": "str_replace", "path": "/memories/a.md", "old_str": "small", "new_str": "much larger"})
		assert.ErrorIs(t, err, claudememory.ErrLimit)
		_, err = call(t, h, map[string]any{"command": "insert", "path": "/memories/a.md", "insert_line": 0, "insert_text": "more text"})
		assert.ErrorIs(t, err, claudememory.ErrLimit)
		assert.Equal(t, []string{"a.md"}, files.paths())
		text, _ := files.text("a.md")
		assert.Equal(t, "small", text)
	})
	t.Run("tool input size", func(t *testing.T) {
		h := claudememory.New(newMapFiles(nil), &claudememory.Options{MaxFileBytes: 10})
		_, err := h.Handle(ctx, json.RawMessage(`{"command":"create","path":"/memories/x","file_text":"`+strings.Repeat("x", 10000)+`"}`))
		assert.ErrorIs(t, err, claudememory.ErrLimit)
		assert.Contains(t, err.Error(), "The tool input is")
	})
	t.Run("entries per directory and files in all", func(t *testing.T) {
		files := newMapFiles(map[string]string{"a.md": "", "b.md": "", "d/c.md": ""})
		h := claudememory.New(files, &claudememory.Options{MaxDirEntries: 3, MaxFiles: 4})
		_, err := call(t, h, map[string]any{"command": "create", "path": "/memories/e.md", "file_text": ""})
		assert.ErrorIs(t, err, claudememory.ErrLimit)
		assert.Contains(t, err.Error(), "/memories holds 3 entries, the limit")
		_, err = call(t, h, map[string]any{"command": "rename", "old_path": "/memories/d/c.md", "new_path": "/memories/c.md"})
		assert.ErrorIs(t, err, claudememory.ErrLimit)
		_, err = call(t, h, map[string]any{"command": "create", "path": "/memories/d/e.md", "file_text": ""})
		require.NoError(t, err) // d has room
		_, err = call(t, h, map[string]any{"command": "create", "path": "/memories/d/f.md", "file_text": ""})
		assert.ErrorIs(t, err, claudememory.ErrLimit)
		assert.Contains(t, err.Error(), "/memories holds 4 files, the limit")
	})
	t.Run("file view pages by view_range", func(t *testing.T) {
		var lines []string
		for i := 1; i <= 100; i++ {
			lines = append(lines, fmt.Sprintf("line %03d", i))
		}
		h := claudememory.New(newMapFiles(map[string]string{"long.md": strings.Join(lines, "\n")}), &claudememory.Options{MaxViewBytes: 200})
		got, err := call(t, h, map[string]any{"command": "view", "path": "/memories/long.md"})
		require.NoError(t, err)
		assert.LessOrEqual(t, len(got), 200+150)
		assert.Contains(t, got, "     1\tline 001\n")
		assert.Regexp(t, `\[lines (\d+)-100 not shown: the view is limited to 200 bytes; view them with view_range \[\d+, 100\]\]$`, got)
		got, err = call(t, h, map[string]any{"command": "view", "path": "/memories/long.md", "view_range": []int{99, -1}})
		require.NoError(t, err)
		assert.Equal(t, "Here's the content of /memories/long.md with line numbers:\n    99\tline 099\n   100\tline 100", got)
	})
	t.Run("one line longer than the view", func(t *testing.T) {
		h := claudememory.New(newMapFiles(map[string]string{"wide.md": strings.Repeat("é", 300) + "\nnext"}), &claudememory.Options{MaxViewBytes: 200})
		got, err := call(t, h, map[string]any{"command": "view", "path": "/memories/wide.md"})
		require.NoError(t, err)
		assert.Contains(t, got, "[line 1 is cut after")
		assert.Contains(t, got, "[lines 2-2 not shown")
	})
	t.Run("listing", func(t *testing.T) {
		files := map[string]string{}
		for i := range 50 {
			files[fmt.Sprintf("f%02d.md", i)] = "x"
		}
		h := claudememory.New(newMapFiles(files), &claudememory.Options{MaxViewBytes: 500})
		got, err := call(t, h, map[string]any{"command": "view", "path": "/memories"})
		require.NoError(t, err)
		assert.LessOrEqual(t, len(got), 500)
		assert.Regexp(t, `\n\[\d+ more entries not shown: the listing is limited to 500 bytes; view a subdirectory to see its entries\]$`, got)
	})
}

func TestListingOrderAndDepth(t *testing.T) {
	h := claudememory.New(newMapFiles(map[string]string{
		"dir-2.md":   "12",
		"dir/x.md":   "123",
		"dir/s/t/u":  "1",
		"a.md":       "",
		"dir/s/y.md": "1234",
	}), nil)
	got, err := call(t, h, map[string]any{"command": "view", "path": "/memories/"})
	require.NoError(t, err)
	// Names sorted per directory ("dir" before "dir-2.md"), a directory
	// before its entries, two levels deep, directory sizes the total of their files.
	assert.Equal(t, "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items:\n"+
		"10B\t/memories\n0B\t/memories/a.md\n8B\t/memories/dir/\n5B\t/memories/dir/s/\n3B\t/memories/dir/x.md\n2B\t/memories/dir-2.md", got)
}

func TestFormatSizes(t *testing.T) {
	h := claudememory.New(newMapFiles(map[string]string{
		"a": strings.Repeat("x", 1023), "b": strings.Repeat("x", 1024), "c": strings.Repeat("x", 1100), "d": strings.Repeat("x", 2<<20),
	}), &claudememory.Options{MaxFileBytes: 4 << 20})
	got, err := call(t, h, map[string]any{"command": "view", "path": "/memories"})
	require.NoError(t, err)
	assert.Contains(t, got, "\n1023B\t/memories/a\n1K\t/memories/b\n1.1K\t/memories/c\n2M\t/memories/d")
}

// An edit that lost its race is computed again on the latest text; when the
// text it needs is gone, it fails and says so. Nothing is lost either way.
func TestEditReappliedOnLatestText(t *testing.T) {
	ctx := context.Background()
	t.Run("str_replace re-applied", func(t *testing.T) {
		files := newMapFiles(map[string]string{"n.md": "alpha\nbeta\n"})
		interfered := false
		files.beforeWrite = func(p string) {
			if !interfered {
				interfered = true
				files.mu.Lock()
				files.put(p, "alpha\nbeta\ngamma\n") // another agent appends a line
				files.mu.Unlock()
			}
		}
		_, err := call(t, claudememory.New(files, nil), map[string]any{"command": "str_replace", "path": "/memories/n.md", "old_str": "beta", "new_str": "BETA"})
		require.NoError(t, err)
		text, _ := files.text("n.md")
		assert.Equal(t, "alpha\nBETA\ngamma\n", text)
	})
	t.Run("str_replace whose old text is gone", func(t *testing.T) {
		files := newMapFiles(map[string]string{"n.md": "alpha\nbeta\n"})
		interfered := false
		files.beforeWrite = func(p string) {
			if !interfered {
				interfered = true
				files.mu.Lock()
				files.put(p, "alpha\nb-e-t-a\n")
				files.mu.Unlock()
			}
		}
		_, err := call(t, claudememory.New(files, nil), map[string]any{"command": "str_replace", "path": "/memories/n.md", "old_str": "beta", "new_str": "BETA"})
		assert.ErrorIs(t, err, claudememory.ErrNoMatch)
		assert.Contains(t, err.Error(), "did not appear verbatim in /memories/n.md. (Another writer changed the file while this edit was being applied")
		text, _ := files.text("n.md")
		assert.Equal(t, "alpha\nb-e-t-a\n", text)
	})
	t.Run("insert re-applied", func(t *testing.T) {
		files := newMapFiles(map[string]string{"n.md": "a\nb\n"})
		interfered := false
		files.beforeWrite = func(p string) {
			if !interfered {
				interfered = true
				files.mu.Lock()
				files.put(p, "a\nb\nc\n")
				files.mu.Unlock()
			}
		}
		_, err := call(t, claudememory.New(files, nil), map[string]any{"command": "insert", "path": "/memories/n.md", "insert_line": 2, "insert_text": "new"})
		require.NoError(t, err)
		text, _ := files.text("n.md")
		assert.Equal(t, "a\nb\nnew\nc\n", text)
	})
	t.Run("file deleted meanwhile", func(t *testing.T) {
		files := newMapFiles(map[string]string{"n.md": "a\n"})
		files.beforeWrite = func(p string) {
			files.mu.Lock()
			delete(files.files, p)
			files.mu.Unlock()
		}
		_, err := call(t, claudememory.New(files, nil), map[string]any{"command": "insert", "path": "/memories/n.md", "insert_line": 0, "insert_text": "x"})
		assert.ErrorIs(t, err, claudememory.ErrNotFound)
		assert.Equal(t, "The file /memories/n.md no longer exists (may have been deleted or renamed concurrently).", err.Error())
	})
	t.Run("gives up after MaxRetries", func(t *testing.T) {
		files := newMapFiles(map[string]string{"n.md": "a\n"})
		files.beforeWrite = func(p string) {
			files.mu.Lock()
			files.put(p, "a\n")
			files.mu.Unlock()
		}
		_, err := call(t, claudememory.New(files, &claudememory.Options{MaxRetries: 2}), map[string]any{"command": "str_replace", "path": "/memories/n.md", "old_str": "a", "new_str": "b"})
		assert.ErrorIs(t, err, claudememory.ErrContention)
		assert.Contains(t, err.Error(), "other writers changed it 3 times")
	})
	t.Run("directory delete keeps a file changed meanwhile", func(t *testing.T) {
		files := newMapFiles(map[string]string{"d/a.md": "a", "d/b.md": "b"})
		files.beforeWrite = func(p string) {
			if p == "d/b.md" {
				files.beforeWrite = nil
				files.mu.Lock()
				files.put(p, "b, edited")
				files.mu.Unlock()
			}
		}
		_, err := call(t, claudememory.New(files, nil), map[string]any{"command": "delete", "path": "/memories/d"})
		assert.ErrorIs(t, err, claudememory.ErrPartial)
		assert.Contains(t, err.Error(), "kept /memories/d/b.md")
		assert.Equal(t, []string{"d/b.md"}, files.paths())
	})
	t.Run("rename whose source changes is moved from its latest text", func(t *testing.T) {
		files := newMapFiles(map[string]string{"a.md": "v1"})
		files.beforeWrite = func(p string) {
			if p == "a.md" { // just before the source is deleted
				files.beforeWrite = nil
				files.mu.Lock()
				files.put(p, "v2")
				files.mu.Unlock()
			}
		}
		_, err := call(t, claudememory.New(files, nil), map[string]any{"command": "rename", "old_path": "/memories/a.md", "new_path": "/memories/b.md"})
		require.NoError(t, err)
		assert.Equal(t, []string{"b.md"}, files.paths())
		text, _ := files.text("b.md")
		assert.Equal(t, "v2", text)
	})
	_ = ctx
}

func TestStorageErrorsAreNotToolErrors(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	h := claudememory.New(newMapFiles(map[string]string{"a.md": "x"}), nil)
	_, err := h.Handle(ctx, json.RawMessage(`{"command":"view","path":"/memories/a.md"}`))
	require.Error(t, err)
	assert.ErrorIs(t, err, context.Canceled)
	var te *claudememory.ToolError
	assert.False(t, errors.As(err, &te))
}

// BankFiles keeps a file's text byte for byte, whatever it looks like to
// the bank's metadata parsing.
func TestBankFilesKeepsTextVerbatim(t *testing.T) {
	ctx := context.Background()
	bank := memorybank.New(new(memorybank.MemStore), nil)
	files := claudememory.BankFiles(bank)
	h := claudememory.New(files, nil)
	for i, text := range []string{"", "a", "a\n", "---\ntitle: x\n---\nbody", "\ufeffbom", "tags: #a #b\nbody",
		"x\ntags: #one, #two\n", "\n\nleading", "trailing\n\n", "# Title\n", "x\r\ny\r\n", "---\n", "title: x\n", "tags: #\n"} {
		p := fmt.Sprintf("t%02d.md", i)
		_, err := call(t, h, map[string]any{"command": "create", "path": "/memories/" + p, "file_text": text})
		require.NoError(t, err, "%q", text)
		got, _, err := files.ReadText(ctx, p)
		require.NoError(t, err)
		assert.Equal(t, text, got, "create %q", text)
		_, err = call(t, h, map[string]any{"command": "insert", "path": "/memories/" + p, "insert_line": 0, "insert_text": "first"})
		require.NoError(t, err, "%q", text)
		got, _, err = files.ReadText(ctx, p)
		require.NoError(t, err)
		want := "first\n" + text
		if text == "" {
			want = "first\n"
		} else if !strings.HasSuffix(text, "\n") {
			want += "\n"
		}
		assert.Equal(t, want, got, "insert into %q", text)
	}
	// The files are documents of the global bank, under memories/.
	doc, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "memories/t03.md"})
	require.NoError(t, err)
	assert.Equal(t, "first\n---\ntitle: x\n---\nbody\n", doc.Text())
}

func TestBankFilesRefusesJSON(t *testing.T) {
	bank := memorybank.New(new(memorybank.MemStore), nil)
	_, err := bank.Write(context.Background(), memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "memories/data.json", Content: json.RawMessage(`{"a":1}`)})
	require.NoError(t, err)
	h := claudememory.New(claudememory.BankFiles(bank), nil)
	_, err = call(t, h, map[string]any{"command": "create", "path": "/memories/prefs.json", "file_text": "{}"})
	assert.ErrorIs(t, err, claudememory.ErrInvalidPath)
	assert.Contains(t, err.Error(), "name memory files .md or .txt")
	got, err := call(t, h, map[string]any{"command": "view", "path": "/memories"})
	require.NoError(t, err)
	assert.NotContains(t, got, "data.json")
}
