package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/mnemobank/mnemobank/memorybank"
)

// Team-mode benchmarks: two server processes serving streamable HTTP with a
// token on one PostgreSQL namespace (MNEMOBANK_PG_DSN), driven by the Go
// SDK's client at its default protocol version.
//
//	MNEMOBANK_PG_DSN=... go test -run '^$' -bench Team -benchtime 5x

const teamBenchToken = "team-bench-token-of-at-least-32-characters"

// teamServers starts two server processes on a fresh namespace and returns
// their MCP URLs, or skips without a PostgreSQL server.
func teamServers(b *testing.B) [2]string {
	b.Helper()
	dsn := os.Getenv("MNEMOBANK_PG_DSN")
	if dsn == "" {
		b.Skip("MNEMOBANK_PG_DSN is not set: the team-mode benchmarks need a PostgreSQL server (.ci/run starts one)")
	}
	bin := serverBinary(b)
	ns := fmt.Sprintf("bench-%d", time.Now().UnixNano())
	return [2]string{startTeamServer(b, bin, dsn, ns, teamBenchToken), startTeamServer(b, bin, dsn, ns, teamBenchToken)}
}

// itemsDoc is a document whose content is a list of strings, as the
// benchmarks' patches build it.
type itemsDoc struct {
	Version int64 `json:"version"`
	Content struct {
		Content struct {
			Items []string `json:"items"`
		} `json:"content"`
	} `json:"content"`
}

func readItems(b *testing.B, cs *mcp.ClientSession, path string) itemsDoc {
	b.Helper()
	res := teamCall(b, cs, "read_global_memory_bank", map[string]any{"path": path})
	require.NotNil(b, res)
	var doc itemsDoc
	require.NoError(b, json.Unmarshal(res, &doc))
	return doc
}

func appendItem(b *testing.B, cs *mcp.ClientSession, path, value string) time.Duration {
	start := time.Now()
	teamCall(b, cs, "write_global_memory_bank", map[string]any{"path": path,
		"patches": []any{map[string]any{"op": "add", "path": "/content/items/-", "value": value}}})
	return time.Since(start)
}

func percentile(ds []time.Duration, p int) float64 {
	slices.Sort(ds)
	return float64(ds[min(len(ds)-1, len(ds)*p/100)]) / float64(time.Millisecond)
}

// 200 patches without ifVersion to one document: sent at once by four
// clients, two on each server, and sent one after another by one client,
// alternately. Reports the total time of each, their ratio
// (concurrent/sequential; the goal is at most 1.3) and the p50/p99 of one
// concurrent patch; each round's document must end with all 200 items,
// each once, at version 201 (read through the other server).
func BenchmarkTeamHotDocument(b *testing.B) {
	const patches, clients = 200, 4
	urls := teamServers(b)
	seqClient := teamConnect(b, urls[0], teamBenchToken, "sequential")
	checker := teamConnect(b, urls[1], teamBenchToken, "checker")
	var conc [clients]*mcp.ClientSession
	for c := range conc {
		conc[c] = teamConnect(b, urls[c%len(urls)], teamBenchToken, fmt.Sprintf("concurrent-%d", c))
	}
	create := func(path string) {
		teamCall(b, seqClient, "write_global_memory_bank", map[string]any{"path": path, "content": map[string]any{"items": []any{}}})
	}
	check := func(path string) {
		doc := readItems(b, checker, path)
		items := doc.Content.Content.Items
		require.Len(b, items, patches, "%s: every patch is in the document", path)
		require.Len(b, slices.Compact(slices.Sorted(slices.Values(items))), patches, "%s: no patch twice", path)
		require.Equal(b, int64(1+patches), doc.Version, "%s: one version per patch", path)
	}
	var seqTotal, concTotal time.Duration
	var lat []time.Duration
	sequential := func(round int) {
		path := fmt.Sprintf("hot/%d-sequential.json", round)
		create(path)
		start := time.Now()
		for k := range patches {
			appendItem(b, seqClient, path, fmt.Sprintf("s%d", k))
		}
		seqTotal += time.Since(start)
		check(path)
	}
	concurrent := func(round int) {
		path := fmt.Sprintf("hot/%d-concurrent.json", round)
		create(path)
		var mu sync.Mutex
		var wg sync.WaitGroup
		start := time.Now()
		for k := range patches {
			wg.Go(func() {
				d := appendItem(b, conc[k%clients], path, fmt.Sprintf("c%d", k))
				mu.Lock()
				lat = append(lat, d)
				mu.Unlock()
			})
		}
		wg.Wait()
		concTotal += time.Since(start)
		check(path)
	}
	for round := 0; b.Loop(); round++ {
		if round%2 == 0 {
			sequential(round)
			concurrent(round)
		} else {
			concurrent(round)
			sequential(round)
		}
	}
	perRound := func(d time.Duration) float64 {
		return float64(d) / float64(b.N) / float64(time.Millisecond)
	}
	b.ReportMetric(perRound(seqTotal), "sequential-ms")
	b.ReportMetric(perRound(concTotal), "concurrent-ms")
	b.ReportMetric(concTotal.Seconds()/seqTotal.Seconds(), "concurrent/sequential")
	b.ReportMetric(percentile(lat, 50), "p50-ms")
	b.ReportMetric(percentile(lat, 99), "p99-ms")
	b.ReportMetric(0, "ns/op")
}

// A write through server A reaches a subscriber of server B: from sending
// the write to the notifications/resources/updated, one write per
// iteration; reports p50 and p99 (the goals are under 50 and 200 ms) and
// the write's own p50, for comparison.
func BenchmarkTeamSubscriberLatency(b *testing.B) {
	urls := teamServers(b)
	writer := teamConnect(b, urls[0], teamBenchToken, "writer")
	const path = "sub/progress.json"
	uri := mcpserver.ResourceURI(memorybank.ScopeGlobal, "", path)
	updated := make(chan string, 64)
	client := mcp.NewClient(&mcp.Implementation{Name: "subscriber", Version: "test"}, &mcp.ClientOptions{
		ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
			updated <- req.Params.URI
		}})
	sub, err := client.Connect(context.Background(), &mcp.StreamableClientTransport{Endpoint: urls[1],
		HTTPClient: &http.Client{Transport: teamBearer{teamBenchToken}}}, nil)
	require.NoError(b, err)
	b.Cleanup(func() { _ = sub.Close() })

	write := func(i int) time.Duration {
		start := time.Now()
		teamCall(b, writer, "write_global_memory_bank", map[string]any{"path": path, "content": map[string]any{"n": i}})
		return time.Since(start)
	}
	await := func(what string) {
		deadline := time.After(10 * time.Second) // the failure bound
		for {
			select {
			case got := <-updated:
				if got == uri {
					return
				}
			case <-deadline:
				b.Fatalf("%s: no notifications/resources/updated for %s within 10s", what, uri)
			}
		}
	}
	drain := func() {
		for {
			select {
			case <-updated:
			default:
				return
			}
		}
	}
	write(-1)
	require.NoError(b, sub.Subscribe(context.Background(), &mcp.SubscribeParams{URI: uri}))
	// The subscription is in place once a write is heard.
	heard := false
	for range 10 {
		write(-2)
		select {
		case got := <-updated:
			heard = got == uri
		case <-time.After(time.Second):
		}
		if heard {
			break
		}
	}
	require.True(b, heard, "no notification within 10 writes after subscribing")
	var reach, writes []time.Duration
	for i := 0; b.Loop(); i++ {
		drain()
		start := time.Now()
		writes = append(writes, write(i))
		await(fmt.Sprintf("write %d", i))
		reach = append(reach, time.Since(start))
	}
	b.ReportMetric(percentile(reach, 50), "p50-ms")
	b.ReportMetric(percentile(reach, 99), "p99-ms")
	b.ReportMetric(percentile(writes, 50), "write-p50-ms")
	b.ReportMetric(0, "ns/op")
}

// Clients writing distinct documents (each its own, one write after
// another), half on each server: 1, 2, 4 and 8 clients alternately, each
// client making 25 writes per round. Reports writes/s for each and the
// ratio of 8 clients to 1 (the goal is at least 2), at protocol 2026-07-28
// (stateless requests) and at 2025-11-25 (sessions), whose server paths
// differ.
func BenchmarkTeamDistinctWrites(b *testing.B) {
	const perClient = 25
	counts := []int{1, 2, 4, 8}
	urls := teamServers(b)
	for _, protocol := range []string{"2026-07-28", "2025-11-25"} {
		b.Run(protocol, func(b *testing.B) {
			sessions := make([]*mcp.ClientSession, slices.Max(counts))
			for c := range sessions {
				sessions[c] = teamConnectVersion(b, urls[c%len(urls)], teamBenchToken, fmt.Sprintf("client-%d", c), protocol)
			}
			elapsed := make([]time.Duration, len(counts))
			for round := 0; b.Loop(); round++ {
				for j := range counts {
					i := (round + j) % len(counts)
					n := counts[i]
					var wg sync.WaitGroup
					start := time.Now()
					for c := range n {
						wg.Go(func() {
							for k := range perClient {
								teamCall(b, sessions[c], "write_global_memory_bank", map[string]any{
									"path": fmt.Sprintf("distinct/%s-n%d-c%d.json", protocol, n, c), "content": map[string]any{"round": round, "k": k}})
							}
						})
					}
					wg.Wait()
					elapsed[i] += time.Since(start)
				}
			}
			rate := make([]float64, len(counts))
			for i, n := range counts {
				rate[i] = float64(b.N*n*perClient) / elapsed[i].Seconds()
				b.ReportMetric(rate[i], fmt.Sprintf("%dclients-writes/s", n))
			}
			b.ReportMetric(rate[len(rate)-1]/rate[0], "8/1")
			b.ReportMetric(0, "ns/op")
		})
	}
}
