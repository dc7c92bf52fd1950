package mcphttp

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"
)

// A response is written to its client through a streamWriter, so that a
// client that stops reading costs only its own response. The SDK writes
// a session's messages (resource notifications among them) to the
// response in the goroutine that sends them, holding the session's lock:
// written straight to a connection whose client does not read, the write
// blocks once the socket buffers are full, and with it every later
// notification to every client, and the shutdown. A streamWriter queues
// what is written and a goroutine of its own copies it to the connection.
// The queue is bounded: a response whose client falls more than
// Limits.StreamBuffer bytes behind is ended (its request is cancelled and
// its connection's pending write cut), and a client that was listening
// reconnects and lists again, as after any lost connection.

// errFellBehind: a write to a response whose client fell too far behind
// reading it; the response was ended.
var errFellBehind = errors.New("mcphttp: the client fell behind reading the response; it was closed")

// stopWriteGrace is how long the pending write of a response may still
// take once its request has ended (the client left, the server shuts
// down, the client fell behind): long enough to finish a response already
// sent, short enough that a client which does not read holds no shutdown.
const stopWriteGrace = time.Second

type streamWriter struct {
	w      http.ResponseWriter
	rc     *http.ResponseController
	ctx    context.Context
	cancel context.CancelFunc
	limit  int

	mu          sync.Mutex
	ready       chan struct{} // signalled when the queue grows or the writer ends
	queue       [][]byte
	queued      int  // bytes in queue, not counting the write in progress
	wroteHeader bool // the header was written: later header writes are superfluous
	ended       bool // no more writes: the handler returned
	failed      error
	done        chan struct{} // closed when the copying goroutine returns
}

// newStreamWriter wraps w for the request whose context is ctx; cancel
// ends the request. limit bounds the bytes waiting for the client.
func newStreamWriter(w http.ResponseWriter, ctx context.Context, cancel context.CancelFunc, limit int) *streamWriter {
	s := &streamWriter{w: w, rc: http.NewResponseController(w), ctx: ctx, cancel: cancel, limit: limit,
		ready: make(chan struct{}, 1), done: make(chan struct{})}
	go s.copy()
	return s
}

func (s *streamWriter) Header() http.Header { return s.w.Header() }

func (s *streamWriter) WriteHeader(code int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.wroteHeader {
		return
	}
	s.wroteHeader = true
	// In the handler's goroutine, before any body: net/http takes its copy
	// of the header here, so the copying goroutine never reads the map
	// the handler writes.
	s.w.WriteHeader(code)
}

// Write queues p for the client. It never waits for the client: a write
// while the limit or more waits for the client ends the response and fails
// with errFellBehind. The queue thus holds at most the limit and one
// write, beside the write in progress.
func (s *streamWriter) Write(p []byte) (int, error) {
	s.WriteHeader(http.StatusOK)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.failed != nil {
		return 0, s.failed
	}
	// One message of any size is taken when less than the limit waits,
	// so a large result is never refused for a notification before it.
	if s.queued >= s.limit {
		s.failLocked(errFellBehind)
		return 0, errFellBehind
	}
	s.queue = append(s.queue, append([]byte(nil), p...))
	s.queued += len(p)
	s.signal()
	return len(p), nil
}

// FlushError is a no-op that reports a failed response: the copying
// goroutine flushes after every write it makes.
func (s *streamWriter) FlushError() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.failed
}

// Flush is FlushError for callers that take an http.Flusher.
func (s *streamWriter) Flush() { _ = s.FlushError() }

func (s *streamWriter) signal() {
	select {
	case s.ready <- struct{}{}:
	default:
	}
}

// failLocked ends the response: the request is cancelled and a write in
// progress is cut short.
func (s *streamWriter) failLocked(err error) {
	if s.failed != nil {
		return
	}
	s.failed = err
	s.queue, s.queued = nil, 0
	s.cancel()
	_ = s.rc.SetWriteDeadline(time.Now())
	s.signal()
}

// copy writes the queue to the connection until the writer ends and the
// queue is empty, or a write fails.
func (s *streamWriter) copy() {
	defer close(s.done)
	stopped := false
	for {
		s.mu.Lock()
		if s.failed != nil || s.ended && len(s.queue) == 0 {
			s.mu.Unlock()
			return
		}
		var b []byte
		if len(s.queue) > 0 {
			b = s.queue[0]
			s.queue[0] = nil
			s.queue = s.queue[1:]
			s.queued -= len(b) // being written: no longer waiting
		}
		s.mu.Unlock()
		if b == nil {
			select {
			case <-s.ready:
			case <-s.ctx.Done():
				if !stopped {
					stopped = true
					// The request ended: what is queued may still go out,
					// within stopWriteGrace.
					_ = s.rc.SetWriteDeadline(time.Now().Add(stopWriteGrace))
				}
				s.mu.Lock()
				s.ended = true
				s.mu.Unlock()
			}
			continue
		}
		_, err := s.w.Write(b)
		if err == nil {
			if err = s.rc.Flush(); errors.Is(err, http.ErrNotSupported) {
				err = nil
			}
		}
		s.mu.Lock()
		if err != nil {
			s.failLocked(err)
		}
		s.mu.Unlock()
	}
}

// end is called when the handler returned: it waits until the queue is
// written, or stopWriteGrace after the request ended.
func (s *streamWriter) end() {
	s.mu.Lock()
	s.ended = true
	s.signal()
	s.mu.Unlock()
	select {
	case <-s.done:
		return
	case <-s.ctx.Done():
		_ = s.rc.SetWriteDeadline(time.Now().Add(stopWriteGrace))
	}
	<-s.done
}
