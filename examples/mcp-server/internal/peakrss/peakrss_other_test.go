//go:build !linux

package peakrss_test

import (
	"errors"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mnemobank/mnemobank/examples/mcp-server/internal/peakrss"
)

func TestMiBIsUnsupported(t *testing.T) {
	_, err := peakrss.MiB(os.Getpid())
	assert.ErrorIs(t, err, errors.ErrUnsupported)
}
