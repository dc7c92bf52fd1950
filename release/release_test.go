package main

import (
	"bytes"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/mod/sumdb/dirhash"
)

// miniRepo makes a git repository shaped like mnemobank's: a root module,
// a nested module requiring it, one requiring both, a go.work with
// version-specific replaces, all committed.
func miniRepo(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("no git on PATH: the release command needs it")
	}
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":       "module example.com/m\n\ngo 1.25.0\n",
		"m.go":         "package m\n",
		"store/go.mod": "module example.com/m/store\n\ngo 1.25.0\n\nrequire example.com/m v0.0.0\n",
		"store/s.go":   "package store\n",
		"app/go.mod":   "module example.com/m/app\n\ngo 1.25.0\n\nrequire (\n\texample.com/m v0.0.0\n\texample.com/m/store v0.0.0\n)\n",
		"app/go.sum":   "golang.org/x/text v0.36.0 h1:abc=\ngolang.org/x/text v0.36.0/go.mod h1:def=\n",
		"app/main.go":  "package main\n\nfunc main() {}\n",
		"go.work":      "go 1.25.0\n\nuse (\n\t.\n\t./app\n\t./store\n)\n\n// Nested modules build from their directories.\nreplace (\n\texample.com/m v0.0.0 => ./\n\texample.com/m/store v0.0.0 => ./store\n)\n",
		".gitignore":   "/dist/\n",
		"dist/x.bin":   "build output, ignored\n",
	}
	for name, body := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(body), 0o644))
	}
	for _, args := range [][]string{
		{"init", "-q"}, {"add", "-A"},
		{"-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-q", "-m", "init"},
	} {
		out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
		require.NoError(t, err, "%s", out)
	}
	return dir
}

func tags(t *testing.T, dir string) []string {
	out, err := exec.Command("git", "-C", dir, "tag", "--list").Output()
	require.NoError(t, err)
	return strings.Fields(string(out))
}

func TestReleaseDryRunChangesNothing(t *testing.T) {
	dir := miniRepo(t)
	before, err := os.ReadFile(filepath.Join(dir, "app", "go.mod"))
	require.NoError(t, err)
	var out bytes.Buffer
	require.NoError(t, run(t.Context(), []string{"-n", "-C", dir, "v1.2.3"}, &out, &out))

	plan := out.String()
	// Dependency order: the root, then store (needs the root), then app.
	iRoot, iStore, iApp := strings.Index(plan, "\n  v1.2.3 "), strings.Index(plan, "store/v1.2.3"), strings.Index(plan, "app/v1.2.3")
	require.True(t, iRoot >= 0 && iStore >= 0 && iApp >= 0, "%s", plan)
	assert.Less(t, iRoot, iStore)
	assert.Less(t, iStore, iApp)
	assert.Contains(t, plan, "go.mod + example.com/m/store v1.2.3")
	assert.Contains(t, plan, "dry run")

	after, err := os.ReadFile(filepath.Join(dir, "app", "go.mod"))
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after), "a dry run wrote go.mod")
	assert.Empty(t, tags(t, dir), "a dry run created tags")
}

func TestReleaseCommitsAndTags(t *testing.T) {
	dir := miniRepo(t)
	var out bytes.Buffer
	t.Setenv("GIT_AUTHOR_NAME", "t")
	t.Setenv("GIT_AUTHOR_EMAIL", "t@example.com")
	t.Setenv("GIT_COMMITTER_NAME", "t")
	t.Setenv("GIT_COMMITTER_EMAIL", "t@example.com")
	require.NoError(t, run(t.Context(), []string{"-C", dir, "v1.2.3"}, &out, &out), "%s", out.String())

	assert.ElementsMatch(t, []string{"v1.2.3", "store/v1.2.3", "app/v1.2.3"}, tags(t, dir))
	gomod, err := os.ReadFile(filepath.Join(dir, "app", "go.mod"))
	require.NoError(t, err)
	assert.Contains(t, string(gomod), "example.com/m v1.2.3")
	assert.Contains(t, string(gomod), "example.com/m/store v1.2.3")
	assert.NotContains(t, string(gomod), "v0.0.0")

	// go.sum holds the go.mod hash of the root as the go command computes it
	// from the tagged go.mod, and keeps the third-party lines.
	rootMod, err := os.ReadFile(filepath.Join(dir, "go.mod"))
	require.NoError(t, err)
	want, err := goModHash(rootMod)
	require.NoError(t, err)
	gosum, err := os.ReadFile(filepath.Join(dir, "app", "go.sum"))
	require.NoError(t, err)
	assert.Contains(t, string(gosum), "example.com/m v1.2.3/go.mod "+want+"\n")
	assert.Contains(t, string(gosum), "golang.org/x/text v0.36.0 h1:abc=\n")

	work, err := os.ReadFile(filepath.Join(dir, "go.work"))
	require.NoError(t, err)
	assert.Contains(t, string(work), "example.com/m v1.2.3 => ./")
	assert.NotContains(t, string(work), "v0.0.0")
	assert.Contains(t, string(work), "// Nested modules build from their directories.\nreplace (\n", "the block and its comment stay as written")

	status, err := exec.Command("git", "-C", dir, "status", "--porcelain").Output()
	require.NoError(t, err)
	assert.Empty(t, string(status), "the release left changes uncommitted")

	// A second release at the same version is refused before anything is written.
	err = run(t.Context(), []string{"-C", dir, "v1.2.3"}, &out, &out)
	assert.ErrorIs(t, err, errTagExists)
}

func TestReleaseRefusesBadVersionAndDirtyTree(t *testing.T) {
	dir := miniRepo(t)
	var out bytes.Buffer
	err := run(t.Context(), []string{"-n", "-C", dir, "1.2"}, &out, &out)
	assert.ErrorContains(t, err, "v1.2.3")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "m.go"), []byte("package m\n\n// changed\n"), 0o644))
	assert.ErrorIs(t, run(t.Context(), []string{"-C", dir, "v1.2.3"}, &out, &out), errDirty)
	assert.Empty(t, tags(t, dir))
}

func goModHash(gomod []byte) (string, error) {
	return dirhash.DefaultHash([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gomod)), nil
	})
}
