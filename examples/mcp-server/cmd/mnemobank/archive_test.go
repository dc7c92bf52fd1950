package main

import (
	"archive/tar"
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"testing"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memories/filestore"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// makeBank writes a bank directory of n documents, each written three
// times (so with history), and a memories file.
func makeBank(t testing.TB, n int) (root, memFile string) {
	t.Helper()
	dir := t.TempDir()
	root = filepath.Join(dir, "docs")
	s, err := fsstore.Open(root, nil)
	require.NoError(t, err)
	defer s.Close()
	bank := memorybank.New(s, nil)
	ctx := context.Background()
	for i := range n {
		for v := range 3 {
			scope, branch := memorybank.ScopeGlobal, ""
			if i%2 == 1 {
				scope, branch = memorybank.ScopeBranch, "feature/x"
			}
			_, err := bank.Write(ctx, memorybank.WriteRequest{Scope: scope, Branch: branch, Path: fmt.Sprintf("notes/n%03d.md", i), Text: fmt.Sprintf("# Note %d\n\nversion %d\n", i, v)})
			require.NoError(t, err)
		}
	}
	memFile = filepath.Join(dir, ".agent", "memories.md")
	m, err := memories.New(filestore.New(memFile, nil), nil)
	require.NoError(t, err)
	_, err = m.Add(ctx, "keep tests fast", "testing")
	require.NoError(t, err)
	return root, memFile
}

// manifestTimeAndSource are the manifest fields that differ between
// exports of equal banks.
var manifestTimeAndSource = regexp.MustCompile(`"(createdAt|source)":"[^"]*"`)

func exportOf(t *testing.T, bin, root, memFile string) []byte {
	t.Helper()
	out, err := exec.Command(bin, "export", "--root", root, "--memories", memFile).Output()
	require.NoError(t, err)
	return normalized(t, out)
}

// normalized is the archive's entries (headers, checksum records, bytes)
// with the manifest's time and source blanked: they differ between exports
// of equal banks, and with the source the manifest's size in its header.
func normalized(t *testing.T, data []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	tr := tar.NewReader(bytes.NewReader(data))
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out.Bytes()
		}
		require.NoError(t, err)
		body, err := io.ReadAll(tr)
		require.NoError(t, err)
		if h.Name == "mnemobank/manifest.jsonl" {
			body = manifestTimeAndSource.ReplaceAll(body, []byte(`"$1":""`))
		}
		fmt.Fprintf(&out, "%s %o %d %v %q %d\n", h.Name, h.Mode, h.ModTime.Unix(), h.Typeflag, h.PAXRecords, len(body))
		out.Write(body)
	}
}

func TestExportImportCommands(t *testing.T) {
	bin := serverBinary(t)
	root, memFile := makeBank(t, 6)
	file := filepath.Join(t.TempDir(), "bank.tar")
	out, err := exec.Command(bin, "export", "--root", root, "--memories", memFile, "-o", file).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "exported 6 documents")

	dst := filepath.Join(t.TempDir(), "docs")
	dstMem := filepath.Join(filepath.Dir(dst), ".agent", "memories.md")
	// A dry run prints the plan and writes nothing.
	out, err = exec.Command(bin, "import", "--root", dst, "--memories", dstMem, file).Output()
	require.NoError(t, err)
	require.Contains(t, string(out), "create   document global-memory-bank/notes/n000.md")
	require.Contains(t, string(out), "create   memory")
	_, err = os.Stat(dstMem)
	require.ErrorIs(t, err, os.ErrNotExist)

	out, err = exec.Command(bin, "import", "--root", dst, "--memories", dstMem, "--apply", file).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.True(t, bytes.Equal(exportOf(t, bin, root, memFile), exportOf(t, bin, dst, dstMem)), "export → import → export gives the same archive")

	// copy: directory to directory, memories beside the bank.
	dst2 := filepath.Join(t.TempDir(), "docs")
	out, err = exec.Command(bin, "copy", "--from", root, "--to", dst2).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.Contains(t, string(out), "imported")
	require.True(t, bytes.Equal(exportOf(t, bin, root, memFile), exportOf(t, bin, dst2, filepath.Join(filepath.Dir(dst2), ".agent", "memories.md"))))

	// Usage errors exit 2.
	err = exec.Command(bin, "import", "--on-conflict", "mine", file).Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	require.Equal(t, 2, ee.ExitCode())
}

// TestImportKilledAndRunAgain kills import --apply at random points (after a
// random number of its report lines) and runs it again: the bank ends as
// after one uninterrupted import.
func TestImportKilledAndRunAgain(t *testing.T) {
	bin := serverBinary(t)
	root, memFile := makeBank(t, 40)
	file := filepath.Join(t.TempDir(), "bank.tar")
	require.NoError(t, exec.Command(bin, "export", "--root", root, "--memories", memFile, "-o", file).Run())
	want := exportOf(t, bin, root, memFile)
	rng := rand.New(rand.NewPCG(1, uint64(os.Getpid())))
	for round := range 5 {
		dst := filepath.Join(t.TempDir(), "docs")
		dstMem := filepath.Join(filepath.Dir(dst), ".agent", "memories.md")
		for kill := range 3 {
			cmd := exec.Command(bin, "import", "--root", dst, "--memories", dstMem, "--apply", file)
			stdout, err := cmd.StdoutPipe()
			require.NoError(t, err)
			require.NoError(t, cmd.Start())
			lines, stop := 0, rng.IntN(42)
			sc := bufio.NewScanner(stdout)
			for lines < stop && sc.Scan() {
				lines++
			}
			require.NoError(t, cmd.Process.Kill(), "round %d kill %d", round, kill)
			_ = cmd.Wait()
		}
		out, err := exec.Command(bin, "import", "--root", dst, "--memories", dstMem, "--apply", file).CombinedOutput()
		require.NoError(t, err, "%s", out)
		require.NotRegexp(t, `(?m)^conflict`, string(out), "a re-run finds only what it wrote itself")
		require.True(t, bytes.Equal(want, exportOf(t, bin, dst, dstMem)), "round %d: the bank differs from an uninterrupted import", round)
	}
}

// TestCopyPostgresRoundTrip: directory → PostgreSQL → directory keeps the
// archive byte for byte (but the manifest's time and source).
func TestCopyPostgresRoundTrip(t *testing.T) {
	dsn := os.Getenv("MNEMOBANK_PG_DSN")
	if dsn == "" {
		t.Skip("MNEMOBANK_PG_DSN is not set: no PostgreSQL for the pgstore round trip (.ci/run starts one)")
	}
	bin := serverBinary(t)
	root, memFile := makeBank(t, 8)
	ns := fmt.Sprintf("archive-%d-%d", os.Getpid(), rand.IntN(1<<30))
	out, err := exec.Command(bin, "copy", "--from", root, "--to", dsn, "--to-namespace", ns).CombinedOutput()
	require.NoError(t, err, "%s", out)
	pgExport, err := exec.Command(bin, "export", "--postgres", dsn, "--namespace", ns).Output()
	require.NoError(t, err)
	want := exportOf(t, bin, root, memFile)
	require.True(t, bytes.Equal(want, normalized(t, pgExport)), "export of the PostgreSQL copy")
	back := filepath.Join(t.TempDir(), "docs")
	out, err = exec.Command(bin, "copy", "--from", dsn, "--from-namespace", ns, "--to", back).CombinedOutput()
	require.NoError(t, err, "%s", out)
	require.True(t, bytes.Equal(want, exportOf(t, bin, back, filepath.Join(filepath.Dir(back), ".agent", "memories.md"))))
}

// An archive on standard output imports from standard input ("-"), which
// the command copies to a temporary spool of its own and removes.
func TestExportImportThroughStandardStreams(t *testing.T) {
	root, memFile := makeBank(t, 4)
	archiveBytes, _, err := runCmd(t, "", "export", "--root", root, "--memories", memFile)
	require.NoError(t, err)
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	dst := filepath.Join(t.TempDir(), "docs")
	out, summary, err := runCmd(t, archiveBytes, "import", "-", "--root", dst, "--memories", filepath.Join(filepath.Dir(dst), "m.md"), "--apply")
	require.NoError(t, err)
	require.Contains(t, summary, "6 created", out)
	require.Contains(t, out, "create   document global-memory-bank/notes/n002.md")
	left, err := os.ReadDir(tmp)
	require.NoError(t, err)
	require.Empty(t, left, "the spools are removed")
}
