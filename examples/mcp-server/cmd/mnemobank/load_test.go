package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcphttp"
)

// The team-mode load test: two server processes on one PostgreSQL
// namespace, serving streamable HTTP with a token; eight clients, four on
// each, make 100 concurrent patch writes each to shared documents (no
// ifVersion) and 100 memory adds each. Nothing may be lost: every element
// is in its document, each document's version is one more than the writes
// it took, and every memory is listed. It reports p50/p99 latency and
// throughput with 1 and with 8 clients. It needs the PostgreSQL that
// .ci/run starts (MNEMOBANK_PG_DSN).
func TestTeamLoad(t *testing.T) {
	dsn := os.Getenv("MNEMOBANK_PG_DSN")
	if dsn == "" {
		t.Skip("MNEMOBANK_PG_DSN is not set: no PostgreSQL to run the team-mode load test against (.ci/run starts one)")
	}
	bin := filepath.Join(t.TempDir(), "mnemobank")
	build := exec.Command("go", "build", "-o", bin, ".")
	build.Stderr = os.Stderr
	require.NoError(t, build.Run())

	ns := fmt.Sprintf("load-%d", time.Now().UnixNano())
	const token = "load-test-token-of-at-least-32-characters"
	urls := []string{startTeamServer(t, bin, dsn, ns, token), startTeamServer(t, bin, dsn, ns, token)}

	const docs, writes, adds = 4, 100, 100
	setup := teamConnect(t, urls[0], token, "setup")
	for d := range docs {
		teamCall(t, setup, "write_global_memory_bank", map[string]any{"path": fmt.Sprintf("load/shared-%d.json", d), "content": map[string]any{"items": []any{}}})
	}

	run := func(clients int) (lat []time.Duration, elapsed time.Duration) {
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := time.Now()
		for c := range clients {
			cs := teamConnect(t, urls[c%len(urls)], token, fmt.Sprintf("client-%d-of-%d", c, clients))
			wg.Go(func() {
				var mine []time.Duration
				for i := range writes {
					t0 := time.Now()
					if teamCall(t, cs, "write_global_memory_bank", map[string]any{"path": fmt.Sprintf("load/shared-%d.json", i%docs),
						"patches": []any{map[string]any{"op": "add", "path": "/content/items/-", "value": fmt.Sprintf("n%d-c%d-%d", clients, c, i)}}}) == nil {
						return
					}
					mine = append(mine, time.Since(t0))
				}
				for i := range adds {
					t0 := time.Now()
					if teamCall(t, cs, "add_memory", map[string]any{"content": fmt.Sprintf("memory n%d-c%d-%d", clients, c, i)}) == nil {
						return
					}
					mine = append(mine, time.Since(t0))
				}
				mu.Lock()
				lat = append(lat, mine...)
				mu.Unlock()
			})
		}
		wg.Wait()
		return lat, time.Since(start)
	}
	report := func(clients int, lat []time.Duration, elapsed time.Duration) {
		slices.Sort(lat)
		t.Logf("%d client(s): %d calls in %v: %.0f calls/s, p50 %v, p99 %v", clients, len(lat), elapsed.Round(time.Millisecond),
			float64(len(lat))/elapsed.Seconds(), lat[len(lat)/2].Round(10*time.Microsecond), lat[len(lat)*99/100].Round(10*time.Microsecond))
	}
	lat1, el1 := run(1)
	report(1, lat1, el1)
	lat8, el8 := run(8)
	report(8, lat8, el8)

	// Nothing lost, read through the other server.
	check := teamConnect(t, urls[1], token, "check")
	total := 0
	for d := range docs {
		res := teamCall(t, check, "read_global_memory_bank", map[string]any{"path": fmt.Sprintf("load/shared-%d.json", d)})
		var doc struct {
			Version int64 `json:"version"`
			Content struct {
				Content struct {
					Items []string `json:"items"`
				} `json:"content"`
			} `json:"content"`
		}
		require.NoError(t, json.Unmarshal(res, &doc))
		items := doc.Content.Content.Items
		assert.Equal(t, int64(1+len(items)), doc.Version, "versions are consecutive: one per write")
		total += len(items)
		seen := map[string]bool{}
		for _, it := range items {
			assert.False(t, seen[it], "element %s twice", it)
			seen[it] = true
		}
	}
	assert.Equal(t, (1+8)*writes, total, "every patch write is in its document")
	var listed []string
	for offset := 0; ; {
		res := teamCall(t, check, "list_memories", map[string]any{"limit": 100, "offset": offset})
		var page struct {
			Memories []struct {
				Content string `json:"content"`
			} `json:"memories"`
			More int `json:"more"`
		}
		require.NoError(t, json.Unmarshal(res, &page))
		for _, m := range page.Memories {
			listed = append(listed, m.Content)
		}
		offset += len(page.Memories)
		if page.More == 0 || len(page.Memories) == 0 {
			break
		}
	}
	assert.Len(t, listed, (1+8)*adds, "every memory add is listed")
}

var listening = regexp.MustCompile(`listening on (http://\S+/mcp)`)

// startTeamServer starts one server process and returns its MCP URL.
func startTeamServer(t testing.TB, bin, dsn, ns, token string) string {
	t.Helper()
	cmd := exec.Command(bin, "--postgres", dsn, "--namespace", ns, "--http", "127.0.0.1:0")
	cmd.Env = append(os.Environ(), mcphttp.TokenEnv+"="+token)
	stderr, err := cmd.StderrPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	t.Cleanup(func() {
		_ = cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { _ = cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = cmd.Process.Kill()
		}
	})
	urlc := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := listening.FindStringSubmatch(sc.Text()); m != nil {
				urlc <- m[1]
			}
		}
	}()
	select {
	case u := <-urlc:
		return u
	case <-time.After(60 * time.Second):
		t.Fatal("the server did not say where it listens")
		return ""
	}
}

type teamBearer struct{ token string }

func (b teamBearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func teamConnect(t testing.TB, url, token, name string) *mcp.ClientSession {
	t.Helper()
	return teamConnectVersion(t, url, token, name, "")
}

// teamConnectVersion is teamConnect at protocol ("": the SDK's default).
func teamConnectVersion(t testing.TB, url, token, name, protocol string) *mcp.ClientSession {
	t.Helper()
	client := mcp.NewClient(&mcp.Implementation{Name: name, Version: "test"}, nil)
	cs, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: url,
		HTTPClient: &http.Client{Transport: teamBearer{token}}, DisableStandaloneSSE: true}, &mcp.ClientSessionOptions{ProtocolVersion: protocol})
	require.NoError(t, err)
	t.Cleanup(func() { _ = cs.Close() })
	return cs
}

// teamCall calls a tool that must succeed and returns its structured
// result, or nil after reporting the failure (it may run on any goroutine).
func teamCall(t testing.TB, cs *mcp.ClientSession, name string, args map[string]any) json.RawMessage {
	t.Helper()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	if !assert.NoError(t, err, name) {
		return nil
	}
	var text strings.Builder
	for _, c := range res.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			text.WriteString(tc.Text)
		}
	}
	if !assert.False(t, res.IsError, "%s: %s", name, text.String()) {
		return nil
	}
	if res.StructuredContent != nil {
		data, err := json.Marshal(res.StructuredContent)
		assert.NoError(t, err)
		return data
	}
	return json.RawMessage(text.String())
}
