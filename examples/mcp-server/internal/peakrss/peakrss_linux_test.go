package peakrss_test

import (
	"bufio"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/peakrss"
)

// holdEnv makes the test binary a child that holds that many MiB, touched
// page by page, says so and waits for its standard input to close.
const holdEnv = "PEAKRSS_TEST_HOLD_MIB"

func TestMain(m *testing.M) {
	if v := os.Getenv(holdEnv); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			panic(err)
		}
		held := make([]byte, n<<20)
		for i := 0; i < len(held); i += os.Getpagesize() {
			held[i] = 1
		}
		os.Stdout.WriteString("holding\n")
		_, _ = io.Copy(io.Discard, os.Stdin)
		runtime.KeepAlive(held)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// peakOfChild is the peak of a child process holding mib MiB, read while
// it runs, as the benchmarks read a server's.
func peakOfChild(t *testing.T, mib int) float64 {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holdEnv+"="+strconv.Itoa(mib))
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	line, err := bufio.NewReader(stdout).ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, "holding\n", line)
	peak, err := peakrss.MiB(cmd.Process.Pid)
	require.NoError(t, stdin.Close())
	require.NoError(t, cmd.Wait())
	require.NoError(t, err)
	return peak
}

// The reading is the child's own: 64 MiB more held in it raise its peak by
// at least that much, whatever the parent (this test process) holds.
func TestMiBIsTheProcessOwn(t *testing.T) {
	small, big := peakOfChild(t, 0), peakOfChild(t, 64)
	require.Positive(t, small)
	// The race detector's shadow memory can add to the 64 MiB, never take
	// from it.
	assert.GreaterOrEqual(t, big-small, 60.0, "peak %.1f MiB holding nothing, %.1f MiB holding 64 MiB", small, big)
	assert.Less(t, big-small, 256.0, "peak %.1f MiB holding nothing, %.1f MiB holding 64 MiB", small, big)
}

func TestMiBOfNoProcess(t *testing.T) {
	// A child that has exited and been waited for has no /proc entry.
	cmd := exec.Command("true")
	require.NoError(t, cmd.Run())
	_, err := peakrss.MiB(cmd.Process.Pid)
	assert.ErrorIs(t, err, fs.ErrNotExist)
}
