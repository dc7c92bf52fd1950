package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/archive/foreign"
)

const foreignTestdata = "../../../../memorybank/archive/foreign/testdata/"

func runCmd(t *testing.T, stdin string, args ...string) (string, string, error) {
	t.Helper()
	var out, errOut bytes.Buffer
	ok, err := runSubcommand(context.Background(), args, strings.NewReader(stdin), &out, &errOut)
	require.True(t, ok)
	return out.String(), errOut.String(), err
}

func TestImportFrom(t *testing.T) {
	tests := []struct {
		from    string
		args    []string
		created int
		first   string
	}{
		{"claude-code", []string{foreignTestdata + "claude-code/project", foreignTestdata + "claude-code/memory"}, 8, "create   claude-code/claude/CLAUDE.md"},
		{"mcp-memory", []string{foreignTestdata + "mcp-memory/memory.jsonl"}, 6, "create   mcp-memory/mnemobank.md"},
		{"anthropic-memory-store", []string{foreignTestdata + "memory-store/listing.json"}, 4, "create   memories/preferences.md"},
		{"markdown", []string{foreignTestdata + "markdown/vault"}, 3, "create   notes/Coffee Brewing.md"},
	}
	for _, tt := range tests {
		t.Run(tt.from, func(t *testing.T) {
			root := filepath.Join(t.TempDir(), "docs")
			base := append([]string{"import", "--from", tt.from, "--root", root}, tt.args...)
			out, summary, err := runCmd(t, "", base...)
			require.NoError(t, err)
			assert.True(t, strings.HasPrefix(out, tt.first+"\n"), out)
			assert.Equal(t, tt.created, strings.Count(out, "create "))
			assert.Contains(t, summary, "Dry run: nothing was written")
			_, err = os.Stat(root)
			assert.True(t, os.IsNotExist(err) || isEmptyDir(t, root), "a dry run writes nothing")

			apply := append([]string{"import", "--apply", "--from", tt.from, "--root", root}, tt.args...)
			_, summary, err = runCmd(t, "", apply...)
			require.NoError(t, err)
			assert.Contains(t, summary, "created")
			out, _, err = runCmd(t, "", apply...)
			require.NoError(t, err)
			assert.Equal(t, tt.created, strings.Count(out, "skip "), "a second import skips everything")
		})
	}
}

func isEmptyDir(t *testing.T, dir string) bool {
	entries, err := os.ReadDir(dir)
	require.NoError(t, err)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			return false
		}
	}
	return true
}

// The memory store listing round-trips through the command: import, then
// export --format anthropic-memory-store gives the same files.
func TestMemoryStoreRoundTripCommand(t *testing.T) {
	root := filepath.Join(t.TempDir(), "docs")
	sample := foreignTestdata + "memory-store/listing.json"
	_, _, err := runCmd(t, "", "import", "--apply", "--from", "anthropic-memory-store", "--root", root, sample)
	require.NoError(t, err)
	out := filepath.Join(t.TempDir(), "listing.json")
	_, _, err = runCmd(t, "", "export", "--format", "anthropic-memory-store", "--root", root, "-o", out)
	require.NoError(t, err)
	want := readListing(t, sample)
	got := readListing(t, out)
	assert.ElementsMatch(t, want, got)
}

func readListing(t *testing.T, name string) []foreign.Doc {
	f, err := os.Open(name)
	require.NoError(t, err)
	defer f.Close()
	docs, err := foreign.ReadMemoryStore(f, name, nil)
	require.NoError(t, err)
	return docs
}

func TestImportFromUsageErrors(t *testing.T) {
	root := filepath.Join(t.TempDir(), "docs")
	for _, args := range [][]string{
		{"import", "--from", "evernote", "--root", root, "x"},
		{"import", "--from", "markdown", "--root", root},
		{"import", "--from", "markdown", "--prefix", "notes", "--root", root, "x"},
		{"import", "--from", "anthropic-memory-store", "--prefix", "x/", "--root", root, "-"},
		{"import", "--prefix", "x/", "--root", root, "bank.tar"},
		{"export", "--format", "zip", "--root", root},
	} {
		_, _, err := runCmd(t, "", args...)
		require.ErrorIs(t, err, errUsage, "%v", args)
	}
	// A source that is wrong is refused with its typed error, naming it.
	_, _, err := runCmd(t, "{\"type\":\"entity\"}\n", "import", "--from", "mcp-memory", "--root", root, "-")
	require.ErrorIs(t, err, foreign.ErrFormat)
	assert.Contains(t, err.Error(), "line 1")
}

// Flags count after the paths too, as the README writes them: before, Go's
// flag package stopped at the first path and "--apply" was read as a file.
func TestImportFlagsAfterArguments(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "bank")
	mem := filepath.Join(dir, "m.md")
	_, summary, err := runCmd(t, "", "import", "--from", "mcp-memory", foreignTestdata+"mcp-memory/memory.jsonl", "--root", root, "--memories", mem, "--apply")
	require.NoError(t, err)
	assert.Contains(t, summary, "imported from mcp-memory: 6 created")

	archiveFile := filepath.Join(dir, "bank.tar")
	_, _, err = runCmd(t, "", "export", "-o", archiveFile, "--root", root, "--memories", mem)
	require.NoError(t, err)
	_, summary, err = runCmd(t, "", "import", archiveFile, "--root", filepath.Join(dir, "copy"), "--memories", mem, "--apply", "--on-conflict", "both")
	require.NoError(t, err)
	assert.NotContains(t, summary, "Dry run", "--apply after the file applies")
	assert.FileExists(t, filepath.Join(dir, "copy", "global-memory-bank", "mcp-memory", "mnemobank.md"))

	// After "--" everything is a path, even what looks like a flag.
	_, _, err = runCmd(t, "", "import", "--from", "markdown", "--root", root, "--memories", mem, "--", "--apply")
	var pe *os.PathError
	require.ErrorAs(t, err, &pe, "--apply after -- is a path")
	assert.Equal(t, "--apply", pe.Path)
}

// Importing a project twice into its own docs/ bank does not nest the bank
// in itself (the second run finds only what the first read, unchanged);
// CLAUDE.local.md is left out, and listed, unless --include-local.
func TestImportClaudeCodeTwiceDoesNotNest(t *testing.T) {
	proj := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(proj, "CLAUDE.md"), []byte("# Project\nRun the tests.\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(proj, "CLAUDE.local.md"), []byte("# Mine\n"), 0o644))
	root := filepath.Join(proj, "docs")
	args := []string{"import", "--from", "claude-code", proj, "--root", root, "--memories", filepath.Join(t.TempDir(), "m.md"), "--apply"}
	out, _, err := runCmd(t, "", args...)
	require.NoError(t, err)
	assert.Equal(t, "create   claude-code/CLAUDE.md\nnot-read CLAUDE.local.md: a personal file (CLAUDE.local.md): read only with --include-local, since a bank may be shared\n"+
		"not-read docs: the bank's own directory: never imported\n", out)
	out, _, err = runCmd(t, "", args...)
	require.NoError(t, err)
	assert.NotContains(t, out, "create", "nothing new the second time:\n%s", out)
	assert.Contains(t, out, "skip     claude-code/CLAUDE.md")
	assert.Contains(t, out, "not-read docs: the bank's own directory")
	assert.NoDirExists(t, filepath.Join(root, "global-memory-bank", "claude-code", "docs"))

	out, _, err = runCmd(t, "", append(args, "--include-local")...)
	require.NoError(t, err)
	assert.Contains(t, out, "create   claude-code/CLAUDE.local.md")
}

// The command opens a directory source itself, as an os.Root: a source
// that is the bank, or inside it, is refused; a link that leaves the
// source is refused by the root, naming the entry; nothing is written.
func TestImportDirectorySourceIsOpenedByTheCommand(t *testing.T) {
	proj := t.TempDir()
	root := filepath.Join(proj, "docs")
	mem := filepath.Join(t.TempDir(), "m.md")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "global-memory-bank", "notes"), 0o755))
	for _, src := range []string{root, filepath.Join(root, "global-memory-bank", "notes")} {
		_, _, err := runCmd(t, "", "import", "--from", "markdown", src, "--root", root, "--memories", mem, "--apply")
		require.ErrorIs(t, err, foreign.ErrExcluded, src)
		assert.Contains(t, err.Error(), "the bank's own directory")
	}

	vault := filepath.Join(proj, "vault")
	outside := filepath.Join(t.TempDir(), "secret.md")
	require.NoError(t, os.MkdirAll(vault, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(vault, "note.md"), []byte("# Note\n"), 0o644))
	require.NoError(t, os.WriteFile(outside, []byte("# Secret\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(vault, "leak.md")))
	_, _, err := runCmd(t, "", "import", "--from", "markdown", vault, "--root", root, "--memories", mem, "--apply")
	require.ErrorIs(t, err, foreign.ErrUnsafePath)
	var se *foreign.SourceError
	require.ErrorAs(t, err, &se)
	assert.Equal(t, "leak.md", se.Entry)
	assert.NoFileExists(t, filepath.Join(root, "global-memory-bank", "notes", "note.md"), "nothing was written")

	require.NoError(t, os.Remove(filepath.Join(vault, "leak.md")))
	out, _, err := runCmd(t, "", "import", "--from", "markdown", vault, "--root", root, "--memories", mem, "--apply")
	require.NoError(t, err)
	assert.Equal(t, "create   notes/note.md\n", out)
}
