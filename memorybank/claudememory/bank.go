package claudememory

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"golang.org/x/text/cases"
	"golang.org/x/text/unicode/norm"

	"github.com/mnemobank/mnemobank/memorybank"
)

// BankPrefix is where BankFiles keeps the memory tool's files: in the
// global bank, /memories/notes.md is the text document "memories/notes.md"
// (store key "global-memory-bank/memories/notes.md"), readable by
// read_context, searchable and listed like any other document.
const BankPrefix = "memories/"

// BankFiles returns Files over the global bank of b. A file is a text
// document whose text is the file's text (the bank's metadata block is
// not part of it), and a version is the document's metadata.version.
// Paths ending in ".json", in any letter case (".JSON", ".Json"), are
// JSON documents of the bank, not text: they are not listed, and viewing,
// writing or deleting one is ErrInvalidPath. A name that the bank refuses
// because it collides with another (differing only by letter case or
// Unicode normalisation, or a file where a directory would be) is
// ErrExists or ErrNotFile, naming the other file by its /memories path.
//
// The bank's API offers compare-and-swap on metadata.version only. A file
// deleted and created again keeps counting its versions from where the
// deleted one stopped, so a version read before the delete never matches
// it; but an edit made outside any Bank (a person editing the file) does
// not change metadata.version. Writes through Banks, in any number of
// processes, are all seen.
func BankFiles(b *memorybank.Bank) Files { return bankFiles{b} }

type bankFiles struct{ b *memorybank.Bank }

// isJSON is the bank's rule for JSON documents: the path ends in ".json"
// in any letter case.
func isJSON(p string) bool { return strings.HasSuffix(strings.ToLower(p), ".json") }

func (f bankFiles) check(p string) error {
	if isJSON(p) {
		return &ToolError{Path: display(p), Err: ErrInvalidPath, Text: fmt.Sprintf(
			"The path %s is not allowed: the memory bank keeps .json files as JSON documents; name memory files .md or .txt.", display(p))}
	}
	return nil
}

func (f bankFiles) ReadText(ctx context.Context, p string) (string, string, error) {
	if err := f.check(p); err != nil {
		return "", "", err
	}
	d, err := f.b.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: BankPrefix + p})
	if err != nil {
		return "", "", err
	}
	return d.Text(), strconv.FormatInt(d.Version, 10), nil
}

func (f bankFiles) WriteText(ctx context.Context, p, text string, cond memorybank.Condition) (string, error) {
	if err := f.check(p); err != nil {
		return "", err
	}
	// Content as an envelope rather than a bare string, so a text that
	// starts with its own "---" block is kept as text, not read as the
	// bank's metadata. The tags a "tags: #a #b" line near the top already
	// says are given as the document's tags, so the bank has no reason to
	// rewrite that line: the text is stored byte for byte.
	meta := map[string]any{}
	if tags := lineTags(text); tags != nil {
		meta["tags"] = tags
	}
	content, err := json.Marshal(map[string]any{"metadata": meta, "content": text})
	if err != nil {
		return "", err
	}
	req := memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: BankPrefix + p, Content: content}
	if cond.IfAbsent {
		req.Mode = memorybank.ModeCreate
	} else {
		v, err := strconv.ParseInt(cond.IfVersion, 10, 64)
		if err != nil || v <= 0 {
			return "", fmt.Errorf("%w: version %q of %s is not one this bank gave", memorybank.ErrConflict, cond.IfVersion, display(p))
		}
		req.Mode, req.IfVersion = memorybank.ModeUpdate, v
	}
	res, err := f.b.Write(ctx, req)
	if errors.Is(err, memorybank.ErrExists) {
		return "", fmt.Errorf("%w: %w", memorybank.ErrConflict, err)
	}
	if errors.Is(err, memorybank.ErrPathConflict) {
		return "", f.collision(ctx, p, err)
	}
	if err != nil {
		return "", err
	}
	return strconv.FormatInt(res.Version, 10), nil
}

func (f bankFiles) Delete(ctx context.Context, p string, cond memorybank.Condition) error {
	if err := f.check(p); err != nil {
		return err
	}
	req := memorybank.DeleteRequest{Scope: memorybank.ScopeGlobal, Path: BankPrefix + p}
	if cond.IfVersion != "" {
		v, err := strconv.ParseInt(cond.IfVersion, 10, 64)
		if err != nil || v <= 0 {
			return fmt.Errorf("%w: version %q of %s is not one this bank gave", memorybank.ErrConflict, cond.IfVersion, display(p))
		}
		req.IfVersion = v
	}
	err := f.b.Delete(ctx, req)
	var ce *memorybank.ConflictError
	if errors.As(err, &ce) && ce.CurrentVersion == 0 {
		return fmt.Errorf("%w: %s was deleted meanwhile", memorybank.ErrNotFound, display(p))
	}
	return err
}

func (f bankFiles) List(ctx context.Context, prefix string) ([]Entry, error) {
	docs, err := f.b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal, Prefix: BankPrefix + prefix})
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(docs))
	for _, d := range docs {
		p := strings.TrimPrefix(d.Path, BankPrefix)
		if isJSON(p) {
			continue // a JSON document of the bank, not a memory tool file
		}
		out = append(out, Entry{Path: p, Size: int64(d.Size), Version: strconv.FormatInt(d.Version, 10)})
	}
	return out, nil
}

// lineTags returns the tags of a "tags: #a #b" line among the first eleven
// lines of text, as the bank reads them, or nil when there is none.
func lineTags(text string) []string {
	for i, line := range strings.SplitN(text, "\n", 12) {
		if i == 11 {
			break
		}
		v, ok := strings.CutPrefix(strings.TrimSpace(line), "tags:")
		if !ok || !strings.Contains(v, "#") {
			continue
		}
		tags := []string{}
		for f := range strings.FieldsSeq(v) {
			if tag := strings.TrimRight(strings.TrimLeft(f, "#"), ","); tag != "" {
				tags = append(tags, tag)
			}
		}
		return tags
	}
	return nil
}

// collision explains, with /memories paths and the tool's words, a write of
// p the bank refused with err (ErrPathConflict): the file or directory
// whose name p collides with once letter case and Unicode normalisation
// are set aside, as on macOS and Windows.
func (f bankFiles) collision(ctx context.Context, p string, err error) error {
	docs, lerr := f.b.List(ctx, memorybank.ListRequest{Scope: memorybank.ScopeGlobal, Prefix: BankPrefix})
	if lerr == nil {
		fp := fold(p)
		n := strings.Count(p, "/") + 1
		for _, d := range docs {
			q := strings.TrimPrefix(d.Path, BankPrefix)
			if q == p {
				continue
			}
			switch fq := fold(q); {
			case fq == fp:
				return &ToolError{Path: display(p), Err: ErrExists, Text: fmt.Sprintf(
					"File %s already exists as %s: the names differ only by letter case or Unicode normalisation, and would be one file on macOS and Windows. Edit %s, or choose another name.",
					display(p), display(q), display(q))}
			case strings.HasPrefix(fp, fq+"/"):
				return &ToolError{Path: display(p), Err: ErrNotFile, Text: fmt.Sprintf(
					"Cannot create %s: %s is a file, not a directory.", display(p), display(q))}
			case strings.HasPrefix(fq, fp+"/"):
				dir := strings.Join(strings.SplitN(q, "/", n+1)[:n], "/")
				return &ToolError{Path: display(p), Err: ErrExists, Text: fmt.Sprintf(
					"Cannot create %s: %s is a directory (the names differ only by letter case or Unicode normalisation, one name on macOS and Windows). Choose another name.",
					display(p), display(dir))}
			}
		}
	}
	return &ToolError{Path: display(p), Err: ErrExists, Text: fmt.Sprintf(
		"Cannot create %s: its name collides with another document of the memory bank that differs only by letter case or Unicode normalisation. Choose another name.", display(p))}
}

// fold is the bank's collision form of a name: Unicode case folding and
// NFC, as a case-insensitive, normalising file system compares names.
func fold(s string) string {
	return norm.NFC.String(cases.Fold().String(norm.NFC.String(s)))
}
