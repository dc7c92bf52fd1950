package tokens

import (
	"context"
	"crypto/subtle"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
)

// Identity is who a request comes from: the token's name and scope.
type Identity struct {
	Name    string
	Scope   Scope
	Expires time.Time // zero: never
}

// AdminName is the identity of the single shared token (MNEMOBANK_TOKEN),
// which is an admin token.
const AdminName = "admin"

// Errors of Authenticator.Verify.
var (
	ErrInvalid     = errors.New("tokens: unknown token")
	ErrExpired     = errors.New("tokens: the token has expired")
	ErrRevoked     = errors.New("tokens: the token was revoked")
	ErrRateLimited = errors.New("tokens: too many failed attempts")
)

// RateLimitError says how long a client must wait after too many failed
// attempts.
type RateLimitError struct{ RetryAfter time.Duration }

func (e *RateLimitError) Error() string {
	return fmt.Sprintf("%v from this address; try again in %s", ErrRateLimited, e.RetryAfter.Round(time.Second))
}

func (e *RateLimitError) Unwrap() error { return ErrRateLimited }

// Defaults of AuthOptions.
const (
	DefaultCacheTTL    = 2 * time.Second
	DefaultTouchEvery  = time.Minute
	DefaultMaxFailures = 10
	DefaultFailWindow  = time.Minute
	maxCached          = 10000 // cached lookups, and clients with failures
)

// AuthOptions configure an Authenticator; zero fields take the defaults.
type AuthOptions struct {
	// AdminToken, when set, is accepted as an admin token named AdminName
	// (the single shared MNEMOBANK_TOKEN).
	AdminToken string
	// CacheTTL is how long a lookup is kept: a revocation takes effect
	// on every server within it.
	CacheTTL time.Duration
	// TouchEvery is how often at most a token's last use is written.
	TouchEvery time.Duration
	// MaxFailures failed attempts of one client within FailWindow block
	// it until the window ends.
	MaxFailures int
	FailWindow  time.Duration
	Now         func() time.Time
	Logger      *slog.Logger
}

// Authenticator checks presented tokens against a Store. Safe for
// concurrent use.
type Authenticator struct {
	st        Store
	o         AuthOptions
	adminHash []byte
	mu        sync.Mutex
	cache     map[string]cached // by hash
	fails     map[string]*failures
}

type cached struct {
	tok     Token
	err     error
	at      time.Time
	touched time.Time
}

type failures struct {
	n     int
	since time.Time
}

// NewAuthenticator checks tokens against st (nil: only o.AdminToken).
func NewAuthenticator(st Store, o *AuthOptions) *Authenticator {
	a := &Authenticator{st: st, cache: map[string]cached{}, fails: map[string]*failures{}}
	if o != nil {
		a.o = *o
	}
	if a.o.CacheTTL <= 0 {
		a.o.CacheTTL = DefaultCacheTTL
	}
	if a.o.TouchEvery <= 0 {
		a.o.TouchEvery = DefaultTouchEvery
	}
	if a.o.MaxFailures <= 0 {
		a.o.MaxFailures = DefaultMaxFailures
	}
	if a.o.FailWindow <= 0 {
		a.o.FailWindow = DefaultFailWindow
	}
	if a.o.Now == nil {
		a.o.Now = time.Now
	}
	if a.o.Logger == nil {
		a.o.Logger = slog.New(slog.DiscardHandler)
	}
	if a.o.AdminToken != "" {
		a.adminHash = []byte(Hash(a.o.AdminToken))
	}
	return a
}

// Verify returns the identity of token, presented by client (its
// address: failures are counted per client). The token is hashed first
// and only hashes are compared, in constant time, so neither the
// comparison's time nor any log holds the token.
func (a *Authenticator) Verify(ctx context.Context, token, client string) (Identity, error) {
	return a.VerifyHash(ctx, Hash(token), client)
}

// VerifyHash is Verify of the token whose Hash is hash: for a session
// (the viewer's cookie) that keeps the hash rather than the token, so
// that each of its requests is judged as the token's would be (revoked
// or expired within CacheTTL, failures counted).
func (a *Authenticator) VerifyHash(ctx context.Context, hash, client string) (Identity, error) {
	now := a.o.Now()
	if err := a.blocked(client, now); err != nil {
		return Identity{}, err
	}
	if a.adminHash != nil && subtle.ConstantTimeCompare([]byte(hash), a.adminHash) == 1 {
		return Identity{Name: AdminName, Scope: ScopeAdmin}, nil
	}
	tok, err := a.lookup(ctx, hash, now)
	switch {
	case errors.Is(err, ErrNotFound):
		a.fail(client, now)
		return Identity{}, ErrInvalid
	case err != nil:
		return Identity{}, err
	case !tok.Revoked.IsZero():
		a.fail(client, now)
		return Identity{}, fmt.Errorf("%w: %q on %s", ErrRevoked, tok.Name, tok.Revoked.Format(time.RFC3339))
	case !tok.Expires.IsZero() && !now.Before(tok.Expires):
		a.fail(client, now)
		return Identity{}, fmt.Errorf("%w: %q on %s", ErrExpired, tok.Name, tok.Expires.Format(time.RFC3339))
	}
	a.touch(ctx, hash, tok, now)
	return Identity{Name: tok.Name, Scope: tok.Scope, Expires: tok.Expires}, nil
}

func (a *Authenticator) lookup(ctx context.Context, hash string, now time.Time) (Token, error) {
	a.mu.Lock()
	c, ok := a.cache[hash]
	a.mu.Unlock()
	if ok && now.Sub(c.at) < a.o.CacheTTL {
		return c.tok, c.err
	}
	if a.st == nil {
		return Token{}, ErrNotFound
	}
	tok, err := a.st.Lookup(ctx, hash)
	if err != nil && !errors.Is(err, ErrNotFound) {
		return Token{}, err // not cached: the store may be back soon
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if len(a.cache) >= maxCached {
		clear(a.cache)
	}
	a.cache[hash] = cached{tok: tok, err: err, at: now, touched: c.touched}
	return tok, err
}

// touch writes the token's last use when the store's is older than
// TouchEvery, and this server has not written it within TouchEvery.
func (a *Authenticator) touch(ctx context.Context, hash string, tok Token, now time.Time) {
	a.mu.Lock()
	c := a.cache[hash]
	due := now.Sub(tok.LastUsed) >= a.o.TouchEvery && now.Sub(c.touched) >= a.o.TouchEvery
	if due {
		c.touched = now
		a.cache[hash] = c
	}
	a.mu.Unlock()
	if due {
		if err := a.st.Touch(ctx, tok.Name, now); err != nil {
			a.o.Logger.Warn("tokens: recording a token's last use", "name", tok.Name, "err", err)
		}
	}
}

func (a *Authenticator) blocked(client string, now time.Time) error {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.fails[client]
	if f == nil {
		return nil
	}
	if end := f.since.Add(a.o.FailWindow); now.Before(end) {
		if f.n >= a.o.MaxFailures {
			return &RateLimitError{RetryAfter: end.Sub(now)}
		}
		return nil
	}
	delete(a.fails, client)
	return nil
}

func (a *Authenticator) fail(client string, now time.Time) {
	a.mu.Lock()
	defer a.mu.Unlock()
	f := a.fails[client]
	if f == nil {
		if len(a.fails) >= maxCached {
			for k, v := range a.fails {
				if !now.Before(v.since.Add(a.o.FailWindow)) {
					delete(a.fails, k)
				}
			}
			if len(a.fails) >= maxCached {
				clear(a.fails)
			}
		}
		f = &failures{since: now}
		a.fails[client] = f
	}
	f.n++
	if f.n == a.o.MaxFailures {
		a.o.Logger.Warn("tokens: too many failed token attempts; refusing the client for a while", "client", client, "window", a.o.FailWindow)
	}
}

type identityKey struct{}

// WithIdentity returns ctx carrying id.
func WithIdentity(ctx context.Context, id Identity) context.Context {
	return context.WithValue(ctx, identityKey{}, id)
}

// FromContext returns the identity ctx carries, if any.
func FromContext(ctx context.Context) (Identity, bool) {
	id, ok := ctx.Value(identityKey{}).(Identity)
	return id, ok
}

// infoKey is where an Identity rides in the SDK's auth.TokenInfo, which
// the streamable HTTP transport hands to every request of the MCP server.
const infoKey = "mnemobank.identity"

// TokenInfo is id as the MCP SDK's auth middleware carries it: UserID is
// the name (the SDK binds a session to it, so another token cannot take
// the session over) and Scopes the scope's name.
func (id Identity) TokenInfo() *auth.TokenInfo {
	return &auth.TokenInfo{UserID: id.Name, Scopes: []string{id.Scope.String()}, Expiration: id.Expires,
		Extra: map[string]any{infoKey: id}}
}

// IdentityOf returns the Identity ti carries, if it carries one.
func IdentityOf(ti *auth.TokenInfo) (Identity, bool) {
	if ti == nil {
		return Identity{}, false
	}
	id, ok := ti.Extra[infoKey].(Identity)
	return id, ok
}
