package main

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// Every subcommand answers --help (and -h) on stdout with its own usage and
// its flags, exits 0, and runs nothing.
func TestEverySubcommandHasHelp(t *testing.T) {
	root := newCommandLine(nil)
	var names []string
	for _, c := range root.Commands() {
		names = append(names, c.Name())
		for _, sub := range c.Commands() {
			names = append(names, c.Name()+" "+sub.Name())
		}
	}
	for _, want := range []string{"ui", "export", "import", "copy", "scrub", "setup", "token", "token create", "token list", "token revoke", "consolidate"} {
		require.Contains(t, names, want, "the command line has %q", want)
	}
	for _, name := range names {
		for _, h := range []string{"--help", "-h"} {
			code, out, errOut := runArgs(t, append(strings.Fields(name), h)...)
			assert.Equal(t, 0, code, "%s %s: %s", name, h, errOut)
			assert.Empty(t, errOut, "%s %s", name, h)
			if name == "completion" || strings.HasPrefix(name, "completion ") || name == "help" {
				continue // cobra's own text
			}
			assert.Contains(t, out, "Usage", "%s %s", name, h)
			assert.Contains(t, out, "Flags:\n", "%s %s", name, h)
			assert.Contains(t, out, "-h, --help", "%s %s: the flags are listed", name, h)
		}
	}
	// A subcommand's help lists its own flags, not the server's.
	_, out, _ := runArgs(t, "export", "--help")
	assert.Contains(t, out, "--format")
	assert.Contains(t, out, "-o, --output")
	assert.NotContains(t, out, "--confirm-plans")
	_, out, _ = runArgs(t, "token", "create", "--help")
	assert.Contains(t, out, "--scope")
	assert.Contains(t, out, "--root")
	// help COMMAND is the same text.
	_, viaHelp, _ := runArgs(t, "help", "export")
	_, viaFlag, _ := runArgs(t, "export", "--help")
	assert.Equal(t, viaFlag, viaHelp)
}

// "mnemobank completion SHELL" writes a completion script for each shell,
// and the script's completions come from the command line itself:
// subcommands, flags, and the values of --from and setup's clients.
func TestShellCompletions(t *testing.T) {
	for shell, marker := range map[string]string{
		"bash":       "complete -o default -F __start_mnemobank mnemobank",
		"zsh":        "#compdef mnemobank",
		"fish":       "complete -c mnemobank",
		"powershell": "Register-ArgumentCompleter",
	} {
		code, out, errOut := runArgs(t, "completion", shell)
		require.Equal(t, 0, code, "%s: %s", shell, errOut)
		assert.Contains(t, out, marker, shell)
	}
	for _, c := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "ex"}, []string{"export"}},
		{[]string{"__complete", ""}, []string{"consolidate", "copy", "export", "import", "scrub", "setup", "token", "ui", "completion"}},
		{[]string{"__complete", "import", "--from", ""}, []string{"archive", "claude-code", "markdown", "mcp-memory", "anthropic-memory-store"}},
		{[]string{"__complete", "import", "--on"}, []string{"--on-conflict"}},
		{[]string{"__complete", "setup", ""}, []string{"claude-code", "cursor"}},
		{[]string{"__complete", "token", ""}, []string{"create", "list", "revoke"}},
		{[]string{"__complete", "--con"}, []string{"--confirm-plans"}},
		{[]string{"__complete", "--language", ""}, []string{"en", "ja", "zh"}},
		{[]string{"__complete", "ui", "--language", ""}, []string{"en", "ja", "zh"}},
		{[]string{"__complete", "--confirm-plans", ""}, []string{"always", "never"}},
		{[]string{"__complete", "copy", "--on-conflict", ""}, []string{"ours", "theirs", "both"}},
		{[]string{"__complete", "export", "--format", ""}, []string{"archive", "anthropic-memory-store"}},
	} {
		code, out, errOut := runArgs(t, c.args...)
		require.Equal(t, 0, code, "%v: %s", c.args, errOut)
		var got []string
		for _, line := range strings.Split(out, "\n") {
			if line != "" && !strings.HasPrefix(line, ":") {
				got = append(got, strings.SplitN(line, "\t", 2)[0])
			}
		}
		for _, w := range c.want {
			assert.Contains(t, got, w, "%v", c.args)
		}
	}
}

// A mistyped command is a usage error (exit 2) that names the command it
// was probably meant as.
func TestMistypedCommandIsAnsweredWithASuggestion(t *testing.T) {
	for typed, want := range map[string]string{
		"exprot":    `did you mean "mnemobank export"?`,
		"improt":    `did you mean "mnemobank import"?`,
		"consolide": `did you mean "mnemobank consolidate"?`,
		"tokne":     `did you mean "mnemobank token"?`,
	} {
		code, out, errOut := runArgs(t, typed, "--root", t.TempDir())
		assert.Equal(t, 2, code, typed)
		assert.Contains(t, errOut, want, typed)
		assert.Contains(t, errOut, `unexpected argument "`+typed+`"`, typed)
		assert.Empty(t, out, "%s: stdout carries the protocol, not errors", typed)
	}
	code, _, errOut := runArgs(t, "zzzz")
	assert.Equal(t, 2, code)
	assert.NotContains(t, errOut, "did you mean", "nothing close: no guess")
}

// Flags may come before or after the arguments, on every subcommand, and
// the long flags may be written with one dash, as Go's flag package read
// them (configurations written for earlier versions keep working).
func TestFlagsAnywhereAndWithOneDash(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "docs")
	mem := filepath.Join(dir, "m.md")
	code, out, errOut := runArgs(t, "token", "create", "--name", "alice", "--root", root)
	require.Equal(t, 0, code, errOut)
	require.NotEmpty(t, out)
	for _, args := range [][]string{
		{"token", "revoke", "alice", "--root", root},
		{"token", "revoke", "--root", root, "alice"},
		{"--root", root, "token", "revoke", "alice"},
		{"token", "revoke", "-root", root, "alice"},
		{"token", "revoke", "-root=" + root, "alice"},
	} {
		code, out, errOut := runArgs(t, args...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		assert.Contains(t, out, `"alice"`, args)
	}
	for _, args := range [][]string{
		{"consolidate", "-root", root, "-memories", mem, "-stale-days", "30"},
		{"consolidate", "--stale-days=30", "--root", root, "--memories", mem},
	} {
		code, out, errOut := runArgs(t, args...)
		require.Equal(t, 0, code, "%v: %s", args, errOut)
		assert.Contains(t, out, "memories and 0 documents read", args)
	}
	// After "--" a dash-word is an argument, not a flag.
	code, _, errOut = runArgs(t, "token", "revoke", "--root", root, "--", "-root")
	assert.Equal(t, 1, code, errOut)
	assert.Contains(t, errOut, `"-root"`)
}

// The built binary: a mistyped subcommand exits 2 with the suggestion, a
// subcommand's --help exits 0, and the server's own invocation (flags, no
// subcommand) still serves: see TestBankToolsOverStdio.
func TestBinaryCommandLine(t *testing.T) {
	bin := serverBinary(t)
	out, err := exec.Command(bin, "import", "--help").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "--include-local")
	cmd := exec.Command(bin, "exprot")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	err = cmd.Run()
	var ee *exec.ExitError
	require.ErrorAs(t, err, &ee)
	assert.Equal(t, 2, ee.ExitCode())
	assert.Contains(t, stderr.String(), `did you mean "mnemobank export"?`)
	out, err = exec.Command(bin, "completion", "bash").Output()
	require.NoError(t, err)
	assert.Contains(t, string(out), "__start_mnemobank")
}
