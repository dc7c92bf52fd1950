package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/release/modset"
)

// TestGoInstallFromProxy installs the server as a user does once the
// modules are tagged: the checkout's modules, made into a release at
// v0.0.1-test exactly as the release command makes one, are served by a
// file-system GOPROXY chained before the usual one, and
// GOWORK=off go install …/cmd/mnemobank@v0.0.1-test runs in a fresh GOPATH.
// The installed binary must report that version and answer tools/list.
//
// Third-party modules come from this machine's module cache (its
// cache/download directory is itself a GOPROXY) before the network, so
// only the compile is cold; the fresh GOMODCACHE keeps a stale
// v0.0.1-test of an earlier run from being reused.
func TestGoInstallFromProxy(t *testing.T) {
	goBin, err := exec.LookPath("go")
	if err != nil {
		t.Skip("no go command on PATH: the install cannot be tried")
	}
	const version = "v0.0.1-test"
	root, err := filepath.Abs("..")
	require.NoError(t, err)
	mods, err := modset.Load(root, toolModule)
	require.NoError(t, err)
	rel, err := modset.Build(mods, version, t.TempDir())
	require.NoError(t, err)
	proxy := t.TempDir()
	require.NoError(t, rel.WriteProxy(proxy))

	goenv := func(key string) string {
		out, err := exec.Command(goBin, "env", key).Output()
		require.NoError(t, err)
		return strings.TrimSpace(string(out))
	}
	upstream := goenv("GOPROXY")
	sharedCache := filepath.Join(goenv("GOMODCACHE"), "cache", "download")
	home := t.TempDir()
	gopath := filepath.Join(home, "go")
	env := append(os.Environ(),
		"GOWORK=off",
		"GOTOOLCHAIN=local",
		"GOPATH="+gopath,
		"GOMODCACHE="+filepath.Join(gopath, "pkg", "mod"),
		"GOBIN=",
		// -modcacherw: so the test's temporary directory can be removed.
		// -trimpath and no cgo, as the release archives are built: the
		// compiled third-party packages are then shared with GoReleaser's
		// build through the build cache (without -trimpath, their fresh
		// module cache directory would be part of every cache key).
		"GOFLAGS=-modcacherw -trimpath",
		"CGO_ENABLED=0",
		"GOPROXY=file://"+filepath.ToSlash(proxy)+",file://"+filepath.ToSlash(sharedCache)+","+upstream,
		"GONOSUMDB=github.com/mnemobank/mnemobank",
	)
	pkg := "github.com/mnemobank/mnemobank/examples/mcp-server/cmd/mnemobank@" + version
	install := exec.CommandContext(t.Context(), goBin, "install", pkg)
	install.Dir = home // outside any module or workspace
	install.Env = env
	out, err := install.CombinedOutput()
	require.NoError(t, err, "go install %s:\n%s", pkg, out)

	bin := filepath.Join(gopath, "bin", "mnemobank")
	if _, err := os.Stat(bin + ".exe"); err == nil {
		bin += ".exe"
	}
	ver, err := exec.Command(bin, "--version").Output()
	require.NoError(t, err)
	assert.Contains(t, string(ver), "mnemobank "+version+" ", "--version of the installed binary")

	tools := toolsList(t, t.Context(), bin, "--root", t.TempDir(), "--language", "en")
	assert.Contains(t, tools, "read_context")
	assert.Contains(t, tools, "add_memory")
}
