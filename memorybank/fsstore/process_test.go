package fsstore_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/atomicfile"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
	"github.com/mnemobank/mnemobank/memorybank/storetest"
)

// The tests below re-execute the test binary as a child process; these
// environment variables select the child's role and its directory.
const (
	envRole = "FSSTORE_TEST_CHILD"
	envDir  = "FSSTORE_TEST_DIR"
)

func TestMain(m *testing.M) {
	switch os.Getenv(envRole) {
	case "":
		os.Exit(m.Run())
	case "increment":
		os.Exit(childIncrement(os.Getenv(envDir)))
	case "crashwriter":
		os.Exit(childCrashWriter(os.Getenv(envDir)))
	case "journalkill":
		os.Exit(childJournalKill(os.Getenv(envDir)))
	default:
		fmt.Fprintln(os.Stderr, "unknown child role", os.Getenv(envRole))
		os.Exit(2)
	}
}

const (
	processIncrements = 200
	counterKey        = "shared/counter.txt"
)

func childIncrement(dir string) int {
	s, err := fsstore.Open(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer s.Close()
	if err := storetest.Increment(context.Background(), s, counterKey, processIncrements); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

func child(t *testing.T, role, dir string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), envRole+"="+role, envDir+"="+dir)
	cmd.Stderr = new(bytes.Buffer)
	return cmd
}

// Two OS processes increment one counter file with compare-and-swap; the
// store lock (flock) must make every increment count.
func TestCompareAndSwapAcrossProcesses(t *testing.T) {
	t.Parallel() // bound by fsync latency, not CPU
	dir := t.TempDir()
	s := open(t, dir, nil)
	_, err := s.Put(ctx, counterKey, []byte("0"), memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)

	cmds := []*exec.Cmd{child(t, "increment", dir), child(t, "increment", dir)}
	for _, cmd := range cmds {
		require.NoError(t, cmd.Start())
	}
	for _, cmd := range cmds {
		assert.NoError(t, cmd.Wait(), "child: %s", cmd.Stderr)
	}
	obj, err := s.Get(ctx, counterKey)
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(2*processIncrements), string(obj.Data))
}

// crashDoc is what the crash writer stores: JSON whose padding length
// varies with Seq, so a torn write could not be mistaken for a whole one.
type crashDoc struct {
	Seq int    `json:"seq"`
	Pad string `json:"pad"`
	Sum int    `json:"sum"` // len(Pad) + Seq, checked on read
}

var crashKeys = []string{"global-memory-bank/progress.json", "branch-memory-bank/main/a.json", "branch-memory-bank/main/b.json", "new/dir/c.json"}

// childCrashWriter writes documents forever, printing a line after each
// write, until it is killed.
func childCrashWriter(dir string) int {
	s, err := fsstore.Open(dir, nil)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	out := bufio.NewWriter(os.Stdout)
	for seq := 0; ; seq++ {
		key := crashKeys[seq%len(crashKeys)]
		pad := strings.Repeat("x", 1000+(seq*7919)%60000)
		data, _ := json.Marshal(crashDoc{Seq: seq, Pad: pad, Sum: len(pad) + seq})
		switch {
		case seq%11 == 5: // deletes too, so directories come and go
			err = s.Delete(context.Background(), key, memorybank.Condition{})
			if err != nil && !errors.Is(err, memorybank.ErrNotFound) {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		case seq%3 == 0: // compare-and-swap
			cur, err := s.Get(context.Background(), key)
			cond := memorybank.Condition{IfAbsent: true}
			if err == nil {
				cond = memorybank.Condition{IfVersion: cur.Version}
			}
			if _, err := s.Put(context.Background(), key, data, cond); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		default:
			if _, err := s.Put(context.Background(), key, data, memorybank.Condition{}); err != nil {
				fmt.Fprintln(os.Stderr, err)
				return 1
			}
		}
		fmt.Fprintln(out, seq)
		out.Flush()
	}
}

// checkDoc fails the test unless data is a complete crashDoc.
func checkDoc(t *testing.T, name string, data []byte) {
	t.Helper()
	var d crashDoc
	require.NoError(t, json.Unmarshal(data, &d), "%s is torn: %d bytes", name, len(data))
	require.Equal(t, d.Sum, len(d.Pad)+d.Seq, "%s is inconsistent", name)
}

// A writer is SIGKILLed at random moments, 50 times. Every file left must be
// complete, List must show only keys (no temporary files), and a new writer
// must get the lock at once (the kernel released the dead writer's lock).
func TestCrashSafety(t *testing.T) {
	t.Parallel() // bound by fsync latency, not CPU
	const kills = 50
	dir := t.TempDir()
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range kills {
		cmd := child(t, "crashwriter", dir)
		stdout, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		// Let it complete a random number of writes, then kill it in the
		// middle of whatever it is doing next.
		lines := bufio.NewScanner(stdout)
		for range 1 + rng.IntN(8) {
			if !lines.Scan() {
				break
			}
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		err = cmd.Wait()
		var exitErr *exec.ExitError
		require.ErrorAs(t, err, &exitErr, "kill %d: child ended by itself: %s", i, cmd.Stderr)
		require.False(t, exitErr.Exited(), "kill %d: child exited with %d before the kill: %s", i, exitErr.ExitCode(), cmd.Stderr)

		s := open(t, dir, nil)
		for obj, err := range s.List(ctx, "") {
			require.NoError(t, err)
			assert.False(t, atomicfile.IsTemp(filepath.Base(obj.Key)), "List shows temporary file %q", obj.Key)
			got, err := s.Get(ctx, obj.Key)
			require.NoError(t, err)
			checkDoc(t, obj.Key, got.Data)
		}
	}

	// Every file on disk that is not a leftover temporary file is whole.
	temps := 0
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		switch {
		case d.IsDir() || d.Name() == fsstore.LockFileName || d.Name() == fsstore.ChangesFileName || d.Name() == fsstore.JournalFileName:
		case atomicfile.IsTemp(d.Name()):
			temps++
		default:
			data, err := os.ReadFile(p)
			require.NoError(t, err)
			checkDoc(t, p, data)
		}
		return nil
	}))
	t.Logf("%d kills left %d temporary files behind (skipped by List)", kills, temps)

	s := open(t, dir, nil)
	_, err := s.Put(ctx, "after-crashes.json", []byte(`{}`), memorybank.Condition{})
	require.NoError(t, err, "the lock of the killed writers was released")
}
