package ui

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/examples/mcp-server/tokens"
)

// Authenticator checks the token of a request, or the hash of a token a
// session cookie names, and says whose it is; client is the address
// failed attempts are counted by. *tokens.Authenticator is one.
type Authenticator interface {
	Verify(ctx context.Context, token, client string) (tokens.Identity, error)
	VerifyHash(ctx context.Context, hash, client string) (tokens.Identity, error)
}

// Sessions: the cookie names the token by its hash and is signed, so it
// holds no token and cannot be made without the key.
const (
	cookieName    = "mnemobank_ui"
	sessionMaxAge = 7 * 24 * time.Hour
)

// sessionKey is the key of the session cookies: derived from the shared
// token when there is one (a session then survives a restart and holds on
// every server given that token), else random, for this process only.
func sessionKey(shared string) ([]byte, error) {
	if shared != "" {
		m := hmac.New(sha256.New, []byte(shared))
		m.Write([]byte("mnemobank ui session key"))
		return m.Sum(nil), nil
	}
	k := make([]byte, 32)
	_, err := rand.Read(k)
	return k, err
}

// newSession is the cookie value of a session of the token whose hash is
// hash, made at now: "1.<unix time>.<random nonce>.<hash>.<HMAC of the
// three>". The nonce makes each sign-in a session of its own, to which
// its forms' CSRF tokens are bound.
func (h *Handler) newSession(hash string, now time.Time) string {
	ts := strconv.FormatInt(now.Unix(), 10)
	var n [12]byte
	_, _ = rand.Read(n[:]) // crypto/rand.Read never fails
	nonce := base64.RawURLEncoding.EncodeToString(n[:])
	return "1." + ts + "." + nonce + "." + hash + "." + h.sessionMAC(ts, nonce, hash)
}

func (h *Handler) sessionMAC(ts, nonce, hash string) string {
	m := hmac.New(sha256.New, h.sessionKey)
	m.Write([]byte("mnemobank ui session\x00" + ts + "\x00" + nonce + "\x00" + hash))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// openSession returns the token hash a cookie value names, if this
// viewer made it and it is younger than sessionMaxAge.
func (h *Handler) openSession(value string) (string, bool) {
	parts := strings.Split(value, ".")
	if len(parts) != 5 || parts[0] != "1" {
		return "", false
	}
	ts, nonce, hash, mac := parts[1], parts[2], parts[3], parts[4]
	if _, err := hex.DecodeString(hash); err != nil || len(hash) != sha256.Size*2 || !equal(mac, h.sessionMAC(ts, nonce, hash)) {
		return "", false
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if age := time.Since(time.Unix(sec, 0)); err != nil || age > sessionMaxAge || age < -time.Minute {
		return "", false
	}
	return hash, true
}

func (h *Handler) setSession(w http.ResponseWriter, r *http.Request, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: cookieName, Value: value, Path: Prefix, MaxAge: maxAge, HttpOnly: true,
		SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil})
}

// sessionCtx is what the request's context carries once authenticated:
// who, and the session its forms' CSRF tokens are bound to.
type sessionCtx struct {
	id     string // "" without authentication
	cookie bool   // the session is a cookie's (it can be signed out of)
}

type sessionKeyT struct{}

func withSession(r *http.Request, id tokens.Identity, session string, cookie bool) *http.Request {
	ctx := tokens.WithIdentity(r.Context(), id)
	return r.WithContext(context.WithValue(ctx, sessionKeyT{}, sessionCtx{id: session, cookie: cookie}))
}

// sessionOf is what r's CSRF tokens are bound to: its cookie, the hash of
// its bearer token, or "" in a viewer without tokens.
func sessionOf(r *http.Request) string {
	s, _ := r.Context().Value(sessionKeyT{}).(sessionCtx)
	return s.id
}

func cookieSession(r *http.Request) bool {
	s, _ := r.Context().Value(sessionKeyT{}).(sessionCtx)
	return s.cookie
}

// authenticate returns r with the identity of its token, or answers r
// itself (the sign-in page, a refusal, the redirect after ?token=) and
// returns false. Without an Authenticator every request goes through
// with no identity. A token is taken, in this order, from
// "Authorization: Bearer", from the session cookie, or once from
// ?token= on a GET (then a cookie is set and the browser sent to the same
// address without it, so the token leaves the address bar and the
// history). /ui/signin shows a form and takes the token from its POST.
func (h *Handler) authenticate(w http.ResponseWriter, r *http.Request) (*http.Request, bool) {
	if h.auth == nil {
		return r, true
	}
	if r.URL.Path == Prefix+"signin" {
		h.signIn(w, r)
		return nil, false
	}
	if bearer, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok {
		id, err := h.auth.Verify(r.Context(), bearer, clientHost(r))
		if err != nil {
			h.refuse(w, r, err)
			return nil, false
		}
		return withSession(r, id, "bearer "+tokens.Hash(bearer), false), true
	}
	if c, err := r.Cookie(cookieName); err == nil {
		if hash, ok := h.openSession(c.Value); ok {
			id, err := h.auth.VerifyHash(r.Context(), hash, clientHost(r))
			if err != nil {
				h.setSession(w, r, "", -1)
				h.refuse(w, r, err)
				return nil, false
			}
			return withSession(r, id, c.Value, true), true
		}
	}
	q := r.URL.Query()
	if q.Has("token") && r.Method == http.MethodGet {
		tok := q.Get("token")
		if _, err := h.auth.Verify(r.Context(), tok, clientHost(r)); err != nil {
			h.refuse(w, r, err)
			return nil, false
		}
		h.setSession(w, r, h.newSession(tokens.Hash(tok), time.Now()), int(sessionMaxAge.Seconds()))
		q.Del("token")
		u := url.URL{Path: Prefix, RawQuery: q.Encode()}
		if strings.HasPrefix(r.URL.Path, Prefix) {
			u.Path = r.URL.Path // never "//host": the way back stays on this site
		}
		http.Redirect(w, r, u.String(), http.StatusSeeOther)
		return nil, false
	}
	h.refuse(w, r, nil)
	return nil, false
}

// signIn serves /ui/signin: GET shows the form; POST takes its token
// (from this viewer's own page only, so another site cannot sign a
// person in under its token), sets the session cookie and goes to the
// banks.
func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		h.signInPage(w, r, http.StatusOK, "")
		return
	case http.MethodPost:
	default:
		w.Header().Set("Allow", "GET, HEAD, POST")
		h.fail(w, r, &httpError{status: http.StatusMethodNotAllowed, msg: fmt.Sprintf("%s %s is not served: sign in with the form", r.Method, r.URL.Path)})
		return
	}
	if err := checkOrigin(r); err != nil {
		h.fail(w, r, err)
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxFormBytes)
	if err := r.ParseForm(); err != nil {
		h.fail(w, r, badRequest("the form could not be read (at most %d bytes): %v", maxFormBytes, err))
		return
	}
	tok := strings.TrimSpace(r.PostForm.Get("token"))
	if _, err := h.auth.Verify(r.Context(), tok, clientHost(r)); err != nil {
		h.refuse(w, r, err)
		return
	}
	h.setSession(w, r, h.newSession(tokens.Hash(tok), time.Now()), int(sessionMaxAge.Seconds()))
	http.Redirect(w, r, Prefix, http.StatusSeeOther)
}

// signOut ends the cookie's session in this browser. The token stays
// valid: revoking it is "mnemobank token revoke".
func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) error {
	h.setSession(w, r, "", -1)
	http.Redirect(w, r, Prefix+"signin", http.StatusSeeOther)
	return nil
}

// refuse answers a request whose token was refused (err) or absent (nil):
// 429 with Retry-After past the guess limit, else 401 with the sign-in
// form, saying why. It never repeats what was presented.
func (h *Handler) refuse(w http.ResponseWriter, r *http.Request, err error) {
	var rl *tokens.RateLimitError
	switch {
	case errors.As(err, &rl):
		w.Header().Set("Retry-After", strconv.Itoa(int(rl.RetryAfter.Seconds())+1))
		h.signInPage(w, r, http.StatusTooManyRequests, "429: "+rl.Error())
		return
	case err != nil && !errors.Is(err, tokens.ErrInvalid) && !errors.Is(err, tokens.ErrExpired) && !errors.Is(err, tokens.ErrRevoked):
		h.log.Error("ui: checking a token", "err", err)
		h.signInPage(w, r, http.StatusServiceUnavailable, "503: the tokens cannot be checked now; try again shortly")
		return
	}
	msg := "401: this viewer needs a token: sign in at " + Prefix + "signin, open " + Prefix + "?token=<token> once (the browser keeps a session cookie), or send Authorization: Bearer <token>; a token is made by \"mnemobank token create\" or is the server's MNEMOBANK_TOKEN"
	if err != nil {
		msg = "401: the token was refused (" + err.Error() + "); sign in with another at " + Prefix + "signin"
	}
	w.Header().Set("WWW-Authenticate", `Bearer realm="mnemobank"`)
	h.signInPage(w, r, http.StatusUnauthorized, msg)
}

// signInPage writes the sign-in form with status and msg; the picture
// and the live feed, which a browser does not show as a page, get msg as
// text.
func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request, status int, msg string) {
	if !strings.HasPrefix(r.URL.Path, Prefix) || strings.HasPrefix(r.URL.Path, Prefix+"static/") ||
		r.URL.Path == Prefix+"skill/graph.svg" || r.URL.Path == Prefix+"events" {
		http.Error(w, msg, status)
		return
	}
	if err := h.renderPage(w, r, status, "signin", struct{ Message, Action string }{msg, Prefix + "signin"}); err != nil {
		http.Error(w, msg, status)
	}
}

// identity is who r comes from; false in a viewer without tokens.
func identity(r *http.Request) (tokens.Identity, bool) {
	return tokens.FromContext(r.Context())
}

// actor is who the history records for r's change: its token's name,
// else def.
func actor(r *http.Request, def string) string {
	if id, ok := identity(r); ok {
		return id.Name
	}
	return def
}

// may reports whether r may make changes that need scope: never in a
// read-only viewer; always without tokens; else when its token's scope
// allows it.
func (h *Handler) may(r *http.Request, need tokens.Scope) bool {
	if h.opts.ReadOnly {
		return false
	}
	id, ok := identity(r)
	return !ok || id.Scope.Allows(need)
}

// need serves f only to a request whose token has scope need (any
// request in a viewer without tokens); what names the page or change in
// the refusal.
func (h *Handler) need(need tokens.Scope, what string, f func(http.ResponseWriter, *http.Request) error) func(http.ResponseWriter, *http.Request) error {
	return func(w http.ResponseWriter, r *http.Request) error {
		if id, ok := identity(r); ok && !id.Scope.Allows(need) {
			return scopeRefusal(what, need, id)
		}
		return f(w, r)
	}
}

func scopeRefusal(what string, need tokens.Scope, id tokens.Identity) *httpError {
	return forbidden(http.StatusForbidden, "403: %s needs a token of scope %s; the token %q has scope %s (ask an admin: mnemobank token create --name %s --scope %s)",
		what, need, id.Name, id.Scope, id.Name, need)
}

// clientHost is the address failed tokens are counted by.
func clientHost(r *http.Request) string {
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		return r.RemoteAddr
	}
	return host
}
