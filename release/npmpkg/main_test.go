package main

import (
	"archive/tar"
	"archive/zip"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fakeDist writes GoReleaser-shaped archives (binaries at the root, beside
// LICENSE) for two platforms, and checksums.txt.
func fakeDist(t *testing.T) string {
	dist := t.TempDir()
	var sums bytes.Buffer
	write := func(name string, data []byte) {
		require.NoError(t, os.WriteFile(filepath.Join(dist, name), data, 0o644))
		h := sha256.Sum256(data)
		fmt.Fprintf(&sums, "%s  %s\n", hex.EncodeToString(h[:]), name)
	}
	var tgz bytes.Buffer
	gz := gzip.NewWriter(&tgz)
	tw := tar.NewWriter(gz)
	for _, f := range []string{"LICENSE", "mnemobank", "mnemobank-dot"} {
		body := []byte("#!/bin/sh\necho " + f + "\n")
		require.NoError(t, tw.WriteHeader(&tar.Header{Name: f, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}))
		_, err := tw.Write(body)
		require.NoError(t, err)
	}
	require.NoError(t, tw.Close())
	require.NoError(t, gz.Close())
	write("mnemobank_1.2.3_linux_amd64.tar.gz", tgz.Bytes())

	var zb bytes.Buffer
	zw := zip.NewWriter(&zb)
	for _, f := range []string{"README.md", "mnemobank.exe", "mnemobank-dot.exe"} {
		w, err := zw.Create(f)
		require.NoError(t, err)
		_, err = w.Write([]byte("MZ " + f))
		require.NoError(t, err)
	}
	require.NoError(t, zw.Close())
	write("mnemobank_1.2.3_windows_arm64.zip", zb.Bytes())
	require.NoError(t, os.WriteFile(filepath.Join(dist, "checksums.txt"), sums.Bytes(), 0o644))
	return dist
}

func readPkg(t *testing.T, dir string) map[string]any {
	data, err := os.ReadFile(filepath.Join(dir, "package.json"))
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(data, &m))
	return m
}

func TestPackagesFromArchives(t *testing.T) {
	dist := fakeDist(t)
	out := filepath.Join(t.TempDir(), "npm")
	var log bytes.Buffer
	require.NoError(t, run([]string{"-dist", dist, "-launcher", "../../npm/mnemobank", "-out", out}, &log, &log), "%s", log.String())

	linux := readPkg(t, filepath.Join(out, "linux-x64"))
	assert.Equal(t, "@mnemobank/linux-x64", linux["name"])
	assert.Equal(t, "1.2.3", linux["version"])
	assert.Equal(t, []any{"linux"}, linux["os"])
	assert.Equal(t, []any{"x64"}, linux["cpu"])
	for _, b := range []string{"mnemobank", "mnemobank-dot"} {
		fi, err := os.Stat(filepath.Join(out, "linux-x64", "bin", b))
		require.NoError(t, err)
		assert.NotZero(t, fi.Mode().Perm()&0o100, "%s is executable", b)
	}
	win := readPkg(t, filepath.Join(out, "win32-arm64"))
	assert.Equal(t, []any{"win32"}, win["os"])
	assert.Equal(t, []any{"arm64"}, win["cpu"])
	assert.FileExists(t, filepath.Join(out, "win32-arm64", "bin", "mnemobank-dot.exe"))

	launcher := readPkg(t, filepath.Join(out, "mnemobank"))
	assert.Equal(t, "mnemobank", launcher["name"])
	assert.Equal(t, "1.2.3", launcher["version"])
	assert.Equal(t, map[string]any{"@mnemobank/linux-x64": "1.2.3", "@mnemobank/win32-arm64": "1.2.3"}, launcher["optionalDependencies"])
	assert.FileExists(t, filepath.Join(out, "mnemobank", "bin", "mnemobank.js"))
}

func TestPackagesRefuseATamperedArchive(t *testing.T) {
	dist := fakeDist(t)
	f, err := os.OpenFile(filepath.Join(dist, "mnemobank_1.2.3_linux_amd64.tar.gz"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.Write([]byte("x"))
	require.NoError(t, err)
	require.NoError(t, f.Close())
	var log bytes.Buffer
	err = run([]string{"-dist", dist, "-launcher", "../../npm/mnemobank", "-out", t.TempDir()}, &log, &log)
	assert.ErrorIs(t, err, errChecksum)
}

func TestPackagesNeedArchives(t *testing.T) {
	dist := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(dist, "checksums.txt"), nil, 0o644))
	var log bytes.Buffer
	assert.ErrorIs(t, run([]string{"-dist", dist, "-out", t.TempDir()}, &log, &log), errNoArchives)
}
