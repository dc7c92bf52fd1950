//go:build !unix

package procgroup_test

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/procgroup"
)

func TestInterruptIsUnsupported(t *testing.T) {
	assert.False(t, procgroup.Supported())
	p, err := os.FindProcess(os.Getpid())
	require.NoError(t, err)
	assert.True(t, errors.Is(procgroup.Interrupt(p), errors.ErrUnsupported))
}
