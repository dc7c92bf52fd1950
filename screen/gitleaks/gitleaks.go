// Package gitleaks is a screen.Scanner over gitleaks' default rule set
// (github.com/zricethezav/gitleaks/v8, MIT licence): more than two hundred
// provider rules, each with its keyword prefilter, entropy threshold and
// allowlists, maintained upstream as providers change their formats.
//
// It is a nested module because gitleaks brings dependencies (viper,
// zerolog, aho-corasick, ...) the root module does not take; the root
// defines screen.Scanner and hosts that want this rule set import this
// module. Findings are reported on the text as given; gitleaks' decoding
// of base64 and other encodings is off, so every finding's Secret occurs in
// the text and can be redacted.
package gitleaks

import (
	"fmt"
	"strings"

	"github.com/mnemobank/mnemobank/screen"
	"github.com/zricethezav/gitleaks/v8/detect"
)

// Scanner finds credentials with gitleaks' default rules. It is safe for
// concurrent use.
type Scanner struct {
	d *detect.Detector
}

var _ screen.Scanner = (*Scanner)(nil)

// New returns a Scanner over gitleaks' default configuration, compiled into
// the gitleaks module (no file is read).
func New() (*Scanner, error) {
	d, err := detect.NewDetectorDefaultConfig()
	if err != nil {
		return nil, fmt.Errorf("gitleaks: loading the default rules: %w", err)
	}
	d.MaxDecodeDepth = 0
	return &Scanner{d: d}, nil
}

// Scan implements screen.Scanner. Each credential is reported once, at its
// first occurrence, under the first rule that matched it.
func (s *Scanner) Scan(text string) []screen.Finding {
	if text == "" {
		return nil
	}
	var out []screen.Finding
	seen := map[string]bool{}
	for _, f := range s.d.DetectString(text) {
		secret := f.Secret
		if secret == "" {
			secret = f.Match
		}
		i := strings.Index(text, secret)
		if i < 0 || seen[secret] {
			continue
		}
		seen[secret] = true
		line, col := screen.LineColumn(text, i)
		out = append(out, screen.Finding{Kind: f.RuleID, Description: f.Description, Secret: secret, Line: line, Column: col})
	}
	return out
}
