package mcphttp

import (
	"errors"
	"fmt"
	"net"
	"strings"
)

// TokenEnv is the environment variable holding the bearer token every HTTP
// request must carry.
const TokenEnv = "MNEMOBANK_TOKEN"

// ErrInsecure: --http on an address other machines can reach, without a
// token.
var ErrInsecure = errors.New("refusing to serve without a token")

// MinTokenLength is the shortest MNEMOBANK_TOKEN accepted: a short token
// can be guessed.
const MinTokenLength = 32

// ErrWeakToken: MNEMOBANK_TOKEN is shorter than MinTokenLength.
var ErrWeakToken = errors.New("the token is too short")

// WeakTokenError says how short the token was.
type WeakTokenError struct{ Len int }

func (e *WeakTokenError) Error() string {
	return fmt.Sprintf("%v: %s has %d characters, and at least %d are required; make one with: openssl rand -hex 32",
		ErrWeakToken, TokenEnv, e.Len, MinTokenLength)
}

func (e *WeakTokenError) Unwrap() error { return ErrWeakToken }

// CheckAddr refuses a token shorter than MinTokenLength, and refuses an address reachable from other machines when no
// token is set: a memory bank served there would be open to anyone. flag
// names the option that gave addr (--http, --ui, --addr).
func CheckAddr(flag, addr, token string) error {
	if token != "" {
		if len(token) < MinTokenLength {
			return &WeakTokenError{Len: len(token)}
		}
		return nil
	}
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		return fmt.Errorf("%s %q: %v; give host:port such as 127.0.0.1:8080", flag, addr, err)
	}
	if host == "localhost" {
		return nil
	}
	if ip := net.ParseIP(host); ip != nil && ip.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%w: %s %q can be reached from other machines; set %s to a secret token (clients send it as \"Authorization: Bearer <token>\"), or listen on 127.0.0.1",
		ErrInsecure, flag, addr, TokenEnv)
}

// TrimToken reads the token from the environment, ignoring surrounding
// space (a token pasted with a newline would otherwise never match).
func TrimToken(getenv func(string) string) string {
	return strings.TrimSpace(getenv(TokenEnv))
}
