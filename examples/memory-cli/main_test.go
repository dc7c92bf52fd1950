package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

type result struct {
	code           int
	stdout, stderr string
}

func cli(t *testing.T, dir string, args ...string) result {
	t.Helper()
	var out, errw bytes.Buffer
	code := run(context.Background(), append([]string{"--dir", dir}, args...), &out, &errw)
	return result{code, out.String(), errw.String()}
}

func TestCLI(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".agent")

	r := cli(t, dir, "--format", "json", "add", "Always use try-catch", "-t", "pattern", "--tags", "error-handling,go")
	require.Equal(t, exitOK, r.code, r.stderr)
	var added memories.Memory
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &added))
	assert.Equal(t, []string{"pattern", "error-handling", "go"}, added.Tags, "type goes first")
	assert.Contains(t, r.stderr, "memory added: "+added.ID, "messages go to stderr")

	r = cli(t, dir, "add", "Use PostgreSQL", "--tags=database")
	require.Equal(t, exitOK, r.code, r.stderr)

	data, err := os.ReadFile(filepath.Join(dir, "memories.md"))
	require.NoError(t, err)
	assert.Contains(t, string(data), "- Tags: pattern, error-handling, go")

	r = cli(t, dir, "search", "TRY-catch", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var found []memories.Memory
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &found))
	require.Len(t, found, 1)
	assert.Equal(t, added.ID, found[0].ID)

	r = cli(t, dir, "search", "nothing like this", "--format", "json")
	assert.Equal(t, exitOK, r.code, "no match is not an error")
	assert.JSONEq(t, "[]", r.stdout)

	r = cli(t, dir, "list")
	require.Equal(t, exitOK, r.code)
	lines := strings.Split(strings.TrimSpace(r.stdout), "\n")
	require.Len(t, lines, 3)
	assert.True(t, strings.HasPrefix(lines[0], "ID "))
	assert.Contains(t, lines[1], added.ID)

	r = cli(t, dir, "show", added.ID)
	require.Equal(t, exitOK, r.code)
	assert.Contains(t, r.stdout, "Content:\n  Always use try-catch\n")

	r = cli(t, dir, "delete", added.ID)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Empty(t, r.stdout)
	assert.Contains(t, r.stderr, "memory deleted: "+added.ID)

	for _, args := range [][]string{{"show", added.ID}, {"delete", added.ID}} {
		r = cli(t, dir, args...)
		assert.Equal(t, exitNotFound, r.code, "%v", args)
		assert.Contains(t, r.stderr, "memory not found")
		assert.Contains(t, r.stderr, "1 memory exists", "says what exists instead")
		assert.Empty(t, r.stdout)
	}

	// The delete can be undone.
	r = cli(t, dir, "trash")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, added.ID)
	r = cli(t, dir, "restore", added.ID)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "memory restored: "+added.ID)
	r = cli(t, dir, "show", added.ID)
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, "Content:\n  Always use try-catch\n")
	r = cli(t, dir, "restore", added.ID)
	assert.Equal(t, exitNotFound, r.code, "restored once")
}

func TestCLIUsageErrors(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".agent")
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{nil, "missing command"},
		{[]string{"frob"}, `unknown command "frob"`},
		{[]string{"add"}, "add takes 1 argument(s), got 0"},
		{[]string{"add", "two", "words"}, "got 2"},
		{[]string{"show"}, "show takes 1"},
		{[]string{"list", "--format", "yaml"}, `--format "yaml"`},
		{[]string{"list", "--verbose"}, `unknown flag "--verbose"`},
		{[]string{"add", "x", "-t"}, "flag -t needs a value"},
		{[]string{"list", "--tags", "a"}, "only for add"},
		{[]string{"add", "   "}, "content is empty"},
		{[]string{"add", "x", "--tags", "a\nb"}, "tag"},
	} {
		r := cli(t, dir, tc.args...)
		assert.Equal(t, exitUsage, r.code, "%q", tc.args)
		assert.Contains(t, r.stderr, tc.msg, "%q", tc.args)
		assert.Empty(t, r.stdout)
	}
	_, err := os.Stat(filepath.Join(dir, "memories.md"))
	assert.ErrorIs(t, err, os.ErrNotExist, "usage errors write nothing")
}

func TestCLIJSONEmptyTags(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".agent")
	r := cli(t, dir, "--format=json", "add", "no tags here")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stdout, `"tags": []`)
}

// --dir creates only the directory it names, never missing parents: a typo
// fails instead of creating a tree.
func TestDirCreatesNoParents(t *testing.T) {
	base := t.TempDir()
	r := cli(t, filepath.Join(base, "typo", "deeper", ".agent"), "add", "x")
	assert.Equal(t, exitNotFound, r.code)
	assert.Contains(t, r.stderr, "never missing parents")
	_, err := os.Stat(filepath.Join(base, "typo"))
	assert.ErrorIs(t, err, os.ErrNotExist)

	r = cli(t, filepath.Join(base, ".agent"), "add", "x")
	require.Equal(t, exitOK, r.code, r.stderr)
}

func TestCLISearchLimitAndSimilar(t *testing.T) {
	dir := filepath.Join(t.TempDir(), ".agent")
	for i := range 12 {
		r := cli(t, dir, "add", fmt.Sprintf("Build step %d caches the module downloads", i))
		require.Equal(t, exitOK, r.code, r.stderr)
	}
	r := cli(t, dir, "search", "how are module downloads cached", "--limit", "3", "--format", "json")
	require.Equal(t, exitOK, r.code, r.stderr)
	var hits []memories.Hit
	require.NoError(t, json.Unmarshal([]byte(r.stdout), &hits))
	require.Len(t, hits, 3)
	assert.Positive(t, hits[0].Score)
	assert.Contains(t, hits[0].Snippet, "module downloads")
	assert.Contains(t, r.stderr, "9 more match")

	r = cli(t, dir, "search", "module")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Len(t, strings.Split(strings.TrimSpace(r.stdout), "\n"), 1+memories.DefaultSearchLimit, "a header and the default limit")
	assert.Contains(t, r.stdout, "SCORE")

	for _, bad := range [][]string{{"search", "x", "--limit", "0"}, {"search", "x", "--limit", "101"}, {"search", "x", "--limit", "ten"}, {"list", "--limit", "3"}, {"list", "--if-no-similar"}} {
		r = cli(t, dir, bad...)
		assert.Equal(t, exitUsage, r.code, "%v", bad)
	}

	r = cli(t, dir, "add", "Always wrap adapter calls in try-catch so one failing adapter does not stop the loop")
	require.Equal(t, exitOK, r.code, r.stderr)
	r = cli(t, dir, "add", "Wrap every adapter call in a try-catch: a failing adapter must not stop the loop")
	require.Equal(t, exitOK, r.code, r.stderr)
	assert.Contains(t, r.stderr, "similar: mem-")
	r = cli(t, dir, "add", "Wrap adapter calls in try-catch so a failing adapter does not stop the loop", "--if-no-similar")
	assert.Equal(t, exitNotFound, r.code)
	assert.Contains(t, r.stderr, "nothing was written")
}
