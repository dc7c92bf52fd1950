package archive_test

import (
	"bufio"
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/archive"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/history"
)

// The goal of the archive: a bank of 10,000 documents with 100,000 history
// entries exports and imports, each, within 3x of cp -r of its directory,
// in bounded memory. BenchmarkMove measures it at MNEMOBANK_BENCH_DOCS
// documents (default 1,000; ten history entries each):
//
//	go test -run '^$' -bench BenchmarkMove -benchtime 3x ./memorybank/archive/
//	MNEMOBANK_BENCH_DOCS=10000 go test -run '^$' -bench BenchmarkMove -benchtime 1x -timeout 1h ./memorybank/archive/
//
// Each iteration copies the directory with cp -r, exports it to a tar file
// and imports that into an empty directory store, in turn, so the three
// see the same disk and cache. It reports the time of each against cp -r
// (export/cp, import/cp; import/cp+sync against a copy made durable, as an
// import is) and, on Linux, the peak resident memory (VmHWM) of
// a child process that only exports, or only imports (export-MB,
// import-MB), which stays flat as the bank grows when both stream.
// TestMoveBenchmarkSmall runs the same code on a small bank in the tests.

const benchHistory = 10 // history entries per document

// makeBenchBank writes a bank directory of n documents, each with its ten
// history entries, as the files an fsstore would hold (written directly,
// without fsync, so that building a large bank is quick).
func makeBenchBank(tb testing.TB, dir string, n int) {
	tb.Helper()
	for i := range n {
		p := fmt.Sprintf("notes/area%02d/n%05d.md", i%50, i)
		sum := sha256.Sum256([]byte(p))
		hdir := filepath.Join(dir, ".history", "global-memory-bank", hex.EncodeToString(sum[:]))
		require.NoError(tb, os.MkdirAll(hdir, 0o755))
		id := fmt.Sprintf("%08x-0000-4000-8000-%012x", i, i)
		for v := 1; v <= benchHistory; v++ {
			var e string
			if v == 1 {
				e = fmt.Sprintf(`{"version":1,"time":"2026-01-02T03:04:05Z","created":true,"patch":[{"op":"add","path":"","value":{"schema":"memory_document_v2","metadata":{"id":%q,"title":"Note %d","documentType":"generic","path":%q,"tags":["bench"],"lastModified":"2026-01-02T03:04:05Z","createdAt":"2026-01-02T03:04:05Z","version":1},"content":"# Note %d\n\nversion 1 of a note of some length, as notes are.\n"}}]}`, id, i, p, i)
			} else {
				e = fmt.Sprintf(`{"version":%d,"time":"2026-01-02T03:04:05Z","patch":[{"op":"replace","path":"/content","value":"# Note %d\n\nversion %d of a note of some length, as notes are.\n"},{"op":"replace","path":"/metadata/version","value":%d}],"inverse":[{"op":"replace","path":"/content","value":"# Note %d\n\nversion %d of a note of some length, as notes are.\n"},{"op":"replace","path":"/metadata/version","value":%d}]}`, v, i, v, v, i, v-1, v-1)
			}
			require.NoError(tb, os.WriteFile(filepath.Join(hdir, fmt.Sprintf("%020d.json", v)), []byte(e), 0o644))
		}
		doc := fmt.Sprintf("---\nschema: memory_document_v2\nmetadata:\n  id: %s\n  title: Note %d\n  documentType: generic\n  path: %s\n  tags:\n    - bench\n  lastModified: \"2026-01-02T03:04:05Z\"\n  createdAt: \"2026-01-02T03:04:05Z\"\n  version: %d\n---\n# Note %d\n\nversion %d of a note of some length, as notes are.\n", id, i, p, benchHistory, i, benchHistory)
		f := filepath.Join(dir, "global-memory-bank", filepath.FromSlash(p))
		require.NoError(tb, os.MkdirAll(filepath.Dir(f), 0o755))
		require.NoError(tb, os.WriteFile(f, []byte(doc), 0o644))
	}
}

func benchDocs(tb testing.TB) int {
	n := 1000
	if s := os.Getenv("MNEMOBANK_BENCH_DOCS"); s != "" {
		v, err := strconv.Atoi(s)
		require.NoError(tb, err)
		n = v
	}
	return n
}

// moveRound copies src with cp -r, exports it and imports the archive into
// an empty store, and returns the durations of the copy, of the copy made
// durable (cp -r, then syncfs of its file system), of the export and of
// the import. Each phase starts after an untimed sync(2), so that none
// pays for the writeback of another's files: an import ends durable, cp -r
// does not.
func moveRound(tb testing.TB, src, work string) (cp, cpSync, exp, imp time.Duration) {
	tb.Helper()
	ctx := context.Background()
	syncAll()
	t0 := time.Now()
	out, err := exec.Command("cp", "-r", src, filepath.Join(work, "cp")).CombinedOutput()
	require.NoError(tb, err, "%s", out)
	cp = time.Since(t0)
	out, err = exec.Command("sync", "-f", filepath.Join(work, "cp")).CombinedOutput()
	require.NoError(tb, err, "%s", out)
	cpSync = time.Since(t0)

	syncAll()
	t0 = time.Now()
	tarName := filepath.Join(work, "bank.tar")
	require.NoError(tb, exportDir(ctx, src, tarName))
	exp = time.Since(t0)

	syncAll()
	t0 = time.Now()
	res, err := importDir(ctx, tarName, filepath.Join(work, "dst"))
	require.NoError(tb, err)
	imp = time.Since(t0)
	require.Zero(tb, res.Conflicts)
	return cp, cpSync, exp, imp
}

func exportDir(ctx context.Context, dir, tarName string) error {
	s, err := fsstore.Open(dir, nil)
	if err != nil {
		return err
	}
	defer s.Close()
	f, err := os.Create(tarName)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<16)
	_, err = archive.Export(ctx, memorybank.New(s, &memorybank.Options{History: history.New(nil)}), archive.Memories{}, w, nil)
	if err == nil {
		err = w.Flush()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func importDir(ctx context.Context, tarName, dir string) (*archive.Result, error) {
	s, err := fsstore.Open(dir, nil)
	if err != nil {
		return nil, err
	}
	defer s.Close()
	f, err := os.Open(tarName)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return archive.Import(ctx, memorybank.New(s, &memorybank.Options{History: history.New(nil)}), archive.Memories{}, f, &archive.ImportOptions{Apply: true})
}

func BenchmarkMove(b *testing.B) {
	n := benchDocs(b)
	src := filepath.Join(b.TempDir(), "bank")
	makeBenchBank(b, src, n)
	var cp, cpSync, exp, imp time.Duration
	rounds := 0
	for b.Loop() {
		work := b.TempDir()
		c, cs, e, i := moveRound(b, src, work)
		cp, cpSync, exp, imp = cp+c, cpSync+cs, exp+e, imp+i
		rounds++
		b.StopTimer()
		require.NoError(b, os.RemoveAll(work))
		b.StartTimer()
	}
	b.ReportMetric(float64(n), "docs")
	b.ReportMetric(float64(cp.Milliseconds())/float64(rounds), "cp-ms")
	b.ReportMetric(exp.Seconds()/cp.Seconds(), "export/cp")
	b.ReportMetric(imp.Seconds()/cp.Seconds(), "import/cp")
	b.ReportMetric(imp.Seconds()/cpSync.Seconds(), "import/cp+sync")
	if e, i, ok := childPeaks(b, src); ok {
		b.ReportMetric(e, "export-MB")
		b.ReportMetric(i, "import-MB")
	}
}

// TestMoveBenchmarkSmall runs BenchmarkMove's round on 50 documents: the
// imported directory holds every key of the source, byte for byte.
func TestMoveBenchmarkSmall(t *testing.T) {
	src := filepath.Join(t.TempDir(), "bank")
	makeBenchBank(t, src, 50)
	work := t.TempDir()
	moveRound(t, src, work)
	a, b := dirKeys(t, src), dirKeys(t, filepath.Join(work, "dst"))
	require.Len(t, a, 50*(benchHistory+1))
	require.Equal(t, a, b)
	if e, i, ok := childPeaks(t, src); ok {
		require.Positive(t, e)
		require.Positive(t, i)
	}
}

func dirKeys(t *testing.T, dir string) map[string]string {
	s, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	defer s.Close()
	return storeKeys(t, s)
}

// childPeaks runs an export of src, then an import of it, each in a child
// process (this test binary), and returns their peak resident memory in
// MB (Linux only).
func childPeaks(tb testing.TB, src string) (exportMB, importMB float64, ok bool) {
	if runtime.GOOS != "linux" {
		return 0, 0, false
	}
	work := tb.TempDir()
	tarName := filepath.Join(work, "bank.tar")
	run := func(args ...string) float64 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestMoveChild$")
		cmd.Env = append(os.Environ(), "MNEMOBANK_MOVE_CHILD="+strings.Join(args, "\n"))
		out, err := cmd.CombinedOutput()
		require.NoError(tb, err, "%s", out)
		i := bytes.Index(out, []byte("VmHWM:"))
		require.GreaterOrEqual(tb, i, 0, "%s", out)
		f := strings.Fields(string(out[i+len("VmHWM:"):]))
		kb, err := strconv.ParseFloat(f[0], 64)
		require.NoError(tb, err)
		return kb / 1024
	}
	return run("export", src, tarName), run("import", tarName, filepath.Join(work, "dst")), true
}

// TestMoveChild is the child process of childPeaks; it does nothing in a
// test run.
func TestMoveChild(t *testing.T) {
	spec := os.Getenv("MNEMOBANK_MOVE_CHILD")
	if spec == "" {
		t.Skip("the child process of BenchmarkMove")
	}
	args := strings.Split(spec, "\n")
	ctx := context.Background()
	switch args[0] {
	case "export":
		require.NoError(t, exportDir(ctx, args[1], args[2]))
	case "import":
		_, err := importDir(ctx, args[1], args[2])
		require.NoError(t, err)
	}
	status, err := os.ReadFile("/proc/self/status")
	require.NoError(t, err)
	for line := range strings.SplitSeq(string(status), "\n") {
		if strings.HasPrefix(line, "VmHWM:") {
			fmt.Println(line)
		}
	}
}
