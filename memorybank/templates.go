package memorybank

import (
	"context"
	"embed"
	"encoding/json"
	"errors"
	"fmt"
	"path"
	"strings"

	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
)

//go:embed templates/*/*.json
var templateFS embed.FS

// coreTemplate returns the template of a branch core file (for example
// "activeContext.json") in a language, with the branch name filled in: a
// memory_document_v2 envelope without the metadata the Bank maintains. ok is
// false when there is no such template.
func coreTemplate(file string, lang Language, branch string) (doc json.RawMessage, ok bool) {
	if !validLanguage(lang) || path.Base(file) != file {
		return nil, false
	}
	b, err := templateFS.ReadFile("templates/" + string(lang) + "/" + file)
	if err != nil {
		return nil, false
	}
	quoted := string(codec.RawString(branch))
	return json.RawMessage(strings.ReplaceAll(string(b), "{{branch}}", quoted[1:len(quoted)-1])), true
}

// InitBranch creates the missing core files of a branch bank from the
// templates of lang ("" for Options.Language). Existing documents are never
// touched, so calling it again, or concurrently, is harmless. Core files
// without a template (custom BranchCoreFiles) are not created.
func (b *Bank) InitBranch(ctx context.Context, branch string, lang Language) error {
	if err := b.ready(); err != nil {
		return err
	}
	if lang == "" {
		lang = b.opts.Language
	}
	if !validLanguage(lang) {
		return invalidRequest("language %q is not one of en, ja, zh", lang)
	}
	if branch == "" {
		return invalidRequest("InitBranch needs a branch name")
	}
	for _, f := range b.opts.BranchCoreFiles {
		doc, ok := coreTemplate(f, lang, branch)
		if !ok {
			continue
		}
		_, err := b.Write(ctx, WriteRequest{Scope: ScopeBranch, Branch: branch, Path: f, Content: doc, Mode: ModeCreate})
		if err != nil && !errors.Is(err, ErrExists) {
			return fmt.Errorf("memorybank: initialising %q of branch %q: %w", f, branch, err)
		}
	}
	return nil
}
