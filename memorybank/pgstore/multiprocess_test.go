package pgstore_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/pgstore"
	"github.com/mnemobank/mnemobank/memorybank/storetest"
)

// The multi-process tests re-execute the test binary; these variables tell
// the child what to do (see TestMain and runChild).
const (
	roleEnv      = "PGSTORE_TEST_ROLE" // "bank-counter", "store-counter" or "memories-append"
	tableEnv     = "PGSTORE_TEST_TABLE"
	memTableEnv  = "PGSTORE_TEST_MEMORIES_TABLE"
	namespaceEnv = "PGSTORE_TEST_NAMESPACE"
	workerEnv    = "PGSTORE_TEST_WORKER"
	countEnv     = "PGSTORE_TEST_COUNT"
)

const (
	processes      = 2
	perProcess     = 200
	counterPath    = "counter.json"
	memoriesFile   = "memories.md"
	memoriesHeader = "# Memories\n\n"
)

// Two OS processes, each with its own pool, increment one document 200
// times each through a memorybank.Bank: a patch that tests the count it
// read, replaces it with count+1 and appends the process's tag to a list.
// Patch writes without IfVersion are retried by the Bank on the latest
// version when the store's compare-and-swap fails; when another process
// incremented in between, the re-applied test operation fails and the
// process reads again. The count must end at exactly 400, with every tag
// once: no increment lost or applied twice.
func TestMultiProcessBankCounter(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	opts := freshOptions(t, pool)
	s, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	bank := memorybank.New(s, nil)
	_, err = bank.Write(ctx, memorybank.WriteRequest{
		Scope: memorybank.ScopeGlobal, Path: counterPath,
		Content: json.RawMessage(`{"count": 0, "by": []}`), Mode: memorybank.ModeCreate,
	})
	require.NoError(t, err)

	outputs := runChildren(t, "bank-counter", opts)
	t.Logf("children: %q", outputs)

	count, by, err := readCounter(ctx, bank)
	require.NoError(t, err)
	assert.Equal(t, processes*perProcess, count)
	require.Len(t, by, processes*perProcess)
	seen := map[string]bool{}
	for _, tag := range by {
		assert.False(t, seen[tag], "increment %q applied twice", tag)
		seen[tag] = true
	}
	for w := range processes {
		for i := range perProcess {
			assert.True(t, seen[fmt.Sprintf("p%d-%d", w, i)], "increment p%d-%d lost", w, i)
		}
	}
}

// The same without a Bank: two processes run storetest.Increment, a
// read/compare-and-swap loop on the Store itself, 200 times each.
func TestMultiProcessStoreCounter(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	opts := freshOptions(t, pool)
	s, err := pgstore.New(pool, opts)
	require.NoError(t, err)
	_, err = s.Put(ctx, counterPath, []byte("0"), memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)

	runChildren(t, "store-counter", opts)

	got, err := s.Get(ctx, counterPath)
	require.NoError(t, err)
	assert.Equal(t, strconv.Itoa(processes*perProcess), string(got.Data))
}

// Two OS processes append 200 entries each to one memories file: the file
// ends with the header once and all 400 entries, each once.
func TestMultiProcessMemoriesAppend(t *testing.T) {
	ctx := context.Background()
	pool := testPool(t)
	opts := freshOptions(t, pool)

	outputs := runChildren(t, "memories-append", opts)
	t.Logf("children: %q", outputs)

	m, err := pgstore.NewMemoriesStore(pool, memoriesFile, opts)
	require.NoError(t, err)
	data, _, err := m.Load(ctx)
	require.NoError(t, err)
	require.True(t, bytes.HasPrefix(data, []byte(memoriesHeader)), "the file does not start with the header: %.80q", data)
	lines := strings.Split(strings.TrimSuffix(string(data[len(memoriesHeader):]), "\n"), "\n")
	require.Len(t, lines, processes*perProcess)
	seen := map[string]bool{}
	for _, l := range lines {
		assert.False(t, seen[l], "entry %q twice", l)
		seen[l] = true
	}
	for w := range processes {
		for i := range perProcess {
			assert.True(t, seen[fmt.Sprintf("- p%d-%d", w, i)], "entry p%d-%d lost", w, i)
		}
	}
}

// runChildren starts the child processes, lets them connect, releases them
// at once (a line on stdin, so that they really run concurrently), and
// returns what each printed when done.
func runChildren(t *testing.T, role string, opts *pgstore.Options) []string {
	t.Helper()
	type child struct {
		cmd    *exec.Cmd
		stdin  io.WriteCloser
		stdout *bufio.Reader
		stderr bytes.Buffer
	}
	children := make([]*child, processes)
	for w := range children {
		c := &child{cmd: exec.Command(os.Args[0], "-test.run=^$")}
		c.cmd.Env = append(os.Environ(),
			roleEnv+"="+role, tableEnv+"="+opts.Table, memTableEnv+"="+opts.MemoriesTable,
			namespaceEnv+"="+opts.Namespace, workerEnv+"="+strconv.Itoa(w), countEnv+"="+strconv.Itoa(perProcess))
		c.cmd.Stderr = &c.stderr
		var err error
		c.stdin, err = c.cmd.StdinPipe()
		require.NoError(t, err)
		out, err := c.cmd.StdoutPipe()
		require.NoError(t, err)
		c.stdout = bufio.NewReader(out)
		require.NoError(t, c.cmd.Start())
		t.Cleanup(func() {
			if c.cmd.ProcessState == nil {
				_ = c.cmd.Process.Kill()
				_ = c.cmd.Wait()
			}
		})
		children[w] = c
	}
	for w, c := range children {
		line, err := c.stdout.ReadString('\n')
		require.NoError(t, err, "child %d did not get ready; stderr:\n%s", w, &c.stderr)
		require.Equal(t, "ready\n", line)
	}
	for _, c := range children {
		_, err := io.WriteString(c.stdin, "go\n")
		require.NoError(t, err)
		require.NoError(t, c.stdin.Close())
	}
	outputs := make([]string, processes)
	for w, c := range children {
		rest, err := io.ReadAll(c.stdout)
		require.NoError(t, err)
		require.NoError(t, c.cmd.Wait(), "child %d failed; stderr:\n%s", w, &c.stderr)
		outputs[w] = strings.TrimSpace(string(rest))
	}
	return outputs
}

// runChild is the body of a child process; it returns the exit code.
func runChild(role string) int {
	if err := child(role); err != nil {
		fmt.Fprintf(os.Stderr, "child %s: %v\n", role, err)
		return 1
	}
	return 0
}

func child(role string) error {
	ctx := context.Background()
	worker, err := strconv.Atoi(os.Getenv(workerEnv))
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(os.Getenv(countEnv))
	if err != nil {
		return err
	}
	// Each process has its own pool, as on separate machines.
	s, err := pgstore.Open(ctx, os.Getenv(dsnEnv), &pgstore.Options{
		Table: os.Getenv(tableEnv), MemoriesTable: os.Getenv(memTableEnv), Namespace: os.Getenv(namespaceEnv),
	})
	if err != nil {
		return err
	}
	defer s.Close()
	fmt.Println("ready")
	if _, err := bufio.NewReader(os.Stdin).ReadString('\n'); err != nil {
		return fmt.Errorf("waiting for go: %w", err)
	}
	switch role {
	case "bank-counter":
		retries, err := incrementCounter(ctx, memorybank.New(s, nil), worker, n)
		fmt.Printf("p%d: %d increments, %d re-reads after a lost race\n", worker, n, retries)
		return err
	case "store-counter":
		return storetest.Increment(ctx, s, counterPath, n)
	case "memories-append":
		m, err := s.Memories(memoriesFile)
		if err != nil {
			return err
		}
		for i := range n {
			if _, _, err := m.Append(ctx, []byte(memoriesHeader), fmt.Appendf(nil, "- p%d-%d\n", worker, i)); err != nil {
				return err
			}
		}
		fmt.Printf("p%d: %d appends\n", worker, n)
		return nil
	}
	return fmt.Errorf("unknown role %q", role)
}

// incrementCounter adds n to the counter document, one patch write at a
// time; it returns how many times a write had to start over because another
// process incremented first.
func incrementCounter(ctx context.Context, bank *memorybank.Bank, worker, n int) (retries int, err error) {
	for i := range n {
		for {
			count, _, err := readCounter(ctx, bank)
			if err != nil {
				return retries, err
			}
			tag, _ := json.Marshal(fmt.Sprintf("p%d-%d", worker, i))
			patch := jsonpatch.Patch{
				{Op: "test", Path: "/content/count", Value: json.RawMessage(strconv.Itoa(count))},
				{Op: "replace", Path: "/content/count", Value: json.RawMessage(strconv.Itoa(count + 1))},
				{Op: "add", Path: "/content/by/-", Value: tag},
			}
			_, err = bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: counterPath, Patches: patch})
			if err == nil {
				break
			}
			// The Bank re-applied the patch on a newer version and the
			// test operation failed, or it ran out of retries: read again.
			if !errors.Is(err, memorybank.ErrPatchFailed) && !errors.Is(err, memorybank.ErrConflict) {
				return retries, err
			}
			retries++
		}
	}
	return retries, nil
}

func readCounter(ctx context.Context, bank *memorybank.Bank) (count int, by []string, err error) {
	doc, err := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: counterPath})
	if err != nil {
		return 0, nil, err
	}
	var env struct {
		Content struct {
			Count int      `json:"count"`
			By    []string `json:"by"`
		} `json:"content"`
	}
	if err := json.Unmarshal(doc.Content, &env); err != nil {
		return 0, nil, fmt.Errorf("counter document: %w", err)
	}
	return env.Content.Count, env.Content.By, nil
}
