package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// The locale decides the default language: the first of LC_ALL,
// LC_MESSAGES and LANG that is set; only ja* and zh* leave English.
func TestDefaultLanguageFollowsTheLocale(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want memorybank.Language
	}{
		{nil, memorybank.English},
		{map[string]string{"LANG": "ja_JP.UTF-8"}, memorybank.Japanese},
		{map[string]string{"LANG": "zh_CN.UTF-8"}, memorybank.Chinese},
		{map[string]string{"LANG": "fr_FR.UTF-8"}, memorybank.English},
		{map[string]string{"LANG": "C.UTF-8"}, memorybank.English},
		{map[string]string{"LC_MESSAGES": "zh_TW", "LANG": "ja_JP"}, memorybank.Chinese},
		{map[string]string{"LC_ALL": "en_US.UTF-8", "LC_MESSAGES": "ja_JP", "LANG": "ja_JP"}, memorybank.English},
		{map[string]string{"LC_ALL": "ja", "LANG": "en_US"}, memorybank.Japanese},
	} {
		assert.Equal(t, c.want, defaultLanguage(func(k string) string { return c.env[k] }), "%v", c.env)
	}
}

// Without --root the bank is .mnemobank/ at the git root (or the working
// directory), unless a bank is already there: .mnemobank/ first, then the
// memory-bank layout under docs/. A docs/ folder of a documentation site
// is never written to.
func TestDefaultRoot(t *testing.T) {
	t.Run("git root", func(t *testing.T) {
		repo := t.TempDir()
		require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
		require.NoError(t, os.MkdirAll(filepath.Join(repo, "docs", "guide"), 0o755)) // a documentation site
		sub := filepath.Join(repo, "src", "pkg")
		require.NoError(t, os.MkdirAll(sub, 0o755))
		root, why := defaultRoot(sub)
		assert.Equal(t, filepath.Join(repo, DefaultBankDir), root)
		assert.Contains(t, why, "git work tree")
	})
	t.Run("no repository", func(t *testing.T) {
		dir := t.TempDir()
		root, why := defaultRoot(dir)
		assert.Equal(t, filepath.Join(dir, DefaultBankDir), root)
		assert.Contains(t, why, "working directory")
	})
	for _, bank := range []string{"branch-memory-bank", "global-memory-bank"} {
		t.Run("existing layout "+bank, func(t *testing.T) {
			repo := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(repo, ".git"), []byte("gitdir: elsewhere\n"), 0o644)) // a worktree
			require.NoError(t, os.MkdirAll(filepath.Join(repo, "docs", bank), 0o755))
			root, why := defaultRoot(repo)
			assert.Equal(t, filepath.Join(repo, "docs"), root)
			assert.Contains(t, why, "docs/"+bank)
		})
	}
	t.Run("own bank first", func(t *testing.T) {
		repo := t.TempDir()
		require.NoError(t, os.MkdirAll(filepath.Join(repo, "docs", "global-memory-bank"), 0o755))
		require.NoError(t, os.Mkdir(filepath.Join(repo, DefaultBankDir), 0o755))
		root, _ := defaultRoot(repo)
		assert.Equal(t, filepath.Join(repo, DefaultBankDir), root)
	})
}

// The server started without --root in a git repository says where the
// bank is and why, keeps it in .mnemobank/, and git sees none of the
// store's own files (lock, journal, change counter), the bank's caches nor
// the memories' trash: only the documents and their history are there to commit.
func TestServerDefaultBankIsItsOwnAndIgnoresLocalFiles(t *testing.T) {
	repo := t.TempDir()
	require.NoError(t, os.Mkdir(filepath.Join(repo, ".git"), 0o755))
	t.Chdir(repo)
	var stderr syncBuffer
	for range 2 { // the second start finds .agent/, made by the first memory
		st, ct := mcp.NewInMemoryTransports()
		ctx, cancel := context.WithCancel(t.Context())
		done := make(chan error, 1)
		go func() { done <- run(ctx, nil, st, &strings.Builder{}, &stderr) }()
		cs, err := newClient(nil).Connect(ctx, ct, nil)
		require.NoError(t, err)
		ok(t, cs, tools.WriteGlobalMemoryBank, `{"path":"notes.md","content":"kept"}`)
		ok(t, cs, "add_memory", `{"content":"a fact"}`)
		_ = cs.Close()
		cancel()
		<-done
	}

	bankDir := filepath.Join(repo, DefaultBankDir)
	assert.Contains(t, stderr.String(), "bank at "+bankDir+": no bank yet: the default "+DefaultBankDir+"/ at the git work tree's root")
	assert.Contains(t, stderr.String(), "bank at "+bankDir+": the existing bank "+DefaultBankDir+"/")
	assert.NotContains(t, stderr.String(), "NEW, EMPTY", "the default location is not a mistyped --root")
	assert.FileExists(t, filepath.Join(bankDir, "global-memory-bank", "notes.md"))
	assert.NoDirExists(t, filepath.Join(repo, "docs"))

	for dir, names := range map[string][]string{
		bankDir:                       {fsstore.LockFileName, fsstore.JournalFileName, fsstore.ChangesFileName, ".atomicfile-0123456789abcdef.tmp", memorybank.TagIndexName, memorybank.TextIndexName},
		filepath.Join(repo, ".agent"): {trashFileName},
	} {
		ignore, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
		require.NoError(t, err, dir)
		for _, n := range names {
			assert.True(t, ignored(string(ignore), n), "%s/.gitignore ignores %s:\n%s", dir, n, ignore)
		}
		assert.False(t, ignored(string(ignore), "global-memory-bank/notes.md"))
	}
	if git, err := exec.LookPath("git"); err == nil {
		// A bank's caches, as a search of a larger bank leaves them.
		cache := filepath.Join(DefaultBankDir, "global-memory-bank", memorybank.TextIndexName)
		require.NoError(t, os.WriteFile(filepath.Join(repo, cache), []byte("derived"), 0o644))
		require.NoError(t, os.RemoveAll(filepath.Join(repo, ".git")))
		require.NoError(t, exec.Command(git, "-C", repo, "init", "-q").Run())
		out, err := exec.Command(git, "-C", repo, "status", "--porcelain", "--untracked-files=all", "--ignored").Output()
		require.NoError(t, err)
		assert.Contains(t, string(out), "!! "+DefaultBankDir+"/"+fsstore.LockFileName, "git ignores the lock:\n%s", out)
		assert.Contains(t, string(out), "?? "+DefaultBankDir+"/global-memory-bank/notes.md", "the document is there to commit:\n%s", out)
		assert.Contains(t, string(out), "!! "+filepath.ToSlash(cache), "git ignores the bank's caches:\n%s", out)
	}
}

// ignored reports whether one of the .gitignore's patterns matches name.
func ignored(gitignore, name string) bool {
	for _, p := range strings.Split(gitignore, "\n") {
		if p == "" || strings.HasPrefix(p, "#") {
			continue
		}
		if m, _ := filepath.Match(p, name); m {
			return true
		}
	}
	return false
}

// A .gitignore the user wrote is theirs: never overwritten.
func TestBankGitignoreKeepsTheUsers(t *testing.T) {
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".gitignore"), []byte("mine\n"), 0o644))
	st, err := openStores(t.Context(), storeConfig{Root: dir, Memories: filepath.Join(dir, "m.md")}, nil)
	require.NoError(t, err)
	st.close()
	b, err := os.ReadFile(filepath.Join(dir, ".gitignore"))
	require.NoError(t, err)
	assert.Equal(t, "mine\n", string(b))
}
