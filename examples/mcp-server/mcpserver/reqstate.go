package mcpserver

import (
	"bytes"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"
)

// A multi round-trip tool call (MCP 2026-07-28 input requests) carries
// state from one round to the next through the client: the first round
// returns the input requests and a requestState, the client asks the user
// and calls again with the answers and that state. The client could send
// answers it made up ("accept") without ever showing the user anything, or
// send a state again. So the state is sealed: an HMAC-SHA256, with a key
// only this server holds, over the tool's name, the digest of the call's
// arguments, an expiry and a random nonce. A round carrying answers is
// served only with a state that verifies, names this tool and these
// arguments, has not expired and was not used before; anything else is
// refused and writes nothing.

// requestStateTTL is how long a state stays valid: long enough for a
// person to read a confirmation and answer it, short enough that an old
// one is not kept around as a standing permission.
const requestStateTTL = 10 * time.Minute

// maxRequestStateLen bounds the requestState a client sends, checked
// before it is decoded; a state this server issues is about 200 bytes.
const maxRequestStateLen = 1024

// maxSpentStates bounds how many used, unexpired states are remembered to
// refuse their replay. Past it, answers are refused (the caller asks
// again) until some expire, rather than forgetting one that could then be
// replayed.
const maxSpentStates = 100_000

// requestStateVersion is the first field of every state, so a format
// change refuses old states instead of misreading them.
const requestStateVersion = 1

var (
	// errRequestState: the requestState of a round carrying input
	// responses was refused; a *requestStateError says why.
	errRequestState = errors.New("the request state was refused")
	// errStateMissing: input responses came without a requestState.
	errStateMissing = errors.New("input responses without a request state")
	// errStateForged: the state is malformed or its HMAC does not verify.
	errStateForged = errors.New("the request state was not issued by this server or was altered")
	// errStateMismatch: the state was issued for another tool or other
	// arguments.
	errStateMismatch = errors.New("the request state belongs to another call")
	// errStateExpired: the state is past its expiry.
	errStateExpired = errors.New("the request state has expired")
	// errStateReplayed: the state was already used once.
	errStateReplayed = errors.New("the request state was already used")
	// errStateBusy: too many states are in use to remember another.
	errStateBusy = errors.New("too many confirmations are in progress")
)

// requestStateError is a refused request state: Reason is one of the
// errState* sentinels, Tool the tool called, Detail what was found.
type requestStateError struct {
	Tool   string
	Reason error
	Detail string
}

func (e *requestStateError) Error() string {
	msg := fmt.Sprintf("%s: %v", e.Tool, e.Reason)
	if e.Detail != "" {
		msg += " (" + e.Detail + ")"
	}
	return msg
}

// Is makes errors.Is(err, errRequestState) hold, besides the reason.
func (e *requestStateError) Is(target error) bool { return target == errRequestState }
func (e *requestStateError) Unwrap() error        { return e.Reason }

// requestStatePayload is what a state says; it travels as JSON, then the
// HMAC of those bytes.
type requestStatePayload struct {
	V      int    `json:"v"`
	Tool   string `json:"tool"`
	Args   string `json:"args"` // hex SHA-256 of the canonical arguments
	Exp    int64  `json:"exp"`  // Unix milliseconds
	Nonce  string `json:"nonce"`
	Action string `json:"action"` // what the answers are for, e.g. "confirm"
}

// stateSealer issues and checks request states.
type stateSealer struct {
	key []byte
	now func() time.Time

	mu    sync.Mutex
	spent map[string]int64 // nonce → expiry (Unix ms)
}

// newStateSealer returns a sealer with key, or a random key when key is
// empty (then only this process accepts its states).
func newStateSealer(key []byte) *stateSealer {
	if len(key) == 0 {
		key = make([]byte, 32)
		_, _ = rand.Read(key) // crypto/rand.Read never fails
	}
	return &stateSealer{key: key, now: time.Now, spent: map[string]int64{}}
}

// argsDigest is the SHA-256 of args with object keys sorted and no
// insignificant space, so the same arguments re-encoded by the client
// give the same digest.
func argsDigest(args json.RawMessage) string {
	canon := []byte(args)
	var v any
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.UseNumber()
	if dec.Decode(&v) == nil {
		if b, err := json.Marshal(v); err == nil {
			canon = b
		}
	}
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

func (s *stateSealer) mac(payload []byte) []byte {
	m := hmac.New(sha256.New, s.key)
	m.Write(payload)
	return m.Sum(nil)
}

// issue seals a state for a round of tool with args, answering action.
func (s *stateSealer) issue(tool, action string, args json.RawMessage) string {
	nonce := make([]byte, 16)
	_, _ = rand.Read(nonce)
	p, _ := json.Marshal(requestStatePayload{
		V: requestStateVersion, Tool: tool, Action: action, Args: argsDigest(args),
		Exp: s.now().Add(requestStateTTL).UnixMilli(), Nonce: hex.EncodeToString(nonce),
	})
	enc := base64.RawURLEncoding
	return enc.EncodeToString(p) + "." + enc.EncodeToString(s.mac(p))
}

// redeem checks state for a round of tool with args answering action and
// spends it: a state is redeemed at most once. The error is a
// *requestStateError.
func (s *stateSealer) redeem(tool, action string, args json.RawMessage, state string) error {
	refuse := func(reason error, detail string) error {
		return &requestStateError{Tool: tool, Reason: reason, Detail: detail}
	}
	if state == "" {
		return refuse(errStateMissing, "answers are accepted only with the requestState of the round that asked for them")
	}
	if len(state) > maxRequestStateLen {
		return refuse(errStateForged, fmt.Sprintf("it is %d bytes long, a state this server issues is under %d", len(state), maxRequestStateLen))
	}
	body, sig, found := strings.Cut(state, ".")
	enc := base64.RawURLEncoding
	p, perr := enc.DecodeString(body)
	m, merr := enc.DecodeString(sig)
	if !found || perr != nil || merr != nil {
		return refuse(errStateForged, "it is not of the form payload.signature in unpadded base64url")
	}
	if !hmac.Equal(m, s.mac(p)) {
		return refuse(errStateForged, "its signature does not verify")
	}
	var pl requestStatePayload
	if err := json.Unmarshal(p, &pl); err != nil || pl.V != requestStateVersion {
		return refuse(errStateForged, "its payload is not a version 1 state")
	}
	if pl.Tool != tool || pl.Action != action {
		return refuse(errStateMismatch, fmt.Sprintf("it was issued for %s (%s), not %s (%s)", quoteInput(pl.Tool), quoteInput(pl.Action), tool, action))
	}
	if pl.Args != argsDigest(args) {
		return refuse(errStateMismatch, "it was issued for other arguments; the arguments must be those of the first round")
	}
	now := s.now().UnixMilli()
	if now >= pl.Exp {
		return refuse(errStateExpired, fmt.Sprintf("it expired at %s, %s after it was issued", time.UnixMilli(pl.Exp).UTC().Format(time.RFC3339), requestStateTTL))
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, used := s.spent[pl.Nonce]; used {
		return refuse(errStateReplayed, "each state answers one round; call the tool again without answers to be asked again")
	}
	if len(s.spent) >= maxSpentStates {
		for n, exp := range s.spent {
			if now >= exp {
				delete(s.spent, n)
			}
		}
		if len(s.spent) >= maxSpentStates {
			return refuse(errStateBusy, fmt.Sprintf("%d are in progress, the limit; call the tool again later", maxSpentStates))
		}
	}
	s.spent[pl.Nonce] = pl.Exp
	return nil
}
