package main

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/procgroup"
)

// readmeLine is one command line of a README shell block.
type readmeLine struct {
	text string // continuation lines joined
	line int    // in README.md, from 1
}

// readmeCommandLines are the command lines of README.md's shell blocks
// (```sh, ```bash, ```shell):
// comment-only and blank lines left out, a line ending in \ joined with the
// next.
func readmeCommandLines(t *testing.T, readme string) []readmeLine {
	t.Helper()
	data, err := os.ReadFile(readme)
	require.NoError(t, err)
	var out []readmeLine
	in, pending := false, readmeLine{}
	for i, l := range strings.Split(string(data), "\n") {
		switch {
		case l == "```sh" || l == "```bash" || l == "```shell":
			in = true
			continue
		case strings.HasPrefix(l, "```"):
			in = false
			continue
		}
		if !in {
			continue
		}
		if pending.text == "" {
			pending.line = i + 1
		}
		if s, ok := strings.CutSuffix(l, "\\"); ok {
			pending.text += s
			continue
		}
		pending.text += l
		if trimmed := strings.TrimSpace(pending.text); trimmed != "" && !strings.HasPrefix(trimmed, "#") {
			out = append(out, readmeLine{text: trimmed, line: pending.line})
		}
		pending = readmeLine{}
	}
	return out
}

// readmeNotRun are the README's command lines this test does not run, each
// with why: they need the network or a machine that is not this one.
var readmeNotRun = []struct {
	pattern *regexp.Regexp
	why     string
}{
	{regexp.MustCompile(`^npm i -g `), "installs the npm package from the npm registry (network)"},
	{regexp.MustCompile(`^go install \S+@latest`), "downloads the module from the Go module proxy (network)"},
	{regexp.MustCompile(`^go -C examples/mcp-server install `), "installs mnemobank-dot into the user's GOBIN; the same build is examples/mcp-server's go vet and tests"},
	{regexp.MustCompile(`^createdb `), "creates the database on the team's PostgreSQL server, another machine"},
	{regexp.MustCompile(`db\.internal`), "serves a bank from the team's PostgreSQL host (db.internal, named for the example) until stopped"},
	{regexp.MustCompile(`http://server:8080`), "registers the team's server on another machine (server:8080) with Claude Code"},
	{regexp.MustCompile(`^go test \./\.\.\.`), "runs every test of the repository, this one included"},
}

// A stand-in for Claude Code's CLI, which is not installed here: "claude mcp
// add ... -- COMMAND ARGS" runs the server command as Claude Code would,
// with stdin closed, so its flags and its bank are checked.
const claudeStandIn = `#!/bin/sh
while [ $# -gt 0 ] && [ "$1" != "--" ]; do shift; done
[ $# -gt 0 ] || exit 0
shift
exec "$@" </dev/null
`

// Every command line in the README runs as written: each ```sh block's lines
// run in order by bash, in a temporary directory, with the binary built
// from this tree first on PATH and HOME a temporary directory holding the
// files the lines name (a Claude Code memory folder, a Markdown vault, an
// MCP memory graph, a memory store listing). The lines that need the
// network or another machine are named in readmeNotRun with why; those on
// $DSN run against MNEMOBANK_PG_DSN, in namespaces of their own, and are
// not run without it (PostgreSQL absent). "mnemobank ui" serves until
// interrupted: it is interrupted once it says where it listens.
func TestReadmeCommandLinesRun(t *testing.T) {
	if !procgroup.Supported() {
		t.Skip("the README's lines are Unix shell lines, each run in a process group of its own so that a server it starts is interrupted with it; this system has no process groups")
	}
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash is not installed, so the README's shell lines cannot be run:", err)
	}
	bin := serverBinary(t)
	repo, err := filepath.Abs("../../../..")
	require.NoError(t, err)
	lines := readmeCommandLines(t, filepath.Join(repo, "README.md"))
	require.NotEmpty(t, lines)

	binDir, home, work := t.TempDir(), t.TempDir(), t.TempDir()
	require.NoError(t, os.Symlink(bin, filepath.Join(binDir, "mnemobank")))
	require.NoError(t, os.WriteFile(filepath.Join(binDir, "claude"), []byte(claudeStandIn), 0o755))
	testdata := filepath.Join(repo, "memorybank", "archive", "foreign", "testdata")
	require.NoError(t, os.CopyFS(filepath.Join(home, ".claude", "projects", "-home-me-src-myproject", "memory"), os.DirFS(filepath.Join(testdata, "claude-code", "memory"))))
	require.NoError(t, os.CopyFS(filepath.Join(home, "vault"), os.DirFS(filepath.Join(testdata, "markdown", "vault"))))
	require.NoError(t, os.CopyFS(work, os.DirFS(filepath.Join(testdata, "claude-code", "project"))))
	for name, src := range map[string]string{"memory.jsonl": "mcp-memory/memory.jsonl", "listing.json": "memory-store/listing.json"} {
		data, err := os.ReadFile(filepath.Join(testdata, filepath.FromSlash(src)))
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(filepath.Join(work, name), data, 0o644))
	}

	env := []string{"PATH=" + binDir + string(os.PathListSeparator) + os.Getenv("PATH"), "HOME=" + home, "LANG=C.UTF-8"}
	// The go command keeps its caches where it had them: a new HOME would
	// otherwise mean a cold build cache and a module download.
	for _, k := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOFLAGS", "GOPROXY", "GOTOOLCHAIN", "GOWORK"} {
		if out, err := exec.Command("go", "env", k).Output(); err == nil && strings.TrimSpace(string(out)) != "" {
			env = append(env, k+"="+strings.TrimSpace(string(out)))
		}
	}
	dsn := os.Getenv("MNEMOBANK_PG_DSN")
	env = append(env, "DSN="+dsn)
	// A namespace is state shared by every run on the database: the
	// README's names get this run's suffix, the only rewrite of a line.
	namespaces := strings.NewReplacer("--namespace my-project", "--namespace my-project-"+strconv.Itoa(os.Getpid()),
		"--namespace team", "--namespace team-"+strconv.Itoa(os.Getpid()), "--to-namespace team", "--to-namespace team-"+strconv.Itoa(os.Getpid()))

	ran := 0
lines:
	for _, l := range lines {
		for _, n := range readmeNotRun {
			if n.pattern.MatchString(l.text) {
				t.Logf("README.md:%d not run: %s: %s", l.line, n.why, l.text)
				continue lines
			}
		}
		text := l.text
		if strings.Contains(text, "$DSN") {
			if dsn == "" {
				t.Logf("README.md:%d not run: MNEMOBANK_PG_DSN is not set (no PostgreSQL): %s", l.line, text)
				continue
			}
			text = namespaces.Replace(text)
		}
		dir := work
		if strings.HasPrefix(text, "go ") {
			dir = repo // the lines for a clone of the repository
		}
		out, err := runReadmeLine(t, bash, text, dir, env)
		if err != nil && strings.HasPrefix(text, "mnemobank ui") && strings.Contains(out, "address already in use") {
			// The line is right; another program holds the README's port.
			t.Logf("README.md:%d: the port is in use here: %s", l.line, out)
			err = nil
		}
		require.NoError(t, err, "README.md:%d: %s\n%s", l.line, l.text, out)
		ran++
	}
	require.Greater(t, ran, 10, "most of the README's lines are run")
}

// runReadmeLine runs one line with bash in dir, stdin empty, and returns
// its output. A line that serves the viewer alone is interrupted once it
// says where it listens.
func runReadmeLine(t *testing.T, bash, line, dir string, env []string) (string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bash, "-c", line)
	cmd.Dir, cmd.Env, cmd.Stdin = dir, env, nil
	procgroup.Set(cmd)
	var out lockedBuffer
	listening := make(chan struct{})
	out.watch("ui on http://", listening)
	cmd.Stdout, cmd.Stderr = &out, &out
	require.NoError(t, cmd.Start())
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		return out.String(), err
	case <-listening:
		if !strings.HasPrefix(line, "mnemobank ui") {
			return out.String(), <-done
		}
		_ = procgroup.Interrupt(cmd.Process)
		return out.String(), <-done
	}
}

// lockedBuffer collects a command's output and closes a channel when a
// string appears in it.
type lockedBuffer struct {
	syncBuffer
	want   string
	signal chan struct{}
}

func (b *lockedBuffer) watch(s string, c chan struct{}) { b.want, b.signal = s, c }

func (b *lockedBuffer) Write(p []byte) (int, error) {
	n, err := b.syncBuffer.Write(p)
	if b.signal != nil && bytes.Contains([]byte(b.syncBuffer.String()), []byte(b.want)) {
		close(b.signal)
		b.signal = nil
	}
	return n, err
}
