package setup

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pelletier/go-toml/v2"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// existing is a configuration each client may already hold: another server
// and other settings setup must not touch.
var existing = map[string]string{
	"claude-code": `{
    "numStartups": 12,
    "mcpServers": {"github": {"type": "stdio", "command": "/usr/bin/gh-mcp", "args": ["--ro"], "env": {"TOKEN": "<secret>&"}}},
    "projects": {"/src/app": {"allowedTools": [], "mcpServers": {}}},
    "big": 12345678901234567890
}`,
	"claude-desktop": `{"mcpServers": {"filesystem": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-filesystem", "/home/u"]}}, "globalShortcut": "Ctrl+Space"}`,
	"cursor":         `{"mcpServers": {"sqlite": {"command": "uvx", "args": ["mcp-server-sqlite"]}}}`,
	"vscode":         `{"inputs": [{"type": "promptString", "id": "key", "password": true}], "servers": {"fetch": {"type": "stdio", "command": "uvx", "args": ["mcp-server-fetch"]}}}`,
	"codex": `# Codex settings
model = "o4-mini"

[mcp_servers.docs]
command = "npx"
args = ["-y", "docs-mcp"]

[mcp_servers.docs.env]
KEY = "value" # kept

[profiles.fast]
model = "gpt-5"
`,
}

// otherServer is the name of the server in existing, per client.
var otherServer = map[string]string{
	"claude-code": "github", "claude-desktop": "filesystem", "cursor": "sqlite", "vscode": "fetch", "codex": "docs",
}

func testEnv(t *testing.T) Env {
	home := t.TempDir()
	return Env{Home: home, GOOS: "linux", Getenv: func(string) string { return "" }}
}

func testServer(home string) Server {
	return Server{Name: "mnemobank", Command: filepath.Join(home, "bin", "mnemobank"),
		Args: []string{"--root", filepath.Join(home, "notes", "docs"), "--memories", filepath.Join(home, "notes", ".agent", "memories.md")}}
}

// decode reads any client's file into plain values.
func decode(t *testing.T, client string, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if client == "codex" {
		require.NoError(t, toml.Unmarshal(data, &m), "%s", data)
	} else {
		require.NoError(t, json.Unmarshal(data, &m), "%s", data)
	}
	return m
}

func serversKey(client string) string {
	switch client {
	case "vscode":
		return "servers"
	case "codex":
		return "mcp_servers"
	}
	return "mcpServers"
}

func TestSetupMergesIntoEachClientsExistingConfig(t *testing.T) {
	for _, client := range Clients() {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			srv := testServer(env.Home)
			c, err := lookup(client)
			require.NoError(t, err)
			path := c.path(env)
			require.NoError(t, os.MkdirAll(filepath.Dir(path), 0o755))
			require.NoError(t, os.WriteFile(path, []byte(existing[client]), 0o600))
			before := decode(t, client, []byte(existing[client]))

			ch, err := Plan(client, env, srv)
			require.NoError(t, err)
			assert.False(t, ch.Unchanged())
			assert.Empty(t, ch.Before)
			assert.Contains(t, ch.After, srv.Command)
			require.NoError(t, ch.Write())

			data, err := os.ReadFile(path)
			require.NoError(t, err)
			after := decode(t, client, data)
			servers := after[serversKey(client)].(map[string]any)
			// Every other server and setting is as it was.
			other := otherServer[client]
			assert.Equal(t, before[serversKey(client)].(map[string]any)[other], servers[other])
			for k, v := range before {
				if k != serversKey(client) {
					assert.Equal(t, v, after[k], "setting %q", k)
				}
			}
			ours := servers["mnemobank"].(map[string]any)
			assert.Equal(t, srv.Command, ours["command"])
			assert.Equal(t, []any{"--root", srv.Args[1], "--memories", srv.Args[3]}, ours["args"])
			if client == "vscode" || client == "claude-code" {
				assert.Equal(t, "stdio", ours["type"])
			}
			fi, err := os.Stat(path)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the file's permissions are kept")
			if client == "claude-code" {
				assert.Contains(t, string(data), "12345678901234567890", "numbers are kept as written")
				assert.Contains(t, string(data), `"<secret>&"`, "strings are not re-escaped")
				assert.Less(t, strings.Index(string(data), "numStartups"), strings.Index(string(data), "projects"), "members keep their order")
			}
			if client == "codex" {
				assert.Contains(t, string(data), "# Codex settings\n", "comments are kept")
				assert.Contains(t, string(data), `KEY = "value" # kept`)
			}

			// A second run finds the entry and writes nothing.
			again, err := Plan(client, env, srv)
			require.NoError(t, err)
			assert.True(t, again.Unchanged())
			require.NoError(t, again.Write())
			data2, err := os.ReadFile(path)
			require.NoError(t, err)
			assert.Equal(t, string(data), string(data2))
		})
	}
}

func TestSetupCreatesAMissingConfig(t *testing.T) {
	for _, client := range Clients() {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			srv := testServer(env.Home)
			ch, err := Plan(client, env, srv)
			require.NoError(t, err)
			assert.False(t, ch.Exists)
			require.NoError(t, ch.Write())
			data, err := os.ReadFile(ch.Path)
			require.NoError(t, err)
			ours := decode(t, client, data)[serversKey(client)].(map[string]any)["mnemobank"].(map[string]any)
			assert.Equal(t, srv.Command, ours["command"])
		})
	}
}

func TestSetupUpdatesItsEntryKeepingTheUsersKeys(t *testing.T) {
	for _, client := range []string{"cursor", "codex"} {
		t.Run(client, func(t *testing.T) {
			env := testEnv(t)
			srv := testServer(env.Home)
			c, _ := lookup(client)
			old := `{"mcpServers": {"mnemobank": {"command": "/old/mnemobank", "args": [], "env": {"A": "1"}}, "x": {"command": "x"}}}`
			if client == "codex" {
				old = "[mcp_servers.mnemobank]\ncommand = \"/old/mnemobank\"\nargs = []\n\n[mcp_servers.mnemobank.env]\nA = \"1\"\n\n[mcp_servers.x]\ncommand = \"x\"\n"
			}
			require.NoError(t, os.MkdirAll(filepath.Dir(c.path(env)), 0o755))
			require.NoError(t, os.WriteFile(c.path(env), []byte(old), 0o644))
			ch, err := Plan(client, env, srv)
			require.NoError(t, err)
			assert.Contains(t, ch.Before, "/old/mnemobank")
			require.NoError(t, ch.Write())
			data, err := os.ReadFile(c.path(env))
			require.NoError(t, err)
			servers := decode(t, client, data)[serversKey(client)].(map[string]any)
			ours := servers["mnemobank"].(map[string]any)
			assert.Equal(t, srv.Command, ours["command"])
			assert.Equal(t, map[string]any{"A": "1"}, ours["env"], "the user's env is kept")
			assert.Equal(t, map[string]any{"command": "x"}, servers["x"])
		})
	}
}

func TestSetupRefusesWhatItCannotEditSafely(t *testing.T) {
	for _, tc := range []struct{ client, data string }{
		{"vscode", "{\n  // my servers\n  \"servers\": {}\n}"},
		{"cursor", `{"mcpServers": ["not", "an", "object"]}`},
		{"claude-code", `[1, 2]`},
		{"codex", "mcp_servers.mnemobank = { command = \"/old\" }\n"},
		{"codex", "[mcp_servers\n"},
	} {
		t.Run(tc.client, func(t *testing.T) {
			env := testEnv(t)
			c, _ := lookup(tc.client)
			require.NoError(t, os.MkdirAll(filepath.Dir(c.path(env)), 0o755))
			require.NoError(t, os.WriteFile(c.path(env), []byte(tc.data), 0o644))
			_, err := Plan(tc.client, env, testServer(env.Home))
			require.ErrorIs(t, err, ErrConfig)
			var ce *ConfigError
			require.ErrorAs(t, err, &ce)
			assert.Equal(t, c.path(env), ce.Path)
			data, _ := os.ReadFile(c.path(env))
			assert.Equal(t, tc.data, string(data))
		})
	}
	_, err := Plan("zed", testEnv(t), testServer("/h"))
	assert.ErrorIs(t, err, ErrUnknownClient)
	_, err = Plan("cursor", testEnv(t), Server{Name: "a b", Command: "/x"})
	assert.ErrorIs(t, err, ErrName)
}

func TestConfigPathsPerPlatform(t *testing.T) {
	env := func(goos string, vars map[string]string) Env {
		return Env{Home: "/h", GOOS: goos, Getenv: func(k string) string { return vars[k] }}
	}
	for _, tc := range []struct {
		client string
		env    Env
		want   string
	}{
		{"claude-desktop", env("darwin", nil), "/h/Library/Application Support/Claude/claude_desktop_config.json"},
		{"claude-desktop", env("windows", map[string]string{"APPDATA": "/h/AppData/Roaming"}), "/h/AppData/Roaming/Claude/claude_desktop_config.json"},
		{"claude-desktop", env("linux", map[string]string{"XDG_CONFIG_HOME": "/cfg"}), "/cfg/Claude/claude_desktop_config.json"},
		{"vscode", env("darwin", nil), "/h/Library/Application Support/Code/User/mcp.json"},
		{"vscode", env("linux", nil), "/h/.config/Code/User/mcp.json"},
		{"codex", env("linux", map[string]string{"CODEX_HOME": "/ch"}), "/ch/config.toml"},
		{"codex", env("linux", nil), "/h/.codex/config.toml"},
		{"cursor", env("windows", nil), "/h/.cursor/mcp.json"},
		{"claude-code", env("darwin", nil), "/h/.claude.json"},
	} {
		c, err := lookup(tc.client)
		require.NoError(t, err)
		assert.Equal(t, filepath.FromSlash(tc.want), c.path(tc.env), "%s on %s", tc.client, tc.env.GOOS)
	}
}

func TestRunAsksBeforeWriting(t *testing.T) {
	env := testEnv(t)
	m := Machine{Env: env, Dir: filepath.Join(env.Home, "proj"), Executable: "/opt/mnemobank/mnemobank"}
	path := filepath.Join(env.Home, ".cursor", "mcp.json")
	run := func(stdin string, args ...string) string {
		var out bytes.Buffer
		require.NoError(t, Run(args, m, strings.NewReader(stdin), &out, &out))
		return out.String()
	}

	out := run("", "cursor", "--print")
	assert.Contains(t, out, `+   "command": "/opt/mnemobank/mnemobank"`)
	assert.Contains(t, out, filepath.Join(m.Dir, "docs"), "--root is made absolute against the working directory")
	assert.NoFileExists(t, path, "--print wrote")

	out = run("n\n", "cursor")
	assert.Contains(t, out, "Nothing written")
	assert.NoFileExists(t, path, "a no wrote")

	run("", "cursor") // no answer at all (stdin closed) is a no
	assert.NoFileExists(t, path)

	out = run("y\n", "cursor", "--language", "en")
	assert.Contains(t, out, "Wrote "+path)
	data, err := os.ReadFile(path)
	require.NoError(t, err)
	assert.Contains(t, string(data), `"en"`)

	out = run("", "cursor", "--yes", "--language", "en")
	assert.Contains(t, out, "nothing to change")

	var errOut bytes.Buffer
	assert.ErrorIs(t, Run([]string{"zed"}, m, strings.NewReader(""), &errOut, &errOut), ErrUsage)
	assert.ErrorIs(t, Run(nil, m, strings.NewReader(""), &errOut, &errOut), ErrUsage)
	assert.ErrorIs(t, Run([]string{"cursor", "--yes", "--print"}, m, strings.NewReader(""), &errOut, &errOut), ErrUsage)
}
