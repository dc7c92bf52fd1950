package ui

import (
	"container/list"
	"context"
	"sync"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui/render"
)

// Limits of the drawn skill graphs kept, so that viewing a skill again
// (the page, then its picture) does not run the renderer program again.
const (
	graphCacheEntries = 32
	graphCacheBytes   = 1 << 20 // all the SVG kept; a larger one is not kept
)

// graphKey is a skill graph's document and its version: a new version is
// a new key, so nothing kept is ever stale.
type graphKey struct {
	id      string
	version int64
}

type graphEntry struct {
	key graphKey
	svg []byte
}

// graphCache keeps the most recently drawn skill graphs, least recently
// used first out, within graphCacheEntries and graphCacheBytes. Failures
// are not kept: a renderer installed later is used at once.
type graphCache struct {
	mu    sync.Mutex
	order *list.List // of *graphEntry, most recent first
	byKey map[graphKey]*list.Element
	bytes int
	draw  func(context.Context, []byte) ([]byte, error)
}

func newGraphCache() *graphCache {
	return &graphCache{order: list.New(), byKey: map[graphKey]*list.Element{}, draw: render.GraphSVG}
}

// svg returns the kept picture of key, or draws dot and keeps it.
func (c *graphCache) svg(ctx context.Context, key graphKey, dot []byte) ([]byte, error) {
	c.mu.Lock()
	if e, ok := c.byKey[key]; ok {
		c.order.MoveToFront(e)
		svg := e.Value.(*graphEntry).svg
		c.mu.Unlock()
		return svg, nil
	}
	c.mu.Unlock()
	svg, err := c.draw(ctx, dot)
	if err != nil {
		return nil, err
	}
	c.put(key, svg)
	return svg, nil
}

func (c *graphCache) put(key graphKey, svg []byte) {
	if len(svg) > graphCacheBytes {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[key]; ok {
		return // drawn meanwhile by another request
	}
	c.byKey[key] = c.order.PushFront(&graphEntry{key, svg})
	c.bytes += len(svg)
	for c.order.Len() > graphCacheEntries || c.bytes > graphCacheBytes {
		e := c.order.Back()
		old := e.Value.(*graphEntry)
		c.order.Remove(e)
		delete(c.byKey, old.key)
		c.bytes -= len(old.svg)
	}
}

// len is the number of pictures kept.
func (c *graphCache) len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.order.Len()
}
