package ui

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Limits, checked before any work.
const (
	maxQueryBytes = 8 << 10 // the query string of a request
	maxFormBytes  = 8 << 10 // the body of a POST
	maxStreams    = 16      // event streams open at once
	csrfMaxAge    = 12 * time.Hour
)

// The headers of every response.
const (
	pageCSP = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; object-src 'none'; base-uri 'none'; frame-ancestors 'none'; form-action 'self'"
	// svgCSP is the policy of the skill graph pictures: Graphviz writes
	// style attributes, and nothing else may load or run.
	svgCSP = "default-src 'none'; style-src 'unsafe-inline'"
)

// ErrForbidden: a request refused by the checks of every request (Host,
// Origin, CSRF token, token, read-only).
var ErrForbidden = errors.New("ui: request refused")

// httpError is a page's failure: the status and what to tell the person.
type httpError struct {
	status int
	msg    string
	err    error
}

func (e *httpError) Error() string { return e.msg }
func (e *httpError) Unwrap() error { return e.err }

func forbidden(status int, format string, args ...any) *httpError {
	return &httpError{status: status, msg: fmt.Sprintf(format, args...), err: ErrForbidden}
}

func badRequest(format string, args ...any) *httpError {
	return &httpError{status: http.StatusBadRequest, msg: fmt.Sprintf(format, args...)}
}

func setSecurityHeaders(hd http.Header) {
	hd.Set("Content-Security-Policy", pageCSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "same-origin") // no-referrer makes browsers send "Origin: null" on form POSTs
	hd.Set("X-Frame-Options", "DENY")
	hd.Set("Cache-Control", "no-store")
}

// checkHost refuses a Host header that names neither a loopback host nor
// one of Options.Hosts: a page of another site whose name was re-pointed
// at this address (DNS rebinding) sends its own name.
func (h *Handler) checkHost(r *http.Request) error {
	host := r.Host
	if hn, _, err := net.SplitHostPort(host); err == nil {
		host = hn
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(strings.TrimSuffix(host, "]"), "["), "."))
	switch host {
	case "localhost", "127.0.0.1", "::1":
		return nil
	}
	for _, a := range h.opts.Hosts {
		if a == "*" || strings.EqualFold(a, host) {
			return nil
		}
	}
	return forbidden(http.StatusMisdirectedRequest, "421: the host %q is not this viewer's; open it as http://localhost:PORT%s or by the address it was started on", r.Host, Prefix)
}

func equal(a, b string) bool { return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1 }

// csrfToken is a token for a form of r's page posting to action: the
// time it was made and an HMAC, under the process's random key, of it,
// the action and r's session (see sessionOf). It proves the form was
// served by this process, to this session, within csrfMaxAge.
func (h *Handler) csrfToken(r *http.Request, action string) string {
	ts := strconv.FormatInt(time.Now().Unix(), 10)
	return ts + "." + h.csrfMAC(action, ts, sessionOf(r))
}

func (h *Handler) csrfMAC(action, ts, session string) string {
	m := hmac.New(sha256.New, h.key)
	m.Write([]byte(action + "\x00" + ts + "\x00" + session))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

func (h *Handler) checkCSRF(r *http.Request, action, token string) error {
	ts, mac, ok := strings.Cut(token, ".")
	if token == "" || !ok {
		return forbidden(http.StatusForbidden, "403: the form has no valid CSRF token; reload the page and submit its form again")
	}
	sec, err := strconv.ParseInt(ts, 10, 64)
	if err != nil || !equal(mac, h.csrfMAC(action, ts, sessionOf(r))) {
		return forbidden(http.StatusForbidden, "403: the form's CSRF token is not one this server made for %s in this session (was the server restarted, or did you sign in again?); reload the page and submit again", action)
	}
	if age := time.Since(time.Unix(sec, 0)); age > csrfMaxAge || age < -time.Minute {
		return forbidden(http.StatusForbidden, "403: the form is older than %v; reload the page and submit again", csrfMaxAge)
	}
	return nil
}

// checkFetchSite refuses a request another site's page makes for a
// resource (an <img>, a <script>, a fetch, an EventSource, a frame): from
// another site only a navigation to a page (a link followed) is served.
// Otherwise any page the person visits could learn which skill graphs
// exist (their picture loads or fails), hold the live feed's few streams
// or spend the server's time on searches. "same-site" is refused too: on
// localhost every port is the same site. A request without the header
// (not a browser, or an old one) is not refused here.
func checkFetchSite(r *http.Request) error {
	switch s := r.Header.Get("Sec-Fetch-Site"); s {
	case "", "same-origin", "none":
		return nil
	default:
		if r.Method == http.MethodGet && r.Header.Get("Sec-Fetch-Mode") == "navigate" && r.Header.Get("Sec-Fetch-Dest") == "document" {
			return nil
		}
		return forbidden(http.StatusForbidden, "403: another site's page (Sec-Fetch-Site %q) may link to this viewer but not load from it", s)
	}
}

// checkOrigin refuses a POST a browser says came from another site. A
// client without these headers (curl) is not a browser another site can
// drive; the CSRF token still guards it.
func checkOrigin(r *http.Request) error {
	if s := r.Header.Get("Sec-Fetch-Site"); s != "" && s != "same-origin" && s != "none" {
		return forbidden(http.StatusForbidden, "403: a change must come from the viewer's own pages (Sec-Fetch-Site is %q)", s)
	}
	o := r.Header.Get("Origin")
	if o == "" {
		return nil
	}
	u, err := url.Parse(o)
	if err != nil || o == "null" || !strings.EqualFold(u.Host, r.Host) || (u.Scheme != "http" && u.Scheme != "https") {
		return forbidden(http.StatusForbidden, "403: a change must come from the viewer's own pages; Origin %q is not %q", o, r.Host)
	}
	return nil
}
