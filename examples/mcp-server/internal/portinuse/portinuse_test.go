package portinuse_test

import (
	"errors"
	"fmt"
	"net"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/portinuse"
)

func TestIs(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer taken.Close()

	_, err = net.Listen("tcp", taken.Addr().String())
	require.Error(t, err, "a second listener on a port in use")
	assert.True(t, portinuse.Is(err), "%v", err)
	assert.True(t, portinuse.Is(fmt.Errorf("--ui %q: %w", taken.Addr(), err)), "wrapped, as mcphttp.Listen returns it")

	_, err = net.Listen("tcp", "127.0.0.1:notaport")
	require.Error(t, err)
	assert.False(t, portinuse.Is(err), "a bad address is another failure: %v", err)
	assert.False(t, portinuse.Is(errors.New("address already in use")), "the words alone are not the error")
	assert.False(t, portinuse.Is(nil))
}
