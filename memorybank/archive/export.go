package archive

import (
	"archive/tar"
	"bufio"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/mnemobank/mnemobank/memories"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/internal/histio"
)

// Memories are the learned memories that move with a bank: the memories
// file and its trash. Either may be nil (not exported, not imported).
type Memories struct {
	File  memories.Store
	Trash memories.Store
}

// ExportOptions configure Export. A nil *ExportOptions means the zero value.
type ExportOptions struct {
	// Source describes what the archive was made from, for the manifest
	// ("directory docs", "postgres namespace team"). Give no absolute
	// path: an archive is shared, and need not say where a person keeps
	// files.
	Source string
	// Clock gives the manifest's createdAt. Default time.Now.
	Clock func() time.Time
	// Spool holds the manifest while the entries stream (it is written
	// last). nil: memory, about 150 bytes an entry; a host exporting
	// millions of entries passes a temporary file.
	Spool Spool
	// Progress, when set, is called after every entry with the entries
	// written so far.
	Progress func(entries int)
}

var epoch = time.Unix(0, 0).UTC()

// Export writes an archive of everything bank's Store holds and of mem to
// w, streaming: one document at a time is in memory, and the manifest is
// kept in opts.Spool until it is written last. It returns the
// manifest. Keys that are written while Export lists may or may not be in
// the archive (as with Store.List); a key deleted meanwhile is left out.
func Export(ctx context.Context, bank *memorybank.Bank, mem Memories, w io.Writer, opts *ExportOptions) (*Manifest, error) {
	var o ExportOptions
	if opts != nil {
		o = *opts
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	store := bank.Store()
	if store == nil {
		return nil, memorybank.ErrNotInitialised
	}
	spool := &countingWriter{w: o.Spool}
	if spool.w == nil {
		spool.w = &memSpool{}
	}
	ew := &exportWriter{tw: tar.NewWriter(w), lines: bufio.NewWriter(spool), progress: o.Progress}
	m := &Manifest{Format: Format, FormatVersion: FormatVersion, Source: o.Source}

	if err := ew.add(formatName, []byte(`{"format":"`+Format+`","formatVersion":1}`+"\n")); err != nil {
		return nil, err
	}
	for obj, err := range store.List(ctx, "") {
		if err != nil {
			return nil, fmt.Errorf("archive: export: listing the store: %w", err)
		}
		kind := classify(obj.Key)
		if kind == kindSkip {
			continue
		}
		full, err := store.Get(ctx, obj.Key)
		if errors.Is(err, memorybank.ErrNotFound) {
			continue // deleted since it was listed
		}
		if err != nil {
			return nil, fmt.Errorf("archive: export: reading %q: %w", obj.Key, err)
		}
		if err := ew.add(storeDir+obj.Key, full.Data); err != nil {
			return nil, err
		}
		m.Counts.add(kind)
	}
	for _, f := range []struct {
		name  string
		store memories.Store
		n     *int
	}{{MemoriesName, mem.File, &m.Counts.Memories}, {TrashName, mem.Trash, &m.Counts.Trash}} {
		if f.store == nil {
			continue
		}
		data, _, err := f.store.Load(ctx)
		if err != nil {
			return nil, fmt.Errorf("archive: export: reading %s: %w", f.name, err)
		}
		if data == nil {
			continue
		}
		if err := ew.add(f.name, data); err != nil {
			return nil, err
		}
		*f.n = memories.Parse(data).Len()
	}
	m.Entries = ew.n
	m.CreatedAt = o.Clock().UTC().Truncate(time.Second)
	if err := ew.lines.Flush(); err != nil {
		return nil, fmt.Errorf("archive: export: writing the manifest: %w", err)
	}
	first, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	first = append(first, '\n')
	size := spool.n
	if err := ew.tw.WriteHeader(header(manifestName, int64(len(first))+size, "")); err != nil {
		return nil, fmt.Errorf("archive: export: writing the manifest: %w", err)
	}
	if _, err := ew.tw.Write(first); err != nil {
		return nil, fmt.Errorf("archive: export: writing the manifest: %w", err)
	}
	if _, err := io.Copy(ew.tw, io.NewSectionReader(spool.w, 0, size)); err != nil {
		return nil, fmt.Errorf("archive: export: writing the manifest: %w", err)
	}
	if err := ew.tw.Close(); err != nil {
		return nil, fmt.Errorf("archive: export: %w", err)
	}
	return m, nil
}

type exportWriter struct {
	tw       *tar.Writer
	lines    *bufio.Writer
	n        int
	progress func(int)
}

func (ew *exportWriter) add(name string, data []byte) error {
	sum := sha256.Sum256(data)
	hexSum := hex.EncodeToString(sum[:])
	if err := ew.tw.WriteHeader(header(name, int64(len(data)), hexSum)); err != nil {
		return fmt.Errorf("archive: export: entry %q: %w", name, err)
	}
	if _, err := ew.tw.Write(data); err != nil {
		return fmt.Errorf("archive: export: entry %q: %w", name, err)
	}
	line, err := json.Marshal(ManifestEntry{Name: name, Size: int64(len(data)), SHA256: hexSum})
	if err != nil {
		return err
	}
	ew.lines.Write(line)
	ew.lines.WriteByte('\n')
	ew.n++
	if ew.progress != nil {
		ew.progress(ew.n)
	}
	return nil
}

func header(name string, size int64, sum string) *tar.Header {
	h := &tar.Header{Typeflag: tar.TypeReg, Name: name, Size: size, Mode: 0o644, ModTime: epoch, Format: tar.FormatPAX}
	if sum != "" {
		h.PAXRecords = map[string]string{paxSHA256: sum}
	}
	return h
}

type kind int

const (
	kindSkip kind = iota
	kindDoc
	kindSkill
	kindHistory
	kindOther
)

func (c *Counts) add(k kind) {
	switch k {
	case kindDoc:
		c.Documents++
	case kindSkill:
		c.Documents++
		c.Skills++
	case kindHistory:
		c.History++
	case kindOther:
		c.OtherKeys++
	}
}

// classify says what a store key holds.
func classify(key string) kind {
	if strings.HasPrefix(key, historyDir) {
		return kindHistory
	}
	prefix, p, ok := splitBankKey(key)
	if !ok {
		return kindOther
	}
	base := p[strings.LastIndexByte(p, '/')+1:]
	if p == memorybank.TagIndexName || p == memorybank.TextIndexName {
		return kindSkip
	}
	if strings.HasPrefix(p, ".") || strings.Contains(p, "/.") {
		return kindOther
	}
	if prefix == memorybank.GlobalPrefix && strings.HasPrefix(p, "skills/") && !strings.Contains(p[len("skills/"):], "/") && strings.HasSuffix(base, ".json") {
		return kindSkill
	}
	return kindDoc
}

// splitBankKey splits a document key into its bank's prefix and the path
// in that bank.
func splitBankKey(key string) (prefix, p string, ok bool) {
	if rest, found := strings.CutPrefix(key, memorybank.GlobalPrefix); found {
		return memorybank.GlobalPrefix, rest, rest != ""
	}
	if rest, found := strings.CutPrefix(key, memorybank.BranchPrefix); found {
		dir, p, found := strings.Cut(rest, "/")
		if !found || dir == "" || p == "" {
			return "", "", false
		}
		return memorybank.BranchPrefix + dir + "/", p, true
	}
	return "", "", false
}

// historyDirOf is the directory of the history of the document at key,
// from the bank's own key layout.
func historyDirOf(key string) (string, bool) {
	prefix, p, ok := splitBankKey(key)
	if !ok {
		return "", false
	}
	return histio.Dir(prefix, p), true
}

// dirOfHistoryKey is the directory of a history key.
func dirOfHistoryKey(key string) string { return key[:strings.LastIndexByte(key, '/')+1] }
