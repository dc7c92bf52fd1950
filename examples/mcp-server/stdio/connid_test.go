package stdio

import (
	"fmt"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// A numeric request id comes back exactly as it was sent, or the request is
// refused with an error that carries the id exactly: an integer past 2^53
// cannot pass through the SDK's float64 unchanged.
func TestRequestIDsEchoedExactly(t *testing.T) {
	r := startRaw(t)
	r.send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
	require.Nil(t, r.reply().Error)
	r.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	cases := []struct {
		id      string
		refused bool
	}{
		{"9007199254740991", false}, // 2^53-1, the largest exact integer
		{"-9007199254740991", false},
		{"123", false},
		{`"9007199254740993"`, false}, // a string id is any string
		{"9007199254740992", true},    // 2^53: 2^53+1 reads as the same float
		{"9007199254740993", true},
		{"-9007199254740993", true},
		{"9223372036854775807", true},
		{"9223372036854775808", true}, // past int64
		{"123456789012345678901234567890", true},
	}
	for _, c := range cases {
		t.Run(c.id, func(t *testing.T) {
			r.t = t
			r.send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"method":"ping"}`, c.id))
			rep := r.reply()
			assert.Equal(t, c.id, string(rep.ID), "the id comes back byte for byte")
			if !c.refused {
				assert.Nil(t, rep.Error)
				return
			}
			require.NotNil(t, rep.Error)
			assert.Equal(t, int64(-32600), rep.Error.Code)
			assert.Contains(t, rep.Error.Message, "9007199254740991")
		})
	}
}

// A line that decoding would change (bytes that are not UTF-8, an escape of
// half a surrogate pair) is refused with its id, never read as U+FFFD; the
// server goes on.
func TestLinesThatAreNotUTF8TextAreRefused(t *testing.T) {
	r := startRaw(t)
	r.send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
	require.Nil(t, r.reply().Error)
	r.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	cases := []struct {
		name string
		line string
		code int64
		id   string
	}{
		{"a byte that is not UTF-8", "{\"jsonrpc\":\"2.0\",\"id\":3,\"method\":\"tools/call\",\"params\":{\"name\":\"add_\xffmemory\",\"arguments\":{}}}", -32700, "3"},
		{"a lone surrogate", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"add_memory","arguments":{},"_meta":{"x":"a\udc80b"}}}`, -32600, "4"},
		{"in a prompt's arguments", "{\"jsonrpc\":\"2.0\",\"id\":5,\"method\":\"prompts/get\",\"params\":{\"name\":\"p\",\"arguments\":{\"a\":\"\xff\"}}}", -32700, "5"},
		{"a lone surrogate in a prompt's arguments", `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"arguments":{"a":"\ud800"},"name":"p"}}`, -32600, "6"},
		{"in arguments that are not a tool call's", "{\"jsonrpc\":\"2.0\",\"id\":7,\"method\":\"ping\",\"params\":{\"arguments\":\"\xff\"}}", -32700, "7"},
		{"in the id", "{\"jsonrpc\":\"2.0\",\"id\":\"\xff\",\"method\":\"ping\"}", -32700, "null"},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			r.t = t
			r.send([]byte(c.line))
			rep := r.reply()
			require.NotNil(t, rep.Error, "an error reply")
			assert.Equal(t, c.code, rep.Error.Code)
			assert.Equal(t, c.id, string(rep.ID))
			assert.Contains(t, rep.Error.Message, "UTF-8")
			r.send(fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%d,"method":"ping"}`, 100+i))
			assert.Nil(t, r.reply().Error, "the server still serves")
		})
	}
}

// A tool call's arguments are the tools' to check (memorybank/tools does,
// for every entry point): the transport passes them on as sent, and the
// server answers the call (here, with no such tool).
func TestToolCallArgumentsAreLeftToTheTools(t *testing.T) {
	r := startRaw(t)
	r.send([]byte(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"0"}}}`))
	require.Nil(t, r.reply().Error)
	r.send([]byte(`{"jsonrpc":"2.0","method":"notifications/initialized"}`))
	for i, line := range []string{
		"{\"jsonrpc\":\"2.0\",\"id\":%d,\"method\":\"tools/call\",\"params\":{\"name\":\"add_memory\",\"arguments\":{\"content\":\"a\xffb\"}}}",
		`{"jsonrpc":"2.0","id":%d,"method":"tools/call","params":{"arguments":{"content":"a\udc80b"},"name":"add_memory"}}`,
	} {
		r.send(fmt.Appendf(nil, line, 10+i))
		rep := r.reply()
		assert.Equal(t, fmt.Sprint(10+i), string(rep.ID))
		require.NotNil(t, rep.Error)
		assert.Contains(t, rep.Error.Message, "add_memory", "the server answered the call: %s", rep.Error.Message)
	}
}
