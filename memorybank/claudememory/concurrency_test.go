package claudememory_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

// The process test re-executes the test binary as a child; these
// environment variables give the child its role.
const (
	envChild = "CLAUDEMEMORY_TEST_CHILD" // the writer's name
	envDir   = "CLAUDEMEMORY_TEST_DIR"   // the fsstore directory
	envEdits = "CLAUDEMEMORY_TEST_EDITS"
)

func TestMain(m *testing.M) {
	if who := os.Getenv(envChild); who != "" {
		var n int
		_, _ = fmt.Sscan(os.Getenv(envEdits), &n)
		if err := childEdits(who, os.Getenv(envDir), n); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

const sharedPath = "/memories/shared.md"

// contended is the handler options of the race tests: enough retries that
// a writer outrun many times in a row still gets through.
var contended = &claudememory.Options{MaxRetries: 200}

// edits makes n pairs of edits to the shared file as writer who: an insert
// of the line "<who> line <i>" at the top, and a str_replace of its
// counter line "<who>=<i>" by "<who>=<i+1>".
func edits(ctx context.Context, h *claudememory.Handler, who string, n int) error {
	for i := range n {
		for _, in := range []map[string]any{
			{"command": "insert", "path": sharedPath, "insert_line": 0, "insert_text": fmt.Sprintf("%s line %d", who, i)},
			{"command": "str_replace", "path": sharedPath, "old_str": fmt.Sprintf("%s=%d\n", who, i), "new_str": fmt.Sprintf("%s=%d\n", who, i+1)},
		} {
			data, _ := json.Marshal(in)
			if _, err := h.Handle(ctx, data); err != nil {
				return fmt.Errorf("%s, edit %d: %w", who, i, err)
			}
		}
	}
	return nil
}

// checkNothingLost checks the shared file after writers A and B made n
// pairs of edits each.
func checkNothingLost(t *testing.T, text string, n int) {
	t.Helper()
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	assert.Len(t, lines, 2+2*n)
	for _, who := range []string{"A", "B"} {
		assert.Contains(t, lines, fmt.Sprintf("%s=%d", who, n))
		for i := range n {
			assert.Contains(t, lines, fmt.Sprintf("%s line %d", who, i))
		}
	}
}

func TestTwoGoroutinesLoseNothing(t *testing.T) {
	const n = 40
	ctx := context.Background()
	files := claudememory.BankFiles(memorybank.New(new(memorybank.MemStore), nil))
	_, err := files.WriteText(ctx, "shared.md", "A=0\nB=0\n", memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i, who := range []string{"A", "B"} {
		// One Handler each, as two agents would have.
		h := claudememory.New(files, contended)
		wg.Go(func() { errs[i] = edits(ctx, h, who, n) })
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	text, _, err := files.ReadText(ctx, "shared.md")
	require.NoError(t, err)
	checkNothingLost(t, text, n)
}

func childEdits(who, dir string, n int) error {
	store, err := fsstore.Open(dir, nil)
	if err != nil {
		return err
	}
	defer store.Close()
	h := claudememory.New(claudememory.BankFiles(memorybank.New(store, nil)), contended)
	return edits(context.Background(), h, who, n)
}

// Two OS processes, each with its own Bank on one fsstore directory, edit
// one memory file; compare-and-swap through the store's lock keeps every
// edit.
func TestTwoProcessesLoseNothing(t *testing.T) {
	t.Parallel() // bound by fsync latency, not CPU
	const n = 20
	ctx := context.Background()
	dir := t.TempDir()
	store, err := fsstore.Open(dir, nil)
	require.NoError(t, err)
	defer store.Close()
	files := claudememory.BankFiles(memorybank.New(store, nil))
	_, err = files.WriteText(ctx, "shared.md", "A=0\nB=0\n", memorybank.Condition{IfAbsent: true})
	require.NoError(t, err)

	var cmds []*exec.Cmd
	for _, who := range []string{"A", "B"} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), envChild+"="+who, envDir+"="+dir, fmt.Sprintf("%s=%d", envEdits, n))
		cmd.Stderr = new(bytes.Buffer)
		require.NoError(t, cmd.Start())
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		assert.NoError(t, cmd.Wait(), "child: %s", cmd.Stderr)
	}
	text, _, err := files.ReadText(ctx, "shared.md")
	require.NoError(t, err)
	checkNothingLost(t, text, n)
	// The file is the bank's document memories/shared.md, on disk under the global bank.
	_, err = os.Stat(dir + "/global-memory-bank/memories/shared.md")
	assert.NoError(t, err)
}
