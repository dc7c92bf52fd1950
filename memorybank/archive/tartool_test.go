package archive_test

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// GNU tar lists and unpacks an archive without a warning: the checksum
// record is one it knows (it used to warn once per entry about a vendor
// keyword).
func TestGNUTarReadsAnArchiveWithoutWarnings(t *testing.T) {
	tarBin, err := exec.LookPath("tar")
	if err != nil {
		t.Skip("tar is not installed")
	}
	if out, err := exec.Command(tarBin, "--version").Output(); err != nil || !bytes.Contains(out, []byte("GNU tar")) {
		t.Skip("tar is not GNU tar")
	}
	src := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil), Clock: fixed})
	fill(t, src, newMem())
	data, m := export(t, src, newMem())
	file := filepath.Join(t.TempDir(), "bank.tar")
	require.NoError(t, os.WriteFile(file, data, 0o644))
	for _, args := range [][]string{{"-tvf", file}, {"-xf", file, "-C", t.TempDir()}} {
		var stderr bytes.Buffer
		cmd := exec.Command(tarBin, args...)
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		require.NoError(t, err, "%s", stderr.String())
		assert.Empty(t, stderr.String(), "tar %s", args[0])
		if args[0] == "-tvf" {
			assert.Equal(t, m.Entries+1, strings.Count(string(out), "\n"), "every entry and the manifest listed")
		}
	}
}

// An archive written with the former checksum keyword is still read.
func TestImportReadsTheFormerChecksumKeyword(t *testing.T) {
	data, err := os.ReadFile("testdata/legacy-sha256.tar")
	require.NoError(t, err)
	dst := memorybank.New(&memorybank.MemStore{}, &memorybank.Options{History: history.New(nil)})
	res, _, err := importInto(t, dst, archive.Memories{}, data, archive.ImportOptions{Apply: true})
	require.NoError(t, err)
	assert.Positive(t, res.Created)
}
