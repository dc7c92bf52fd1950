// Package stdio is the MCP server's standard input and output transport:
// newline-delimited JSON-RPC, as the SDK's mcp.StdioTransport, except that
// a line which is not a JSON-RPC message gets an error reply and does not
// end the session. It knows nothing of the memory bank; any *mcp.Server
// runs on it.
package stdio

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/mnemobank/mnemobank/internal/jsontext"
)

// Limits of one inbound JSON-RPC line, checked before it is decoded.
const (
	maxLineBytes = 16 << 20 // 16 MiB
	maxLineDepth = 1000     // nesting of arrays and objects
)

// Transport is the server's stdio transport: newline-delimited JSON-RPC,
// as mcp.StdioTransport, except that a line which is not a JSON-RPC message
// does not end the session. Such a line gets an error reply and the next
// line is read:
//
//   - not JSON, or not UTF-8 (a byte that is not UTF-8): -32700 (parse
//     error);
//   - a \u escape of half a surrogate pair ("\ud800"), which decoding
//     would read as U+FFFD: -32600;
//   - over maxLineBytes or nested deeper than maxLineDepth: -32600, before
//     it is decoded;
//   - JSON that is not a request, notification or response (a scalar, {},
//     an id that is an object, a missing "jsonrpc":"2.0"): -32600;
//   - a numeric id the SDK cannot echo exactly (a fraction, an exponent, an
//     integer past 2^53-1 in magnitude): -32600 carrying the id as sent;
//   - an array: -32600, since MCP has no batches since 2025-06-18.
//
// The reply carries the request's id when it could be read, null otherwise.
// Blank lines are skipped.
//
// A tool call's arguments (params.arguments of tools/call) are passed on
// as sent, not checked for their text: the tools check it, since a tool
// is also called over HTTP or by a host directly, and the tools of this
// repository (memorybank/tools) refuse such arguments as a failed call
// (INVALID_ARGUMENT) the model reads. A server whose tools read their
// arguments with encoding/json alone should know that it replaces such
// bytes with U+FFFD.
type Transport struct {
	r      io.ReadCloser
	w      io.WriteCloser
	logger *slog.Logger
}

// NewTransport returns the transport reading r and writing w; Close of the
// connection closes both. logger, when nil, discards.
func NewTransport(r io.ReadCloser, w io.WriteCloser, logger *slog.Logger) *Transport {
	return &Transport{r: r, w: w, logger: logger}
}

// Connect starts reading r; the connection it returns is the session's.
func (t *Transport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		w:        t.w,
		rc:       t.r,
		logger:   t.logger,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
	}
	if c.logger == nil {
		c.logger = slog.New(slog.DiscardHandler)
	}
	go c.readLoop(bufio.NewReaderSize(t.r, 64<<10))
	return c, nil
}

type lineConn struct {
	rc     io.Closer
	logger *slog.Logger

	writeMu sync.Mutex
	w       io.WriteCloser

	incoming  chan jsonrpc.Message
	readErr   error // set before incoming is closed
	closed    chan struct{}
	closeOnce sync.Once
}

func (c *lineConn) SessionID() string { return "" }

func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-c.closed:
		return nil, io.EOF
	case msg, ok := <-c.incoming:
		if !ok {
			return nil, c.readErr
		}
		return msg, nil
	}
}

func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if data, ok := encodeResult(msg); ok {
		return c.writeLine(data)
	}
	data, err := jsonrpc.EncodeMessage(msg)
	if err != nil {
		return fmt.Errorf("encoding a JSON-RPC message: %w", err)
	}
	return c.writeLine(data)
}

// encodeResult encodes a successful response as jsonrpc.EncodeMessage
// does, byte for byte, without running encoding/json over its result: the
// SDK made the result with json.Marshal, and encoding/json would scan it
// again to compact and validate it, which was a fifth of the server's CPU
// time per read_context of a large bank. A result holding a newline (not
// made by json.Marshal, or it would be escaped) is left to EncodeMessage,
// so a line stays one message.
func encodeResult(msg jsonrpc.Message) ([]byte, bool) {
	r, ok := msg.(*jsonrpc.Response)
	if !ok || r.Error != nil || len(r.Result) == 0 || bytes.IndexByte(r.Result, '\n') >= 0 {
		return nil, false
	}
	var id []byte
	switch v := r.ID.Raw().(type) {
	case int64:
		id = strconv.AppendInt(nil, v, 10)
	case string:
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if enc.Encode(v) != nil {
			return nil, false
		}
		id = bytes.TrimSuffix(b.Bytes(), []byte("\n"))
	default:
		return nil, false
	}
	out := make([]byte, 0, len(r.Result)+len(id)+32)
	out = append(out, `{"jsonrpc":"2.0","id":`...)
	out = append(out, id...)
	out = append(out, `,"result":`...)
	out = append(out, r.Result...)
	return append(out, '}'), true
}

func (c *lineConn) writeLine(data []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.w.Write(append(data, '\n'))
	return err
}

func (c *lineConn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		close(c.closed)
		err = errors.Join(c.rc.Close(), c.w.Close())
	})
	return err
}

// readLoop reads lines until the input ends, passing on the messages and
// answering the lines that are not messages itself.
func (c *lineConn) readLoop(r *bufio.Reader) {
	defer func() {
		close(c.incoming)
	}()
	for {
		line, tooLong, err := readLine(r, maxLineBytes)
		if tooLong {
			c.reject(nil, jsonrpc.CodeInvalidRequest,
				fmt.Sprintf("Invalid Request: the message is over %d bytes (16 MiB), the limit of one line; it was not read", maxLineBytes))
		} else if msg := c.decode(line); msg != nil {
			select {
			case c.incoming <- msg:
			case <-c.closed:
				return
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				err = io.EOF
			}
			c.readErr = err
			return
		}
	}
}

// wireMessage is a JSON-RPC message as it is decoded, once per line: the
// id is kept as sent, so it can be checked and echoed exactly.
type wireMessage struct {
	JSONRPC string          `json:"jsonrpc"`
	ID      json.RawMessage `json:"id"`
	Method  *string         `json:"method"`
	Params  json.RawMessage `json:"params"`
	Result  json.RawMessage `json:"result"`
	Error   *jsonrpc.Error  `json:"error"`
}

// decode returns the message on line, or nil after answering a line that
// holds none. The line is scanned for its depth, then for its text (a
// tool call's arguments left out), then decoded
// once, into what the SDK needs; which refusal a line gets is worked out
// only when that decode or a check on the decoded value fails.
func (c *lineConn) decode(line []byte) jsonrpc.Message {
	line = bytes.TrimSpace(line)
	if len(line) == 0 {
		return nil
	}
	over, args := scanLine(line, maxLineDepth)
	if over {
		c.reject(nil, jsonrpc.CodeInvalidRequest,
			fmt.Sprintf("Invalid Request: the message nests arrays and objects deeper than %d levels", maxLineDepth))
		return nil
	}
	// A tool call's arguments are left to the tools, which check their
	// text wherever a call comes from (this transport, HTTP, a host
	// calling them directly); the rest of the message is this layer's.
	at, reason := -1, ""
	if args[0] >= 0 {
		at, reason = jsontext.CheckOutside(line, args[0], args[1])
	} else {
		at, reason = jsontext.Check(line)
	}
	if at >= 0 {
		c.refuseText(line, at, reason)
		return nil
	}
	var w wireMessage
	if err := json.Unmarshal(line, &w); err != nil {
		c.refuseUndecodable(line, err)
		return nil
	}
	if args[0] >= 0 && (w.Method == nil || *w.Method != "tools/call") {
		// params.arguments of another method (prompts/get) is this
		// layer's after all; such a message is small.
		if at, reason := jsontext.Check(line); at >= 0 {
			c.refuseText(line, at, reason)
			return nil
		}
	}
	id, ok := c.messageID(w.ID)
	if !ok {
		return nil
	}
	if w.JSONRPC != "2.0" {
		c.reject(replyID(w.ID), jsonrpc.CodeInvalidRequest, fmt.Sprintf(`Invalid Request: "jsonrpc" is %q; it must be "2.0"`, w.JSONRPC))
		return nil
	}
	if w.Method != nil {
		return &jsonrpc.Request{ID: id, Method: *w.Method, Params: w.Params}
	}
	if !id.IsValid() {
		c.reject(nil, jsonrpc.CodeInvalidRequest,
			`Invalid Request: a message without "method" is a response and needs an id; a request is {"jsonrpc":"2.0","id":<string or number>,"method":...,"params":{...}}`)
		return nil
	}
	resp := &jsonrpc.Response{ID: id, Result: w.Result}
	if w.Error != nil {
		resp.Error = w.Error
	}
	return resp
}

// refuseText answers a line whose text has a problem at byte at: bytes
// that are not UTF-8 or an escape of half a surrogate pair.
func (c *lineConn) refuseText(line []byte, at int, reason string) {
	if !json.Valid(line) {
		c.reject(nil, jsonrpc.CodeParseError, "Parse error: the line is not valid JSON")
		return
	}
	// encoding/json would read it as U+FFFD: a path would name another
	// document, a text would lose what was sent.
	code := int64(jsonrpc.CodeInvalidRequest)
	msg := "Invalid Request: "
	if line[at] != '\\' {
		code, msg = jsonrpc.CodeParseError, "Parse error: "
	}
	id := requestID(line)
	if at, _ := jsontext.Check(id); at >= 0 {
		id = nil
	}
	c.reject(id, code, msg+reason+"; a message is UTF-8 text, and a string cannot hold such bytes without changing")
}

// refuseUndecodable answers a line that is not a JSON-RPC message object.
func (c *lineConn) refuseUndecodable(line []byte, err error) {
	var syntax *json.SyntaxError
	var typeErr *json.UnmarshalTypeError
	switch {
	case errors.As(err, &syntax):
		c.reject(nil, jsonrpc.CodeParseError, "Parse error: the line is not valid JSON")
	case line[0] == '[':
		c.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: batches (JSON arrays) are not supported; send one message per line")
	case line[0] != '{':
		c.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: a message is a JSON object")
	case errors.As(err, &typeErr):
		c.reject(requestID(line), jsonrpc.CodeInvalidRequest, fmt.Sprintf(
			`Invalid Request: %q is %s, not %s; a request is {"jsonrpc":"2.0","id":<string or number>,"method":...,"params":{...}}`,
			typeErr.Field, typeErr.Value, typeErr.Type))
	default:
		c.reject(requestID(line), jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
	}
}

// messageID checks the id as sent and returns it as the SDK holds it, or
// answers the line and returns false. The SDK reads a numeric id as a
// float64 and answers it as an int64: 1.5 would come back as 1 and
// 9007199254740993 as 9007199254740992, so only what it can echo exactly
// is let through.
func (c *lineConn) messageID(raw json.RawMessage) (jsonrpc.ID, bool) {
	var v any
	switch {
	case len(raw) == 0 || string(raw) == "null":
		return jsonrpc.ID{}, true
	case raw[0] == '"':
		var s string
		if json.Unmarshal(raw, &s) != nil {
			return jsonrpc.ID{}, false // cannot happen: the line decoded
		}
		v = s
	case raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9':
		if bytes.ContainsAny(raw, ".eE") {
			c.reject(raw, jsonrpc.CodeInvalidRequest, "Invalid Request: a numeric id must be an integer written in digits, e.g. 7")
			return jsonrpc.ID{}, false
		}
		if !safeInteger(raw) {
			c.reject(raw, jsonrpc.CodeInvalidRequest, "Invalid Request: a numeric id must be between -9007199254740991 and 9007199254740991 (2^53-1), "+
				"the integers a JSON number holds exactly; send a larger id as a string")
			return jsonrpc.ID{}, false
		}
		n, err := strconv.ParseInt(string(raw), 10, 64)
		if err != nil {
			c.reject(raw, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
			return jsonrpc.ID{}, false
		}
		v = float64(n) // exact: |n| <= 2^53-1
	default:
		c.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: an id is a string or a number, e.g. 7 or \"a1\"")
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(v)
	if err != nil {
		c.reject(nil, jsonrpc.CodeInvalidRequest, "Invalid Request: "+err.Error())
		return jsonrpc.ID{}, false
	}
	return id, true
}

// replyID is the id to answer a refused message with: as sent when it is
// a string or a number, else null.
func replyID(raw json.RawMessage) json.RawMessage {
	if len(raw) > 0 && (raw[0] == '"' || raw[0] == '-' || raw[0] >= '0' && raw[0] <= '9') {
		return raw
	}
	return nil
}

// reject writes an error response with the given id (JSON; nil is null).
func (c *lineConn) reject(id json.RawMessage, code int64, message string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	c.logger.Warn("refused a JSON-RPC line", "code", code, "reason", message)
	data, err := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   jsonrpc.Error   `json:"error"`
	}{"2.0", id, jsonrpc.Error{Code: code, Message: message}})
	if err != nil {
		return
	}
	if err := c.writeLine(data); err != nil {
		c.logger.Warn("writing an error reply", "err", err)
	}
}

// requestID returns the id of a message that failed to decode when it is a
// valid JSON-RPC id (a string or a number), so the sender can match the
// error to its request; nil otherwise.
func requestID(line []byte) json.RawMessage {
	var m struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &m) != nil || len(m.ID) == 0 {
		return nil
	}
	var v any
	if json.Unmarshal(m.ID, &v) != nil {
		return nil
	}
	switch v.(type) {
	case string, float64:
		return m.ID
	}
	return nil
}

// maxSafeID is 2^53-1, the largest integer every JSON reader holds exactly.
const maxSafeID = "9007199254740991"

// safeInteger reports whether the JSON integer id (digits, maybe a leading
// minus, no leading zeros) is at most maxSafeID in magnitude.
func safeInteger(id []byte) bool {
	digits := string(bytes.TrimPrefix(id, []byte("-")))
	if len(digits) != len(maxSafeID) {
		return len(digits) < len(maxSafeID)
	}
	return digits <= maxSafeID
}

// readLine reads one line without its ending. A line longer than max is
// read to its end and dropped: tooLong is set and line is nil. err is the
// reader's error after the last line (io.EOF at the end of the input).
func readLine(r *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, rerr := r.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+2 { // +2: the line ending
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(rerr, bufio.ErrBufferFull) {
			continue
		}
		if tooLong {
			return nil, true, rerr
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(line) > max {
			return nil, true, rerr
		}
		return line, false, rerr
	}
}

// scanLine reports, in one pass, whether the JSON text nests arrays and
// objects deeper than max (brackets inside strings do not count) and where
// the value of the message's params.arguments lies: args is [from, to),
// or -1s when there is none. A key written with escapes is not recognised,
// so its value is checked here as the rest. It does not check syntax: a
// line it misreads does not decode.
func scanLine(data []byte, max int) (over bool, args [2]int) {
	args = [2]int{-1, -1}
	depth := 0
	inString := false
	ks, ke := 0, 0    // the last string closed
	params := false   // the key just read at depth 1 is "params"
	inParams := false // inside the object that is its value
	open := false     // inside the value of params.arguments
	for i := 0; i < len(data); i++ {
		b := data[i]
		if inString {
			switch b {
			case '\\':
				i++
			case '"':
				inString = false
				ke = i + 1
			}
			continue
		}
		switch b {
		case '"':
			inString = true
			ks = i
		case ':':
			switch {
			case depth == 1:
				params = string(data[ks:ke]) == `"params"`
			case depth == 2 && inParams && string(data[ks:ke]) == `"arguments"`:
				args, open = [2]int{i + 1, len(data)}, true
			}
		case ',':
			if open && depth == 2 {
				args[1], open = i, false
			}
		case '[', '{':
			depth++
			if depth > max {
				return true, args
			}
			if depth == 2 {
				inParams = b == '{' && params
			}
		case ']', '}':
			if open && depth == 2 {
				args[1], open = i, false
			}
			depth--
		}
	}
	return false, args
}
