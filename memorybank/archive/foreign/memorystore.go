package foreign

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"strings"
	"unicode/utf8"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

// MaxMemoryStorePathBytes is the longest path a memory store accepts.
const MaxMemoryStorePathBytes = 1024

// StoreMemory is one memory of an Anthropic memory store listing, in the
// fields of the API's memory object that an import reads and an export
// writes.
type StoreMemory struct {
	Type             string  `json:"type"`
	ID               string  `json:"id,omitempty"`
	Path             string  `json:"path"`
	Content          *string `json:"content"`
	ContentSizeBytes *int64  `json:"content_size_bytes,omitempty"`
	ContentSHA256    string  `json:"content_sha256,omitempty"`
}

// StoreListing is a List memories response: the memories in "data".
type StoreListing struct {
	Data    []StoreMemory `json:"data"`
	HasMore bool          `json:"has_more"`
}

// ReadMemoryStore reads the full listing of an Anthropic memory store: the
// JSON of a List memories response fetched with view=full ({"data":[...]})
// or a JSON array of memory objects. Each memory (type "memory"; the
// "memory_prefix" rollups of a listing with depth are skipped) becomes a
// Claude memory tool file at MemoryStorePrefix + its path without the
// leading "/", its content byte for byte. A memory without content (a
// view=basic listing), whose content does not match content_sha256 or
// content_size_bytes, or whose path is not one the memory tool accepts is
// a *SourceError naming it. A listing with has_more set is ErrFormat: it
// is one page, not the whole store. The whole input is at most
// MaxTotalBytes.
func ReadMemoryStore(r io.Reader, source string, lim *Limits) ([]Doc, error) {
	l := lim.withDefaults()
	data, err := io.ReadAll(io.LimitReader(r, l.MaxTotalBytes+1))
	if err != nil {
		return nil, &SourceError{Source: source, Reason: err.Error(), Err: ErrFormat}
	}
	if int64(len(data)) > l.MaxTotalBytes {
		return nil, &SourceError{Source: source, Reason: fmt.Sprintf("more than %d bytes", l.MaxTotalBytes), Err: ErrLimit}
	}
	var mems []StoreMemory
	data = bytes.TrimSpace(data)
	if len(data) > 0 && data[0] == '[' {
		err = json.Unmarshal(data, &mems)
	} else {
		var page StoreListing
		err = json.Unmarshal(data, &page)
		if err == nil && page.HasMore {
			return nil, &SourceError{Source: source, Reason: `"has_more" is true: this is one page of the listing; fetch every page (limit, page) and give all their memories as one array`, Err: ErrFormat}
		}
		mems = page.Data
	}
	if err != nil {
		return nil, &SourceError{Source: source, Reason: `not a memory store listing ({"data":[...]} or [...] of memory objects): ` + err.Error(), Err: ErrFormat}
	}
	if len(mems) > l.MaxFiles {
		return nil, &SourceError{Source: source, Reason: fmt.Sprintf("%d memories, more than %d", len(mems), l.MaxFiles), Err: ErrLimit}
	}
	docs := make([]Doc, 0, len(mems))
	seen := map[string]bool{}
	for i, m := range mems {
		entry := m.Path
		if entry == "" {
			entry = fmt.Sprintf("data[%d]", i)
		}
		bad := func(err error, format string, a ...any) error {
			return &SourceError{Source: source, Entry: entry, Reason: fmt.Sprintf(format, a...), Err: err}
		}
		switch m.Type {
		case "memory", "":
		case "memory_prefix":
			continue
		default:
			return nil, bad(ErrFormat, `"type" is %q, not "memory"`, m.Type)
		}
		if m.Content == nil {
			return nil, bad(ErrFormat, "no content: list the store with view=full")
		}
		c := *m.Content
		if int64(len(c)) > l.MaxFileBytes {
			return nil, bad(ErrLimit, "%d bytes of content, over the limit of %d", len(c), l.MaxFileBytes)
		}
		if m.ContentSizeBytes != nil && *m.ContentSizeBytes != int64(len(c)) {
			return nil, bad(ErrFormat, "content_size_bytes is %d but the content holds %d bytes", *m.ContentSizeBytes, len(c))
		}
		if m.ContentSHA256 != "" {
			if sum := sha256.Sum256([]byte(c)); !strings.EqualFold(m.ContentSHA256, hex.EncodeToString(sum[:])) {
				return nil, bad(ErrFormat, "content_sha256 is %s but the content's is %s", m.ContentSHA256, hex.EncodeToString(sum[:]))
			}
		}
		rel, err := memoryToolPath(m.Path)
		if err != nil {
			return nil, bad(ErrUnsafePath, "%v", err)
		}
		if seen[rel] {
			return nil, bad(ErrFormat, "the listing holds this path twice")
		}
		seen[rel] = true
		docs = append(docs, Doc{Path: MemoryStorePrefix + rel, Source: m.Path, Text: c, MemoryFile: true})
	}
	return docs, nil
}

// memoryToolPath checks a memory store path ("/projects/foo/notes.md")
// against the rules of the memory tool's paths and returns it relative to
// /memories ("projects/foo/notes.md").
func memoryToolPath(p string) (string, error) {
	if len(p) > MaxMemoryStorePathBytes {
		return "", fmt.Errorf("a path of %d bytes, over %d", len(p), MaxMemoryStorePathBytes)
	}
	if !utf8.ValidString(p) {
		return "", fmt.Errorf("the path is not UTF-8")
	}
	rel, ok := strings.CutPrefix(p, "/")
	if !ok {
		return "", fmt.Errorf(`the path does not start with "/"`)
	}
	if err := memorybank.ValidateKey(rel); err != nil {
		return "", err
	}
	for seg := range strings.SplitSeq(rel, "/") {
		if strings.HasPrefix(seg, ".") {
			return "", fmt.Errorf("segment %q starts with a dot, which the memory tool refuses", seg)
		}
	}
	if strings.HasSuffix(strings.ToLower(rel), ".json") {
		return "", fmt.Errorf("the bank keeps .json paths as JSON documents, not memory tool files; rename it .md or .txt")
	}
	return rel, nil
}

// ExportMemoryStore writes the Claude memory tool's files of bank (its
// global "memories/" folder, as claudememory.BankFiles lists them) as a
// memory store listing {"data":[...]}: per file its path ("/" + its path
// under /memories), content, content_size_bytes and content_sha256, the
// shape ReadMemoryStore reads back. It returns the number of memories.
func ExportMemoryStore(ctx context.Context, bank *memorybank.Bank, w io.Writer) (int, error) {
	files := claudememory.BankFiles(bank)
	entries, err := files.List(ctx, "")
	if err != nil {
		return 0, err
	}
	out := StoreListing{Data: make([]StoreMemory, 0, len(entries))}
	for _, e := range entries {
		text, _, err := files.ReadText(ctx, e.Path)
		if err != nil {
			return 0, fmt.Errorf("foreign: export %s: %w", e.Path, err)
		}
		sum := sha256.Sum256([]byte(text))
		n := int64(len(text))
		out.Data = append(out.Data, StoreMemory{Type: "memory", Path: "/" + e.Path, Content: &text,
			ContentSizeBytes: &n, ContentSHA256: hex.EncodeToString(sum[:])})
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return len(out.Data), enc.Encode(out)
}
