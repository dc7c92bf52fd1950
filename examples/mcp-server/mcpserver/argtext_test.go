package mcpserver

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/stdio"
	"github.com/mnemobank/mnemobank/memorybank/tools"
)

// badArgCalls are tool calls whose arguments decoding would change: a byte
// that is not UTF-8, an escape of half a surrogate pair.
var badArgCalls = []string{
	"{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"write_branch_memory_bank\",\"arguments\":{\"branch\":\"main\",\"path\":\"a.md\",\"content\":\"a\xffb\"}}}",
	`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"write_branch_memory_bank","arguments":{"branch":"main","path":"a.md","content":"a\udc80b"}}}`,
}

type toolReply struct {
	ID     json.RawMessage `json:"id"`
	Result *struct {
		IsError           bool        `json:"isError"`
		StructuredContent tools.Error `json:"structuredContent"`
	} `json:"result"`
	Error json.RawMessage `json:"error"`
}

// assertRefusedByTheTools checks that a call was answered by the tools
// layer's refusal: a failed call, INVALID_ARGUMENT, naming UTF-8.
func assertRefusedByTheTools(t *testing.T, data []byte) {
	t.Helper()
	var rep toolReply
	require.NoError(t, json.Unmarshal(data, &rep), "%s", data)
	require.Nil(t, rep.Error, "not a transport error: %s", data)
	require.NotNil(t, rep.Result, "%s", data)
	assert.True(t, rep.Result.IsError)
	assert.Equal(t, tools.CodeInvalidArgument, rep.Result.StructuredContent.Code)
	assert.Contains(t, rep.Result.StructuredContent.Message, "UTF-8")
	assert.Equal(t, "3", string(rep.ID))
}

// Over stdio, the transport leaves a tool call's arguments to the tools,
// which refuse text that is not UTF-8 as a failed call the model reads.
func TestStdioToolArgumentsNotUTF8AreRefused(t *testing.T) {
	ts := newTestServer(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = ts.Server.Server.Run(context.Background(), stdio.NewTransport(inR, outW, slog.New(slog.DiscardHandler)))
		_ = outW.Close()
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close()
		<-done
	})
	out := bufio.NewScanner(outR)
	send := func(line string) {
		_, err := inW.Write([]byte(line + "\n"))
		require.NoError(t, err)
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`)
	require.True(t, out.Scan())
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	for _, line := range badArgCalls {
		send(line)
		require.True(t, out.Scan(), "an answer: %v", out.Err())
		assertRefusedByTheTools(t, out.Bytes())
	}
}

// Over HTTP, through the SDK's handler, the same tools refuse them.
func TestHTTPToolArgumentsNotUTF8AreRefused(t *testing.T) {
	ts := newTestServer(t)
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return ts.Server.Server },
		&mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	for _, line := range badArgCalls {
		req, err := http.NewRequest(http.MethodPost, srv.URL, bytes.NewReader([]byte(line)))
		require.NoError(t, err)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		req.Header.Set("Mcp-Protocol-Version", "2025-06-18")
		resp, err := srv.Client().Do(req)
		require.NoError(t, err)
		body, err := io.ReadAll(resp.Body)
		require.NoError(t, resp.Body.Close())
		require.NoError(t, err)
		require.Equal(t, http.StatusOK, resp.StatusCode, "%s", body)
		assertRefusedByTheTools(t, body)
	}
}
