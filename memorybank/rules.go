package memorybank

import (
	"context"
	"embed"
	"errors"
)

//go:embed rules/*.md
var rulesFS embed.FS

// BuiltinRules returns the rules the Bank ships with for lang ("" if the
// language is not supported).
func BuiltinRules(lang Language) string {
	b, err := rulesFS.ReadFile("rules/" + string(lang) + ".md")
	if err != nil {
		return ""
	}
	return string(b)
}

// rulesPath returns the path, in the global bank, of the document that
// overrides the rules of lang: "rules/<lang>.md".
func rulesPath(lang Language) string { return "rules/" + string(lang) + ".md" }

// Rules returns the memory bank rules in lang ("" for Options.Language): the
// global document rulesPath(lang) when it exists, else Options.DefaultRules[lang],
// else the built-in rules.
func (b *Bank) Rules(ctx context.Context, lang Language) (string, error) {
	if err := b.ready(); err != nil {
		return "", err
	}
	if lang == "" {
		lang = b.opts.Language
	}
	if !validLanguage(lang) {
		return "", invalidRequest("language %q is not one of en, ja, zh", lang)
	}
	d, err := b.Read(ctx, ReadRequest{Scope: ScopeGlobal, Path: rulesPath(lang)})
	switch {
	case err == nil:
		return d.Text(), nil
	case !errors.Is(err, ErrNotFound):
		return "", err
	}
	if r, ok := b.opts.DefaultRules[lang]; ok {
		return r, nil
	}
	return BuiltinRules(lang), nil
}
