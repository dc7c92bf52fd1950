package main

import (
	"context"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// A --ui port already in use (a second agent window with the same
// .mcp.json) does not take the MCP server down: the viewer takes the next
// free port and says which, or, with none free, the server runs without it
// and says so.
func TestUIPortInUseKeepsServing(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()
	addr := taken.Addr().String()
	_, port, _ := net.SplitHostPort(addr)

	for _, c := range []struct {
		name  string
		tries int
		want  string
	}{
		{"next free port", 10, "the viewer takes the next free port"},
		{"none free", 0, "the viewer is not served; the MCP server runs without it"},
	} {
		t.Run(c.name, func(t *testing.T) {
			defer func(n int) { uiPortTries = n }(uiPortTries)
			uiPortTries = c.tries
			dir := t.TempDir()
			st, ct := mcp.NewInMemoryTransports()
			stderr := newAddrWriter()
			ctx, cancel := context.WithCancel(t.Context())
			defer cancel()
			done := make(chan error, 1)
			go func() {
				done <- run(ctx, []string{"--root", filepath.Join(dir, "docs"), "--memories", filepath.Join(dir, "m.md"), "--ui", addr}, st, &strings.Builder{}, stderr)
			}()
			cs, err := newClient(nil).Connect(ctx, ct, nil)
			require.NoError(t, err, "the MCP server serves")
			ok(t, cs, tools.WriteGlobalMemoryBank, `{"path":"notes.md","content":"still serving"}`)
			stderr.mu.Lock()
			text := stderr.buf.String()
			stderr.mu.Unlock()
			assert.Contains(t, text, "address already in use")
			assert.Contains(t, text, c.want)
			if c.tries > 0 {
				base := <-stderr.addr
				assert.NotContains(t, base, ":"+port+"/", "not the port in use")
				p, err := strconv.Atoi(strings.TrimSuffix(base[strings.LastIndex(base, ":")+1:], "/ui/"))
				require.NoError(t, err, base)
				code, _, body := fetch(t, base+"docs?scope=global")
				assert.Equal(t, 200, code, body)
				assert.Contains(t, body, "notes.md")
				assert.Contains(t, text, "127.0.0.1:"+strconv.Itoa(p), "stderr names the port taken")
			}
			_ = cs.Close()
			cancel()
			if err := <-done; err != nil {
				require.ErrorIs(t, err, context.Canceled)
			}
		})
	}
}
