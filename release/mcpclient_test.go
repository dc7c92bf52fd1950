package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os/exec"
	"testing"

	"github.com/stretchr/testify/require"
)

// toolsList starts bin with args as an MCP client would (JSON-RPC lines on
// its standard input and output), initializes, and returns the names of
// the tools tools/list answers.
func toolsList(t *testing.T, ctx context.Context, bin string, args ...string) []string {
	t.Helper()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = t.TempDir()
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	defer func() {
		stdin.Close()
		_ = cmd.Wait()
	}()
	lines := bufio.NewScanner(stdout)
	lines.Buffer(nil, 16<<20)
	call := func(id int, method, params string) json.RawMessage {
		_, err := fmt.Fprintf(stdin, `{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`+"\n", id, method, params)
		require.NoError(t, err)
		for lines.Scan() {
			var msg struct {
				ID     *int            `json:"id"`
				Result json.RawMessage `json:"result"`
				Error  json.RawMessage `json:"error"`
			}
			require.NoError(t, json.Unmarshal(lines.Bytes(), &msg), "%s", lines.Bytes())
			if msg.ID == nil || *msg.ID != id {
				continue // a notification or a request of the server
			}
			require.Nil(t, msg.Error, "%s: %s", method, msg.Error)
			return msg.Result
		}
		require.NoError(t, lines.Err())
		t.Fatalf("%s closed its output before answering %s", bin, method)
		return nil
	}
	call(1, "initialize", `{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"release-test","version":"0"}}`)
	_, err = io.WriteString(stdin, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	require.NoError(t, err)
	var list struct {
		Tools []struct {
			Name string `json:"name"`
		} `json:"tools"`
	}
	require.NoError(t, json.Unmarshal(call(2, "tools/list", `{}`), &list))
	var names []string
	for _, tool := range list.Tools {
		names = append(names, tool.Name)
	}
	return names
}
