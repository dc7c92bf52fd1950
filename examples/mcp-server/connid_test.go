package main

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
