package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

type rpcReply struct {
	ID     json.RawMessage `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

// rawServer is an MCP server on the transport, driven line by line
// through pipes: what the transport does not answer itself reaches the
// server, which answers ping.
type rawServer struct {
	t   *testing.T
	in  io.WriteCloser
	out *bufio.Scanner
}

func startRaw(t *testing.T) *rawServer {
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	srv := mcp.NewServer(&mcp.Implementation{Name: "raw-test", Version: "v0"}, nil)
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Run(context.Background(), NewTransport(inR, outW, slog.New(slog.DiscardHandler)))
		_ = outW.Close()
	}()
	t.Cleanup(func() {
		_ = inW.Close()
		_ = outR.Close()
		<-done
	})
	sc := bufio.NewScanner(outR)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	return &rawServer{t: t, in: inW, out: sc}
}

type nopCloser struct{ io.Writer }

func (nopCloser) Close() error { return nil }

func (r *rawServer) send(line []byte) {
	_, err := r.in.Write(append(line, '\n'))
	require.NoError(r.t, err)
}

func (r *rawServer) reply() rpcReply {
	require.True(r.t, r.out.Scan(), "the server answered: %v", r.out.Err())
	var rep rpcReply
	require.NoError(r.t, json.Unmarshal(r.out.Bytes(), &rep), "%s", r.out.Bytes())
	return rep
}

// Every class of line that is not a JSON-RPC message gets an error reply,
// and the server goes on serving: the ping after it is answered.
func TestMalformedLinesGetAnErrorAndTheServerGoesOn(t *testing.T) {
	r := startRaw(t)
	r.send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
	require.Nil(t, r.reply().Error)
	r.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))

	big := append([]byte(`{"jsonrpc":"2.0","id":99,"method":"ping","params":{"x":"`), bytes.Repeat([]byte("a"), maxLineBytes)...)
	big = append(big, `"}}`...)
	cases := []struct {
		name string
		line []byte
		code int64
		id   string
	}{
		{"garbage", []byte("garbage"), -32700, "null"},
		{"truncated JSON", []byte(`{"jsonrpc":"2.0","id":1,"method":"pi`), -32700, "null"},
		{"empty object", []byte("{}"), -32600, "null"},
		{"empty array", []byte("[]"), -32600, "null"},
		{"a batch", []byte(`[{"jsonrpc":"2.0","id":5,"method":"ping"}]`), -32600, "null"},
		{"a scalar", []byte(`42`), -32600, "null"},
		{"an object id", []byte(`{"jsonrpc":"2.0","id":{"a":1},"method":"ping"}`), -32600, "null"},
		{"an array id", []byte(`{"jsonrpc":"2.0","id":[1],"method":"ping"}`), -32600, "null"},
		{"a fractional id", []byte(`{"jsonrpc":"2.0","id":1.5,"method":"ping"}`), -32600, "1.5"},
		{"a wrong version keeps its id", []byte(`{"jsonrpc":"1.0","id":"v1","method":"ping"}`), -32600, `"v1"`},
		{"nested past 1,000 levels", []byte(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`), -32600, "null"},
		{"over 16 MiB", big, -32600, "null"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r.t = t
			r.send(c.line)
			rep := r.reply()
			require.NotNil(t, rep.Error, "an error reply")
			assert.Equal(t, c.code, rep.Error.Code)
			assert.JSONEq(t, c.id, string(rep.ID))
			assert.NotEmpty(t, rep.Error.Message)

			r.send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 1000+i))
			rep = r.reply()
			assert.Nil(t, rep.Error, "the server still serves")
			assert.JSONEq(t, fmt.Sprint(1000+i), string(rep.ID))
		})
	}
	t.Run("nested 1,000 levels is fine", func(t *testing.T) {
		r.t = t
		r.send([]byte(`{"jsonrpc":"2.0","id":7,"method":"ping","params":{"_meta":{"x":` + strings.Repeat("[", 997) + strings.Repeat("]", 997) + `}}}`))
		rep := r.reply()
		assert.JSONEq(t, "7", string(rep.ID))
		if rep.Error != nil {
			assert.NotEqual(t, int64(-32600), rep.Error.Code, rep.Error.Message)
		}
	})
	t.Run("blank lines are skipped", func(t *testing.T) {
		r.t = t
		r.send([]byte("\r"))
		r.send([]byte(`{"jsonrpc":"2.0","id":8,"method":"ping"}`))
		assert.JSONEq(t, "8", string(r.reply().ID))
	})
}

func TestReadLine(t *testing.T) {
	in := "short\r\n" + strings.Repeat("x", 20) + "\nlast"
	r := bufio.NewReaderSize(strings.NewReader(in), 16)
	line, tooLong, err := readLine(r, 10)
	require.NoError(t, err)
	assert.False(t, tooLong)
	assert.Equal(t, "short", string(line))
	line, tooLong, err = readLine(r, 10)
	require.NoError(t, err)
	assert.True(t, tooLong)
	assert.Nil(t, line)
	line, tooLong, err = readLine(r, 10)
	assert.ErrorIs(t, err, io.EOF)
	assert.False(t, tooLong)
	assert.Equal(t, "last", string(line), "a last line without an ending is read")
}

func TestScanLine(t *testing.T) {
	over, _ := scanLine([]byte(strings.Repeat("[", 3)+strings.Repeat("]", 3)), 3)
	assert.False(t, over)
	over, _ = scanLine([]byte(strings.Repeat("[", 4)+strings.Repeat("]", 4)), 3)
	assert.True(t, over)
	over, _ = scanLine([]byte(`{"a":"[[[[[[\"[[[["}`), 3)
	assert.False(t, over, "brackets in strings do not count")

	for _, tc := range []struct{ line, args string }{
		{`{"method":"tools/call","params":{"name":"t","arguments":{"a":[1,{"b":"}"}]}}}`, `{"a":[1,{"b":"}"}]}`},
		{`{"params":{"arguments": "x" , "name":"t"},"id":1}`, ` "x" `},
		{`{"params":{"arguments":7}}`, `7`},
		{`{"params":{"name":"arguments","x":{"arguments":1}}}`, ""}, // a value, and a key one level down
		{`{"arguments":{"a":1},"params":[{"arguments":1}]}`, ""},    // not in params, params not an object
		{`{"params":{"argu\u006dents":{"a":1}}}`, ""},               // escaped: checked as the rest
		{`{"a":{"params":{"arguments":1}}}`, ""},                    // not the message's params
	} {
		_, args := scanLine([]byte(tc.line), 10)
		if tc.args == "" {
			assert.Equal(t, [2]int{-1, -1}, args, "%s", tc.line)
			continue
		}
		require.GreaterOrEqual(t, args[0], 0, "%s", tc.line)
		assert.Equal(t, tc.args, tc.line[args[0]:args[1]], "%s", tc.line)
	}
}

// FuzzLineDecode: any line gives either a message or exactly one error
// reply line, never a panic and never nothing.
func FuzzLineDecode(f *testing.F) {
	for _, s := range []string{"garbage", "{}", "[]", `{"jsonrpc":"2.0","id":1,"method":"ping"}`, `{"jsonrpc":"2.0","id":{},"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"result":{}}`, `"\u005b"`, "[[[[", `{"id":"a"`,
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/call\",\"params\":{\"name\":\"t\",\"arguments\":{\"a\":\"\xff\"}}}",
		"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"prompts/get\",\"params\":{\"arguments\":{\"a\":\"\xff\"},\"name\":\"p\"}}"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, line []byte) {
		var out bytes.Buffer
		c := &lineConn{w: nopCloser{&out}, logger: slog.New(slog.DiscardHandler)}
		msg := c.decode(line)
		replies := bytes.Count(out.Bytes(), []byte("\n"))
		if len(bytes.TrimSpace(line)) == 0 {
			if msg != nil || replies != 0 {
				t.Fatalf("a blank line is skipped: msg %v, %d replies", msg, replies)
			}
			return
		}
		if (msg == nil) == (replies == 0) || replies > 1 {
			t.Fatalf("line %q: msg %v and %d replies", line, msg, replies)
		}
		if replies == 1 {
			var rep rpcReply
			if err := json.Unmarshal(out.Bytes(), &rep); err != nil || rep.Error == nil {
				t.Fatalf("reply %q is not a JSON-RPC error: %v", out.Bytes(), err)
			}
		}
	})
}

// A successful response is written as EncodeMessage writes it, byte for
// byte, whatever its id; one whose result is not compact, or an error, is
// left to EncodeMessage.
func TestEncodeResultAgrees(t *testing.T) {
	result, err := json.Marshal(map[string]any{"text": "a <b> & \"c\"\u2028 é 認証", "n": 1.5, "list": []any{nil, true}})
	require.NoError(t, err)
	for _, raw := range []any{float64(7), float64(-1), "abc", "<&>\"\\ é"} {
		id, err := jsonrpc.MakeID(raw)
		require.NoError(t, err)
		msg := &jsonrpc.Response{ID: id, Result: result}
		want, err := jsonrpc.EncodeMessage(msg)
		require.NoError(t, err)
		got, ok := encodeResult(msg)
		require.True(t, ok, "id %v", id.Raw())
		assert.Equal(t, string(want), string(got), "id %v", id.Raw())
	}
	one, err := jsonrpc.MakeID(float64(1))
	require.NoError(t, err)
	for _, msg := range []jsonrpc.Message{
		&jsonrpc.Response{ID: one, Result: json.RawMessage("{\n\"a\": 1}")},
		&jsonrpc.Response{ID: one, Error: errors.New("failed")},
		&jsonrpc.Response{ID: one},
		&jsonrpc.Request{ID: one, Method: "ping"},
	} {
		_, ok := encodeResult(msg)
		assert.False(t, ok, "%#v", msg)
	}
}
