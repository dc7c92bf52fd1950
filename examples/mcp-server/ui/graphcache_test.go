package ui

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// countingCache is a graphCache whose drawing counts its calls and draws
// size bytes.
func countingCache(size *int, calls *int, fail *error) *graphCache {
	c := newGraphCache()
	c.draw = func(context.Context, []byte) ([]byte, error) {
		*calls++
		if *fail != nil {
			return nil, *fail
		}
		return bytes.Repeat([]byte("x"), *size), nil
	}
	return c
}

func TestGraphCacheKeepsTheMostRecentWithinItsLimits(t *testing.T) {
	size, calls := 10, 0
	var fail error
	c := countingCache(&size, &calls, &fail)
	ctx := context.Background()
	for i := range graphCacheEntries + 1 {
		_, err := c.svg(ctx, graphKey{"s", int64(i)}, nil)
		require.NoError(t, err)
	}
	assert.Equal(t, graphCacheEntries, c.len(), "the oldest is let go past the entry limit")
	calls = 0
	_, _ = c.svg(ctx, graphKey{"s", 1}, nil)
	assert.Equal(t, 0, calls, "a kept one is not drawn again")
	_, _ = c.svg(ctx, graphKey{"s", 0}, nil)
	assert.Equal(t, 1, calls, "the least recently used one was let go")

	size = graphCacheBytes/2 + 1
	_, _ = c.svg(ctx, graphKey{"big", 1}, nil)
	_, _ = c.svg(ctx, graphKey{"big", 2}, nil)
	assert.LessOrEqual(t, c.bytes, graphCacheBytes, "the byte limit holds")
	assert.Equal(t, 1, c.len(), "two halves do not fit: only the newest stays")

	size = graphCacheBytes + 1
	_, err := c.svg(ctx, graphKey{"huge", 1}, nil)
	require.NoError(t, err, "a picture above the limit is still shown")
	assert.Equal(t, 1, c.len(), "but not kept")
}

func TestGraphCacheDoesNotKeepFailures(t *testing.T) {
	size, calls := 10, 0
	fail := errors.New("no renderer yet")
	c := countingCache(&size, &calls, &fail)
	ctx := context.Background()
	_, err := c.svg(ctx, graphKey{"s", 1}, nil)
	assert.ErrorIs(t, err, fail)
	fail = nil
	svg, err := c.svg(ctx, graphKey{"s", 1}, nil)
	require.NoError(t, err, "a renderer installed later is used at once")
	assert.Len(t, svg, 10)
	assert.Equal(t, 2, calls)
}
