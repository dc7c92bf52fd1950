// Package setup registers the mnemobank server with an MCP client by
// writing the client's own configuration file: Claude Code, Claude Desktop,
// Cursor, VS Code and Codex CLI.
//
// Each client is configured for the user (not one project), in the file and
// format its documentation names:
//
//	claude-code     ~/.claude.json                          JSON, "mcpServers"
//	claude-desktop  <config dir>/Claude/claude_desktop_config.json   JSON, "mcpServers"
//	cursor          ~/.cursor/mcp.json                      JSON, "mcpServers"
//	vscode          <config dir>/Code/User/mcp.json         JSON, "servers" (type "stdio")
//	codex           $CODEX_HOME/config.toml (~/.codex)      TOML, [mcp_servers.NAME]
//
// where <config dir> is ~/Library/Application Support on macOS, %APPDATA%
// on Windows and $XDG_CONFIG_HOME (~/.config) elsewhere.
//
// The server's entry gets the command (an absolute path) and its arguments;
// keys of an existing entry that mnemobank does not set (env, disabled,
// timeouts) are kept. Every other server, and every other setting of the
// file, is left as it was: JSON members keep their order and values (the
// indentation becomes two spaces), and the TOML text outside the server's
// own table is not rewritten at all. A file setup cannot edit safely (JSON
// with comments, a TOML entry written inline) is refused with what to do
// by hand. When the entry is already what would be written, nothing is
// written: running setup twice is the same as once.
//
// Plan reads and computes; Change.Write is the only function that writes.
package setup

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Errors of this package, checked with errors.Is.
var (
	// ErrUnknownClient: the client name is not one of Clients().
	ErrUnknownClient = errors.New("setup: unknown client")
	// ErrConfig: the client's configuration file cannot be edited safely;
	// the error says why and what to do by hand.
	ErrConfig = errors.New("setup: cannot edit the configuration file")
	// ErrName: the server name is not letters, digits, '-' and '_'.
	ErrName = errors.New("setup: bad server name")
)

// ConfigError is an ErrConfig with the file it concerns.
type ConfigError struct {
	Path   string
	Reason string
}

func (e *ConfigError) Error() string { return "setup: " + e.Path + ": " + e.Reason }
func (e *ConfigError) Unwrap() error { return ErrConfig }

// Env is the machine setup configures: where the home and configuration
// directories are. Tests pass a temporary home.
type Env struct {
	Home   string              // the user's home directory
	GOOS   string              // "linux", "darwin", "windows", ...
	Getenv func(string) string // APPDATA, XDG_CONFIG_HOME, CODEX_HOME; nil reads none
}

func (e Env) getenv(k string) string {
	if e.Getenv == nil {
		return ""
	}
	return e.Getenv(k)
}

// configDir is the per-user configuration directory desktop applications
// (Claude Desktop, VS Code) keep their settings in.
func (e Env) configDir() string {
	switch e.GOOS {
	case "darwin":
		return filepath.Join(e.Home, "Library", "Application Support")
	case "windows":
		if d := e.getenv("APPDATA"); d != "" {
			return d
		}
		return filepath.Join(e.Home, "AppData", "Roaming")
	default:
		if d := e.getenv("XDG_CONFIG_HOME"); d != "" && filepath.IsAbs(d) {
			return d
		}
		return filepath.Join(e.Home, ".config")
	}
}

// Server is the entry setup writes.
type Server struct {
	Name    string   // the key of the entry: letters, digits, '-' and '_'
	Command string   // absolute path of the mnemobank binary
	Args    []string // its arguments (--root with an absolute path, ...)
}

var validName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

// client is one MCP client's configuration: where and how.
type client struct {
	name, title string
	path        func(Env) string
	format      format
}

// format edits one kind of configuration file.
type format interface {
	// merge returns the file with the server's entry set, and the entry's
	// text before (empty when absent) and after, for showing the change.
	merge(path string, old []byte, s Server) (out []byte, before, after string, err error)
}

var clients = []client{
	{"claude-code", "Claude Code", func(e Env) string { return filepath.Join(e.Home, ".claude.json") },
		jsonFormat{key: "mcpServers", typ: "stdio"}},
	{"claude-desktop", "Claude Desktop", func(e Env) string {
		return filepath.Join(e.configDir(), "Claude", "claude_desktop_config.json")
	}, jsonFormat{key: "mcpServers"}},
	{"cursor", "Cursor", func(e Env) string { return filepath.Join(e.Home, ".cursor", "mcp.json") },
		jsonFormat{key: "mcpServers"}},
	{"vscode", "VS Code", func(e Env) string { return filepath.Join(e.configDir(), "Code", "User", "mcp.json") },
		jsonFormat{key: "servers", typ: "stdio"}},
	{"codex", "Codex CLI", func(e Env) string {
		if d := e.getenv("CODEX_HOME"); d != "" {
			return filepath.Join(d, "config.toml")
		}
		return filepath.Join(e.Home, ".codex", "config.toml")
	}, tomlFormat{}},
}

// Clients lists the client names Plan accepts.
func Clients() []string {
	names := make([]string, len(clients))
	for i, c := range clients {
		names[i] = c.name
	}
	return names
}

func lookup(name string) (client, error) {
	for _, c := range clients {
		if c.name == name {
			return c, nil
		}
	}
	return client{}, fmt.Errorf("%w %q; the clients are %s", ErrUnknownClient, name, strings.Join(Clients(), ", "))
}

// Change is what setup would do to one client's configuration file.
type Change struct {
	Client string // its title, "Claude Code"
	Path   string // the file
	Exists bool   // whether the file exists now
	Before string // the entry's text now; empty when there is none
	After  string // the entry's text after the change
	Data   []byte // the whole file after the change
	mode   os.FileMode
}

// Unchanged reports whether the file already holds the entry, so Write
// would do nothing.
func (c *Change) Unchanged() bool { return c.Exists && c.Before == c.After }

// Plan reads the client's configuration file and computes the change that
// sets s in it. It writes nothing.
func Plan(clientName string, env Env, s Server) (*Change, error) {
	c, err := lookup(clientName)
	if err != nil {
		return nil, err
	}
	if !validName.MatchString(s.Name) {
		return nil, fmt.Errorf("%w %q: use letters, digits, '-' and '_' (at most 64)", ErrName, s.Name)
	}
	ch := &Change{Client: c.title, Path: c.path(env), mode: 0o644}
	old, err := os.ReadFile(ch.Path)
	switch {
	case err == nil:
		ch.Exists = true
		if fi, err := os.Stat(ch.Path); err == nil {
			ch.mode = fi.Mode().Perm()
		}
	case errors.Is(err, os.ErrNotExist):
	default:
		return nil, err
	}
	ch.Data, ch.Before, ch.After, err = c.format.merge(ch.Path, old, s)
	if err != nil {
		return nil, err
	}
	return ch, nil
}

// Write writes the change: the file is replaced at once (a temporary file
// renamed over it), keeping its permissions, so a client reading it never
// sees half a file. It does nothing when the change is Unchanged.
func (c *Change) Write() error {
	if c.Unchanged() {
		return nil
	}
	dir := filepath.Dir(c.Path)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(c.Path)+".mnemobank-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(c.Data); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Chmod(c.mode); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), c.Path)
}
