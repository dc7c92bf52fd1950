package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/mcptest"
	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
)

// The client configurations in the README start the server: each argument
// list is run with the built command (paths and workspace variables
// replaced by a temporary project) and must answer tools/list.
func TestReadmeConfigsStartTheServer(t *testing.T) {
	data, err := os.ReadFile("../../../../README.md")
	require.NoError(t, err)
	text := string(data)
	start := strings.Index(text, "## Use it from an agent")
	require.GreaterOrEqual(t, start, 0)
	section := text[start:]
	section = section[:strings.Index(section[3:], "\n## ")+3]

	project := t.TempDir()
	expand := strings.NewReplacer("${workspaceFolder}", project, "$PWD", project, "/home/me/src/myproject", project)
	var argLists [][]string

	claude := regexp.MustCompile("(?m)^claude mcp add .* -- mnemobank (.*)$").FindStringSubmatch(section)
	require.NotNil(t, claude, "the Claude Code command")
	var args []string
	for _, f := range strings.Fields(claude[1]) {
		args = append(args, expand.Replace(strings.Trim(f, `"`)))
	}
	argLists = append(argLists, args)

	blocks := regexp.MustCompile("(?s)```json\n(.*?)```").FindAllStringSubmatch(section, -1)
	require.Len(t, blocks, 3, "Claude Desktop, Cursor, VS Code")
	for _, b := range blocks {
		var cfg struct {
			MCPServers map[string]struct {
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"mcpServers"`
			Servers map[string]struct {
				Type    string   `json:"type"`
				Command string   `json:"command"`
				Args    []string `json:"args"`
			} `json:"servers"`
		}
		require.NoError(t, json.Unmarshal([]byte(b[1]), &cfg), b[1])
		var args []string
		if s, ok := cfg.MCPServers["mnemobank"]; ok {
			assert.True(t, strings.HasSuffix(s.Command, "mnemobank"), s.Command)
			args = s.Args
		} else {
			s, ok := cfg.Servers["mnemobank"]
			require.True(t, ok, "a server named mnemobank: %s", b[1])
			assert.Equal(t, "stdio", s.Type)
			args = s.Args
		}
		for i, a := range args {
			args[i] = expand.Replace(a)
		}
		argLists = append(argLists, args)
	}

	b := mcptest.NewBank(t)
	srv := mcpserver.New(b.Bank, b.Memories, nil)
	t.Cleanup(srv.Close)
	all, err := mcptest.Connect(t, srv.Server, nil, "").ListTools(context.Background(), nil)
	require.NoError(t, err)
	allTools := all.Tools
	for _, args := range argLists {
		cmd := exec.Command(serverBinary(t), args...)
		cmd.Dir = t.TempDir() // not the project: the configuration must not depend on it
		s, err := newClient(nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		require.NoError(t, err, "%v", args)
		res, err := s.ListTools(context.Background(), nil)
		require.NoError(t, err)
		assert.Len(t, res.Tools, len(allTools), "%v", args)
		ok(t, s, "add_memory", `{"content":"configured"}`)
		require.NoError(t, s.Close())
	}
	assert.FileExists(t, project+"/.agent/memories.md", "--memories points into the project")
	assert.DirExists(t, project+"/docs")
}
