package ui_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/ui"
	"github.com/mnemobank/mnemobank/memorybank"
)

// stream is an open /ui/events response.
type stream struct {
	resp *http.Response
	r    *bufio.Reader
}

// openStream connects to the feed and reads its opening comment, after
// which every write is reported.
func openStream(t *testing.T, ctx context.Context, srv *httptest.Server) (*stream, int) {
	t.Helper()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, srv.URL+"/ui/events", nil)
	require.NoError(t, err)
	resp, err := srv.Client().Do(req)
	require.NoError(t, err)
	t.Cleanup(func() { resp.Body.Close() })
	if resp.StatusCode != http.StatusOK {
		return nil, resp.StatusCode
	}
	s := &stream{resp: resp, r: bufio.NewReader(resp.Body)}
	line, err := s.r.ReadString('\n')
	require.NoError(t, err)
	require.Equal(t, ": mnemobank live feed\n", line)
	return s, resp.StatusCode
}

// next reads the next change event.
func (s *stream) next(t *testing.T) map[string]any {
	t.Helper()
	for {
		line, err := s.r.ReadString('\n')
		require.NoError(t, err)
		if data, ok := strings.CutPrefix(line, "data: "); ok {
			var e map[string]any
			require.NoError(t, json.Unmarshal([]byte(data), &e))
			return e
		}
	}
}

func TestFeedReportsWrites(t *testing.T) {
	f := newFixture(t, ui.Options{})
	f.seed()
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	// A guard against a hang, not a measure: a missing event fails here.
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	s, code := openStream(t, ctx, srv)
	require.Equal(t, http.StatusOK, code)
	assert.Equal(t, "text/event-stream", s.resp.Header.Get("Content-Type"))

	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "progress.md", Text: "# Progress\n\nTests pass.\n", Actor: "agent-b"})
	e := s.next(t)
	assert.Equal(t, "changed", e["kind"])
	assert.Equal(t, "progress.md", e["path"])
	assert.Equal(t, "branch feature/login", e["bank"])
	assert.EqualValues(t, 2, e["version"])
	assert.Equal(t, "/ui/doc?branch=feature%2Flogin&path=progress.md&scope=branch", e["url"])

	f.write(memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "new.md", Text: "# New\n"})
	e = s.next(t)
	assert.Equal(t, "created", e["kind"])
	assert.Equal(t, "new.md", e["path"])

	require.NoError(t, f.bank.Delete(t.Context(), memorybank.DeleteRequest{Scope: memorybank.ScopeGlobal, Path: "new.md"}))
	e = s.next(t)
	assert.Equal(t, "deleted", e["kind"])
}

func TestFeedStreamsAreBoundedAndEndOnClose(t *testing.T) {
	f := newFixture(t, ui.Options{})
	srv := httptest.NewServer(f.h)
	defer srv.Close()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	var streams []*stream
	for range 16 {
		s, code := openStream(t, ctx, srv)
		require.Equal(t, http.StatusOK, code)
		streams = append(streams, s)
	}
	_, code := openStream(t, ctx, srv)
	assert.Equal(t, http.StatusServiceUnavailable, code, "the 17th stream is refused")

	f.h.Close()
	for _, s := range streams {
		_, err := s.r.ReadString('\n')
		for err == nil {
			_, err = s.r.ReadString('\n')
		}
		assert.ErrorIs(t, err, io.EOF, "Close ends every stream")
	}
	_, code = openStream(t, ctx, srv)
	assert.Equal(t, http.StatusServiceUnavailable, code, "no stream after Close")
	assert.Equal(t, http.StatusOK, f.get("/ui/").Code, "pages are still served")
}
