package main

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
)

func runArgs(t *testing.T, args ...string) (int, string, string) {
	var stdout, stderr bytes.Buffer
	code := runMain(t.Context(), args, io.NopCloser(strings.NewReader("")), &stdout, &stderr)
	return code, stdout.String(), stderr.String()
}

// token create prints the token once and keeps only its hash beside the
// bank; list shows it; revoke marks it; bad input exits 2 saying why.
func TestTokenCommand(t *testing.T) {
	root := filepath.Join(t.TempDir(), "docs")
	code, out, errOut := runArgs(t, "token", "create", "--root", root, "--name", "alice", "--scope", "read", "--expires", "90d")
	require.Equal(t, 0, code, errOut)
	text := strings.SplitN(out, "\n", 2)[0]
	require.True(t, strings.HasPrefix(text, tokens.Prefix), out)
	assert.Contains(t, out, `token "alice", scope read, expires`)
	data, err := os.ReadFile(tokens.FileFor(root))
	require.NoError(t, err)
	assert.NotContains(t, string(data), text)
	assert.Contains(t, string(data), tokens.Hash(text))
	assert.NoFileExists(t, filepath.Join(root, tokens.FileName), "the tokens are beside the bank, never exported with it")

	code, out, _ = runArgs(t, "token", "list", "--root", root)
	require.Equal(t, 0, code)
	assert.Regexp(t, `alice\s+read\s+\S+\s+never\s+\S+\s+active`, out)
	assert.NotContains(t, out, text)

	code, _, errOut = runArgs(t, "token", "create", "--root", root, "--name", "alice")
	assert.Equal(t, 1, code)
	assert.Contains(t, errOut, "revoke it first")

	code, out, _ = runArgs(t, "token", "revoke", "--root", root, "alice")
	require.Equal(t, 0, code)
	assert.Contains(t, out, `revoked "alice"`)
	_, out, _ = runArgs(t, "token", "list", "--root", root)
	assert.Contains(t, out, "revoked ")

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"token"}, "create, list or revoke"},
		{[]string{"token", "rotate"}, `"rotate" is not a token command`},
		{[]string{"token", "create", "--root", root}, "needs --name"},
		{[]string{"token", "create", "--root", root, "--name", "bob", "--scope", "owner"}, "read, write or admin"},
		{[]string{"token", "create", "--root", root, "--name", "bob", "--expires", "forever"}, "--expires"},
		{[]string{"token", "revoke", "--root", root}, "one NAME"},
	} {
		code, _, errOut := runArgs(t, c.args...)
		assert.Equal(t, 2, code, "%v: %s", c.args, errOut)
		assert.Contains(t, errOut, c.want, c.args)
	}
}
