// Package tokens is per-person (or per-agent) access to a served bank:
// bearer tokens with a name and a scope (read, write or admin), kept only
// as the SHA-256 of their text in a Store, and an Authenticator that checks
// a presented token against the store, refusing expired and revoked ones,
// limiting guesses per client and noting each token's last use.
//
// A token is 32 random bytes (256 bits) in base64url after the prefix
// "mnb_": unguessable, so an unsalted SHA-256 is enough to keep it (a slow
// password hash guards low-entropy secrets, which these are not). The
// clear token is returned once by Generate and never stored or logged.
//
// Choices: a lookup is cached for CacheTTL (2 s), so a revocation holds
// on every server within 2 s at the cost of one indexed read per token
// per 2 s; last use is written at most once a minute per token; ten
// failed tokens from one address within a minute refuse that address
// (even with a right token) until the minute ends, counted per server;
// a token never expires unless --expires says so; names are short
// identifiers (letters, digits, ".", "_", "-", "@"), as they become the
// history's actor.
//
// Stores: MemStore (in memory, tests), FileStore (a JSON file beside a
// directory bank, for a local HTTP server) and pgtokens (a table of the
// PostgreSQL database, one set of tokens per namespace). The package
// itself does I/O only through the Store it is given.
package tokens

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"time"
)

// Scope is what a token may do. Each scope includes the ones below it.
type Scope int

// The scopes, weakest first.
const (
	ScopeRead  Scope = iota + 1 // read, search and list documents, memories, skill graphs, resources
	ScopeWrite                  // adds writes, deletes, write plans and reverting its own writes
	ScopeAdmin                  // adds reverting other people's writes
)

func (s Scope) String() string {
	switch s {
	case ScopeRead:
		return "read"
	case ScopeWrite:
		return "write"
	case ScopeAdmin:
		return "admin"
	}
	return fmt.Sprintf("Scope(%d)", int(s))
}

// Allows reports whether a token of scope s may do what needs scope need.
func (s Scope) Allows(need Scope) bool { return s >= need }

// ErrScope: the text is not a scope.
var ErrScope = errors.New("tokens: unknown scope")

// ParseScope reads "read", "write" or "admin".
func ParseScope(text string) (Scope, error) {
	for _, s := range []Scope{ScopeRead, ScopeWrite, ScopeAdmin} {
		if text == s.String() {
			return s, nil
		}
	}
	return 0, fmt.Errorf("%w %q: a scope is read, write or admin", ErrScope, text)
}

// Token is what a store keeps of a token: never its text, only its hash.
type Token struct {
	Name     string    `json:"name"`
	Scope    Scope     `json:"scope"`
	Hash     string    `json:"hash"` // Hash of the token's text
	Created  time.Time `json:"created"`
	LastUsed time.Time `json:"lastUsed,omitzero"`
	Expires  time.Time `json:"expires,omitzero"` // zero: never
	Revoked  time.Time `json:"revoked,omitzero"` // zero: not revoked
}

// Live reports whether t may be used at now: not revoked, not expired.
func (t Token) Live(now time.Time) bool {
	return t.Revoked.IsZero() && (t.Expires.IsZero() || now.Before(t.Expires))
}

// Errors of a Store.
var (
	ErrNotFound = errors.New("tokens: no such token")
	ErrExists   = errors.New("tokens: a token of that name exists")
	ErrName     = errors.New("tokens: invalid token name")
)

// MaxNameBytes bounds a token's name, which becomes the actor of the
// history: short, one line.
const MaxNameBytes = 64

// ValidateName reports whether name can name a token: 1 to MaxNameBytes
// of letters, digits, '.', '_', '-' and '@' (a person's or an agent's
// name, or an address), so it reads the same in history, logs and URLs.
func ValidateName(name string) error {
	if name == "" || len(name) > MaxNameBytes {
		return fmt.Errorf("%w %q: a name has 1 to %d characters", ErrName, name, MaxNameBytes)
	}
	for i, r := range name {
		ok := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-@", r)
		if !ok {
			return fmt.Errorf("%w %q: character %q at byte %d; use letters, digits, '.', '_', '-' and '@', such as alice or ci-agent", ErrName, name, r, i)
		}
	}
	return nil
}

// Store keeps tokens by name. Implementations are safe for concurrent use,
// by several processes when they share the store (FileStore, pgtokens).
type Store interface {
	// Create adds t. It fails with ErrExists when a token of t.Name that
	// is not revoked exists; a revoked one of that name is replaced.
	Create(ctx context.Context, t Token) error
	// Lookup returns the token whose Hash is hash, revoked or expired
	// ones included, or ErrNotFound.
	Lookup(ctx context.Context, hash string) (Token, error)
	// List returns every token, by name.
	List(ctx context.Context) ([]Token, error)
	// Revoke marks the token name revoked at at, or fails with
	// ErrNotFound. Revoking a revoked token changes nothing.
	Revoke(ctx context.Context, name string, at time.Time) error
	// Touch records that the token name was used at at.
	Touch(ctx context.Context, name string, at time.Time) error
}

// Prefix starts every token this package makes, so a leaked one is
// recognisable (secret scanners, logs).
const Prefix = "mnb_"

// Hash is what a store keeps of a token's text: its SHA-256, in hex.
func Hash(token string) string {
	sum := sha256.Sum256([]byte(token))
	return hex.EncodeToString(sum[:])
}

// Generate returns a new token's text (shown once to its owner) and its
// Hash (kept in the store).
func Generate() (text, hash string) {
	var b [32]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails
	text = Prefix + base64.RawURLEncoding.EncodeToString(b[:])
	return text, Hash(text)
}

// New makes a token named name of scope: it stores it in st and returns
// its text, which exists nowhere else. ttl 0 never expires.
func New(ctx context.Context, st Store, name string, scope Scope, ttl time.Duration, now time.Time) (string, Token, error) {
	if err := ValidateName(name); err != nil {
		return "", Token{}, err
	}
	if name == AdminName {
		// The history could not tell this token's writes from the shared
		// token's, and a write token reverts what its name wrote.
		return "", Token{}, fmt.Errorf("%w %q: the name is the shared %s's; choose another, such as the person's name", ErrName, name, "MNEMOBANK_TOKEN")
	}
	if scope < ScopeRead || scope > ScopeAdmin {
		return "", Token{}, fmt.Errorf("%w: %v", ErrScope, scope)
	}
	text, hash := Generate()
	t := Token{Name: name, Scope: scope, Hash: hash, Created: now.UTC()}
	if ttl > 0 {
		t.Expires = now.Add(ttl).UTC()
	}
	if err := st.Create(ctx, t); err != nil {
		return "", Token{}, err
	}
	return text, t, nil
}
