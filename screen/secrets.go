package screen

import (
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"
)

// A Finding is one credential a Scanner found in a text.
type Finding struct {
	// Kind names the rule that matched, such as "aws-access-token" or
	// "private-key" (gitleaks' rule ids).
	Kind string `json:"kind"`
	// Description says what the kind is, in words ("AWS access key").
	Description string `json:"description,omitempty"`
	// Secret is the credential itself, as it occurs in the text. It is
	// used to redact and never put in an error message.
	Secret string `json:"-"`
	// Line and Column (1-based, column in bytes) locate the first
	// occurrence of Secret in the text.
	Line   int `json:"line"`
	Column int `json:"column"`
}

// Scanner finds credentials in a text. Implementations are safe for
// concurrent use and never modify the text. An implementation that cannot
// scan (its rules failed to load) must fail at construction, not here.
type Scanner interface {
	Scan(text string) []Finding
}

// ScannerFunc adapts a function to a Scanner.
type ScannerFunc func(text string) []Finding

// Scan calls f.
func (f ScannerFunc) Scan(text string) []Finding { return f(text) }

// PatternScanner is a Scanner of one rule: every match of re is a Finding
// of kind. A host adds a credential of its own (an internal token format)
// this way, beside a rule set.
func PatternScanner(kind string, re *regexp.Regexp) Scanner {
	return ScannerFunc(func(text string) []Finding {
		var out []Finding
		for _, loc := range re.FindAllStringIndex(text, -1) {
			line, col := LineColumn(text, loc[0])
			out = append(out, Finding{Kind: kind, Secret: text[loc[0]:loc[1]], Line: line, Column: col})
		}
		return out
	})
}

// Screen is what a write path calls before it stores a text: it returns
// the text to store (text itself when it holds no credential, or a
// redacted copy), or an error wrapping [ErrSecret] (a [*SecretError])
// when the text must not be stored. where names the place in words the
// writer understands (a document path, "memory", "import of x.zip: notes.md")
// and is used only in the error. Implementations are safe for concurrent use.
type Screen interface {
	Screen(where, text string) (string, error)
}

// Mode is what a Secrets screen does with a credential.
type Mode string

const (
	// Refuse: the write fails with a *SecretError naming each kind and
	// where it is, so the writer can remove it and write again.
	Refuse Mode = "refuse"
	// Redact: each credential is replaced by Marker(kind) and the rest is
	// stored.
	Redact Mode = "redact"
)

// ParseMode reads a Mode ("refuse" or "redact"); anything else is an error
// wrapping ErrInvalidMode.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case Refuse, Redact:
		return m, nil
	}
	return "", fmt.Errorf("%w: %q; use %q or %q", ErrInvalidMode, s, Refuse, Redact)
}

// ErrInvalidMode is the error of ParseMode for an unknown mode.
var ErrInvalidMode = errors.New("screen: unknown secrets mode")

// Secrets is the Screen over a Scanner: it refuses or redacts what the
// Scanner finds, by Mode. The zero Mode refuses.
type Secrets struct {
	Scanner Scanner
	Mode    Mode
}

var _ Screen = Secrets{}

// Screen implements Screen.
func (s Secrets) Screen(where, text string) (string, error) {
	if s.Scanner == nil || text == "" {
		return text, nil
	}
	found := s.Scanner.Scan(text)
	if len(found) == 0 {
		return text, nil
	}
	if s.Mode != Redact {
		return "", &SecretError{Where: where, Findings: found}
	}
	out := RedactFindings(text, found)
	// A credential can hide behind a shorter one the rules matched first
	// (a key inside a URL inside a config line): scan again until clean,
	// and refuse if redaction cannot make the text clean.
	for range 3 {
		again := s.Scanner.Scan(out)
		if len(again) == 0 {
			return out, nil
		}
		out = RedactFindings(out, again)
	}
	if again := s.Scanner.Scan(out); len(again) > 0 {
		return "", &SecretError{Where: where, Findings: again}
	}
	return out, nil
}

// Marker is what replaces a credential of kind in redact mode.
func Marker(kind string) string { return "[REDACTED:" + kind + "]" }

// RedactFindings replaces every occurrence of each finding's Secret in
// text by Marker of its kind, longest secrets first (so a secret that
// contains another is replaced whole).
func RedactFindings(text string, found []Finding) string {
	fs := slices.Clone(found)
	slices.SortStableFunc(fs, func(a, b Finding) int { return len(b.Secret) - len(a.Secret) })
	for _, f := range fs {
		if f.Secret == "" {
			continue
		}
		text = strings.ReplaceAll(text, f.Secret, Marker(f.Kind))
	}
	return text
}

// ErrSecret is wrapped by every error of a write refused because its text
// holds a credential.
var ErrSecret = errors.New("screen: credential in the text")

// SecretError is the error of a write refused because its text holds
// credentials: where it was, and each finding (kind, line, column). The
// message never repeats a credential.
type SecretError struct {
	Where    string
	Findings []Finding
	// Detail, when set, says why the screen could not redact.
	Detail string
}

func (e *SecretError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "refusing to store %s: it holds ", e.Where)
	for i, f := range e.Findings {
		if i > 0 {
			b.WriteString(", ")
		}
		what := f.Kind
		if f.Description != "" {
			what += " (" + f.Description + ")"
		}
		fmt.Fprintf(&b, "a credential of kind %s at line %d, column %d", what, f.Line, f.Column)
		if f.Secret != "" {
			fmt.Fprintf(&b, " (%s)", Mask(f.Secret))
		}
	}
	if len(e.Findings) == 0 {
		b.WriteString("credentials")
	}
	if e.Detail != "" {
		b.WriteString(" (" + e.Detail + ")")
	}
	kind := "kind"
	if len(e.Findings) > 0 {
		kind = e.Findings[0].Kind
	}
	b.WriteString("; credentials are never stored: replace each with a placeholder such as ")
	b.WriteString(Marker(kind))
	b.WriteString(" or a reference to where it is kept (an environment variable's name), and write again")
	return b.String()
}

// Unwrap returns ErrSecret.
func (e *SecretError) Unwrap() error { return ErrSecret }

// Mask shows at most the first four characters of a credential and its
// length, enough to find it in the text without repeating it.
func Mask(secret string) string {
	r := []rune(secret)
	n := min(4, len(r)/4)
	return fmt.Sprintf("%q... %d characters", string(r[:n]), len(r))
}

// LineColumn gives the 1-based line and byte column of offset in text.
func LineColumn(text string, offset int) (line, col int) {
	offset = min(max(offset, 0), len(text))
	line = 1 + strings.Count(text[:offset], "\n")
	col = offset - strings.LastIndexByte(text[:offset], '\n')
	return line, col
}
