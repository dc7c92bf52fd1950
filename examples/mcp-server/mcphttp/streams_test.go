package mcphttp

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/examples/mcp-server/mcpserver"
	"github.com/mnemobank/mnemobank/memorybank"
)

// smallBuffers is a listener whose connections have small send buffers,
// so that a client which does not read fills them after a few
// notifications rather than megabytes of them.
type smallBuffers struct{ net.Listener }

func (l smallBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// stallingTransport is an HTTP client transport whose event streams (a
// GET, a subscriptions/listen) stop being read once stall is closed, until
// release is closed: a client that never reads its stream. ended is
// closed when such a stream ends, read after release.
type stallingTransport struct {
	base           http.RoundTripper
	stall, release chan struct{}
	ended          chan struct{}
	endOnce        sync.Once
}

func newStallingTransport() *stallingTransport {
	d := &net.Dialer{}
	base := &http.Transport{DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := d.DialContext(ctx, network, addr)
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetReadBuffer(4096)
		}
		return c, err
	}}
	return &stallingTransport{base: base, stall: make(chan struct{}), release: make(chan struct{}), ended: make(chan struct{})}
}

func (t *stallingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	stream := r.Method == http.MethodGet || r.Header.Get("Mcp-Method") == listenMethod
	res, err := t.base.RoundTrip(r)
	if err == nil && stream && res.StatusCode == http.StatusOK {
		res.Body = &stallingBody{ReadCloser: res.Body, t: t}
	}
	return res, err
}

type stallingBody struct {
	io.ReadCloser
	t *stallingTransport
}

func (b *stallingBody) Read(p []byte) (int, error) {
	select {
	case <-b.t.stall:
		<-b.t.release
	default:
	}
	n, err := b.ReadCloser.Read(p)
	if err != nil {
		b.t.endOnce.Do(func() { close(b.t.ended) })
	}
	return n, err
}

// longURI is a document's resource URI of about 800 bytes, so that each
// notification of it is large.
func longURI() string {
	seg := strings.Repeat("x", 190)
	return mcpserver.ResourceURI(memorybank.ScopeGlobal, "", seg+"/"+seg+"/"+seg+"/"+seg+".md")
}

// streamClients serves ts over HTTP with small socket buffers and a
// 64 KiB stream buffer, and connects two clients of protocol subscribed to
// uri: stalled, whose stream stops being read when its transport stalls,
// and reader, whose notifications arrive on heard.
func streamClients(t *testing.T, ts *testServer, protocol, uri string) (stalled *stallingTransport, heard chan string, serveDone chan error, stop context.CancelFunc) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	ctx, cancel := context.WithCancel(context.Background())
	serveDone = make(chan error, 1)
	lim := DefaultLimits()
	lim.StreamBuffer = 64 << 10
	go func() {
		serveDone <- serveListener(ctx, smallBuffers{ln}, Access{}, false, NewHandler(ts.server, lim), nil, slog.New(slog.DiscardHandler), nil)
	}()
	url := "http://" + ln.Addr().String() + Path
	t.Cleanup(func() {
		cancel()
		<-serveDone
	})
	var copts *mcp.ClientSessionOptions
	if protocol != "" {
		copts = &mcp.ClientSessionOptions{ProtocolVersion: protocol}
	}

	stalled = newStallingTransport()
	t.Cleanup(func() {
		select {
		case <-stalled.release:
		default:
			close(stalled.release)
		}
	})
	a, err := newClient(nil).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url, HTTPClient: &http.Client{Transport: stalled}}, copts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = a.Close() })
	require.NoError(t, a.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))

	heard = make(chan string)
	b, err := newClient(&mcp.ClientOptions{ResourceUpdatedHandler: func(ctx context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
		select {
		case heard <- req.Params.URI:
		case <-ctx.Done():
		}
	}}).Connect(t.Context(), &mcp.StreamableClientTransport{Endpoint: url}, copts)
	require.NoError(t, err)
	t.Cleanup(func() { _ = b.Close() })
	require.NoError(t, b.Subscribe(t.Context(), &mcp.SubscribeParams{URI: uri}))
	return stalled, heard, serveDone, cancel
}

// A client that never reads its event stream (a session's GET stream, or
// a subscriptions/listen stream) costs only itself: every notification
// still reaches a client that reads, the stalled stream is closed once it
// falls behind, and the server shuts down at once, with no error.
func TestNeverReadStreamCostsOnlyItself(t *testing.T) {
	for _, protocol := range []string{legacyProtocol, mcpserver.StatelessProtocol} {
		t.Run(protocol, func(t *testing.T) {
			ts := newTestServer(t)
			uri := longURI()
			stalled, heard, serveDone, stop := streamClients(t, ts, protocol, uri)
			close(stalled.stall)

			// 500 notifications of about 1 KB: far past the socket
			// buffers and the stream's 64 KiB; each waits until the
			// reading client heard it.
			flooded := make(chan struct{})
			go func() {
				defer close(flooded)
				for range 500 {
					_ = ts.server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
					select {
					case got := <-heard:
						if got != uri {
							return
						}
					case <-time.After(20 * time.Second): // the failure bound
						return
					}
				}
			}()
			select {
			case <-flooded:
			case <-time.After(30 * time.Second): // the failure bound
				t.Fatal("the notifications stopped: a client that does not read held up the others")
			}
			// The reading client heard the last one, so none was held up.
			_ = ts.server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
			select {
			case got := <-heard:
				require.Equal(t, uri, got)
			case <-time.After(10 * time.Second): // the failure bound
				t.Fatal("the reading client no longer hears of changes")
			}

			close(stalled.release)
			select {
			case <-stalled.ended:
			case <-time.After(10 * time.Second): // the failure bound
				t.Fatal("the stream that fell behind was not closed")
			}

			stop()
			select {
			case err := <-serveDone:
				require.NoError(t, err, "a clean shutdown")
			case <-time.After(ShutdownGrace - 2*time.Second): // the failure bound: before the grace period ran out
				t.Fatal("the shutdown waited for a client that does not read")
			}
			serveDone <- nil // for the cleanup
		})
	}
}

// A stream that is not read but has not fallen behind yet (its data wait
// in the socket buffers and in its own) does not hold the shutdown either.
func TestShutdownWithAStalledStream(t *testing.T) {
	for _, protocol := range []string{legacyProtocol, mcpserver.StatelessProtocol} {
		t.Run(protocol, func(t *testing.T) {
			ts := newTestServer(t)
			uri := longURI()
			stalled, heard, serveDone, stop := streamClients(t, ts, protocol, uri)
			close(stalled.stall)
			go func() { // the reading client reads on
				for range heard {
				}
			}()
			// About 55 KB: past the socket buffers, within the stream's own 64 KiB.
			sent := make(chan struct{})
			go func() {
				defer close(sent)
				for range 60 {
					_ = ts.server.ResourceUpdated(context.Background(), &mcp.ResourceUpdatedNotificationParams{URI: uri})
				}
			}()
			select {
			case <-sent:
			case <-time.After(20 * time.Second): // the failure bound
				t.Fatal("sending a notification waited for a client that does not read")
			}
			stop()
			select {
			case err := <-serveDone:
				require.NoError(t, err, "a clean shutdown")
			case <-time.After(ShutdownGrace - 2*time.Second): // the failure bound
				t.Fatal("the shutdown waited for a client that does not read")
			}
			serveDone <- nil
		})
	}
}

// blockedWriter is a response whose client reads nothing until release
// is closed.
type blockedWriter struct {
	header  http.Header
	entered chan struct{} // closed when the first write began
	once    sync.Once
	release chan struct{}
	mu      sync.Mutex
	got     []byte
}

func (w *blockedWriter) Header() http.Header { return w.header }
func (w *blockedWriter) WriteHeader(int)     {}
func (w *blockedWriter) Write(p []byte) (int, error) {
	w.once.Do(func() { close(w.entered) })
	<-w.release
	w.mu.Lock()
	defer w.mu.Unlock()
	w.got = append(w.got, p...)
	return len(p), nil
}

// A response takes one write of any size while less than its limit waits,
// and ends (its request cancelled) at the write that finds the limit
// waiting; what it took before reaches the client.
func TestStreamWriterLimit(t *testing.T) {
	bw := &blockedWriter{header: http.Header{}, entered: make(chan struct{}), release: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	sw := newStreamWriter(bw, ctx, cancel, 100)
	first := bytes.Repeat([]byte("a"), 500) // being written, blocked
	_, err := sw.Write(first)
	require.NoError(t, err)
	<-bw.entered
	_, err = sw.Write(bytes.Repeat([]byte("b"), 60))
	require.NoError(t, err, "60 bytes wait: under the limit")
	_, err = sw.Write(bytes.Repeat([]byte("c"), 300))
	require.NoError(t, err, "one write of any size while under the limit")
	_, err = sw.Write([]byte("d"))
	require.ErrorIs(t, err, errFellBehind, "360 bytes wait: the limit is reached")
	require.ErrorIs(t, ctx.Err(), context.Canceled, "the request was ended")
	_, err = sw.Write([]byte("e"))
	require.ErrorIs(t, err, errFellBehind)
	close(bw.release)
	sw.end()
	bw.mu.Lock()
	defer bw.mu.Unlock()
	require.LessOrEqual(t, len(bw.got), len(first), "nothing queued after the write in progress went out")
}
