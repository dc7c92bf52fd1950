package memories

import (
	"cmp"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"github.com/mnemobank/mnemobank/screen"
	"io"
	"log/slog"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/mnemobank/mnemobank/internal/tokens"
)

// MemoryManager is what an agent loop uses: remember, find, forget, and
// render memories for the prompt. Manager implements it over a Store.
type MemoryManager interface {
	// Add stores a new memory and returns it with its ID. Errors: ErrDisabled,
	// ErrInvalid (empty content, bad tag), a *LimitError (ErrLimit: content
	// over MaxContentBytes, more than MaxTags tags, a tag over MaxTagBytes),
	// ErrTooLarge, or the Store's.
	Add(ctx context.Context, content string, tags ...string) (Memory, error)
	// Search returns the memories matching query, best first (see Match):
	// those holding every query word as a substring first, then those
	// sharing any term with it; a query over MaxQueryBytes is a
	// *LimitError. Manager.Find adds a limit, scores and snippets.
	Search(ctx context.Context, query string) ([]Memory, error)
	// List returns every memory in file order.
	List(ctx context.Context) ([]Memory, error)
	// Get returns the memory with the given id, or ErrNotFound.
	Get(ctx context.Context, id string) (Memory, error)
	// Delete removes the memory with the given id; ErrNotFound (and nothing
	// changes) if there is none.
	Delete(ctx context.Context, id string) error
	// InjectionContent returns the text to put in front of a prompt: every
	// memory with inject "auto", "" otherwise (see Render).
	InjectionContent(ctx context.Context) (string, error)
}

// DefaultWarnBytes is the 10 MB size reference tools warn at above which Add logs a warning.
const DefaultWarnBytes = 10 * 1024 * 1024

// Options configure a Manager. The zero value (or nil) means defaults.
type Options struct {
	// Config is the user's memories setting; nil means DefaultConfig().
	Config *Config
	// Logger receives the size warning and an info line per write; nil
	// discards.
	Logger *slog.Logger
	// Now is the clock for ids and dates; nil means time.Now.
	Now func() time.Time
	// Location is the time zone of the "- Date:" line; nil means time.Local.
	Location *time.Location
	// Rand supplies the random part of new ids; nil means crypto/rand.
	Rand io.Reader
	// InjectBudget caps InjectionContent at this many characters (runes);
	// 0 means no cap.
	InjectBudget int
	// WarnBytes is the file size above which Add logs a warning; 0 means
	// DefaultWarnBytes, negative disables the warning.
	WarnBytes int64
	// MaxBytes, when positive, is a hard limit: an Add that would take the
	// file past it fails with ErrTooLarge and writes nothing.
	MaxBytes int64
	// Retries bounds the Load + Save attempts of a write that keeps losing
	// compare-and-swap races to other writers; 0 means 100.
	Retries int
	// Trash, when set, keeps the memories Delete removes, so Restore can
	// put them back (see Manager.Restore); nil: deletes cannot be undone.
	Trash Store
	// TrashEntries bounds the trash; 0 means DefaultTrashEntries.
	TrashEntries int
	// Usage, when set, is where the Manager records how often and when
	// each memory was returned by a search or an injection (see Usage);
	// nil: use is not recorded.
	Usage Store
	// InjectTokens caps InjectionContent and InjectionFor at this many
	// tokens, counted by Tokens; 0 means no token cap. With both caps set,
	// both hold.
	InjectTokens int
	// Tokens counts the tokens of a text for InjectTokens; nil means an
	// estimate of the o200k_base tokenizer, within 15% on English,
	// Japanese, Chinese, code and JSON. memorybank.EstimateTokens and any
	// other memorybank.TokenCounter fit.
	Tokens interface{ CountTokens(text string) int }
	// Secrets screens the content and tags of every memory Add would store
	// for credentials: it refuses (an error wrapping screen.ErrSecret) or
	// redacts. Nil: no check.
	Secrets screen.Screen
	// Flagger flags memories whose text addresses the agent: Add stores
	// the tag FlaggedTag and one FlagTagPrefix+kind tag per kind. Nil: no
	// flags.
	Flagger screen.Flagger
	// ExcludeFlagged leaves memories tagged FlaggedTag out of
	// InjectionContent and InjectionFor (Search and List still show them).
	ExcludeFlagged bool
}

// Manager is the MemoryManager over a Store. It holds no state of the file
// between calls but the search index of the version it last searched
// (checked against the file's version on every search): every call loads
// the file, or its version, so several Managers (and processes) may share
// one Store. It is safe for concurrent use.
type Manager struct {
	store  Store
	cfg    Config
	log    *slog.Logger
	now    func() time.Time
	loc    *time.Location
	rand   io.Reader
	budget int
	warn   int64
	max    int64
	tries  int

	trash    Store
	trashMax int

	usage    Store
	usageMu  sync.Mutex // guards usageNow
	usageNow usageState

	tokens      func(string) int
	tokenBudget int

	secrets        screen.Screen
	flagger        screen.Flagger
	excludeFlagged bool

	mu   sync.RWMutex // guards ix, and its contents (see extendIndex), and dups
	ix   *index       // the last file version searched (see indexed)
	dups *parsedDups  // duplicates of a later version, found without the index
}

var _ MemoryManager = (*Manager)(nil)

// New returns a Manager over store (nil means a new MemStore). It fails only
// if opts.Config is invalid.
func New(store Store, opts *Options) (*Manager, error) {
	var o Options
	if opts != nil {
		o = *opts
	}
	m := &Manager{store: store, cfg: DefaultConfig(), log: o.Logger, now: o.Now, loc: o.Location,
		rand: o.Rand, budget: o.InjectBudget, warn: o.WarnBytes, max: o.MaxBytes, tries: o.Retries,
		trash: o.Trash, trashMax: o.TrashEntries, usage: o.Usage, tokens: tokens.Estimate, tokenBudget: o.InjectTokens,
		secrets: o.Secrets, flagger: o.Flagger, excludeFlagged: o.ExcludeFlagged}
	if o.Tokens != nil {
		m.tokens = o.Tokens.CountTokens
	}
	if m.trashMax <= 0 {
		m.trashMax = DefaultTrashEntries
	}
	if o.Config != nil {
		if err := o.Config.Validate(); err != nil {
			return nil, err
		}
		m.cfg = *o.Config
	}
	if m.store == nil {
		m.store = new(MemStore)
	}
	if m.log == nil {
		m.log = slog.New(slog.DiscardHandler)
	}
	if m.now == nil {
		m.now = time.Now
	}
	if m.loc == nil {
		m.loc = time.Local
	}
	if m.rand == nil {
		m.rand = rand.Reader
	}
	if m.warn == 0 {
		m.warn = DefaultWarnBytes
	}
	if m.tries <= 0 {
		m.tries = 100
	}
	return m, nil
}

// Config returns the Manager's configuration.
func (m *Manager) Config() Config { return m.cfg }

// load reads and parses the file. For the reading operations (list,
// search, get, inject) a file the Store reports as ErrUnreadable reads as
// no memories, with a warning: the agent keeps working without them. Writes
// report it.
func (m *Manager) load(ctx context.Context, op string) (*Document, string, error) {
	data, v, err := m.store.Load(ctx)
	if err != nil && errors.Is(err, ErrUnreadable) && op != "add" && op != "delete" {
		m.log.WarnContext(ctx, "memories: cannot read the memories file; treating it as empty", "op", op, "error", err)
		return Parse(nil), "", nil
	}
	if err != nil {
		return nil, "", &OpError{Op: op, Err: err, Detail: "loading the memories file"}
	}
	return Parse(data), v, nil
}

// indexed returns the folded index of the file for a search or an
// injection, held for reading until done is called (Add may extend the
// index in place; see extendIndex). The file is read (its version comes
// with it), but parsed and folded again only when its version changed
// since the last call; with a Store that is a Versioner, an unchanged file
// is not even read.
func (m *Manager) indexed(ctx context.Context, op string) (ix *index, done func(), err error) {
	if ix, err = m.current(ctx, op); err != nil {
		return nil, nil, err
	}
	m.mu.RLock()
	return ix, m.mu.RUnlock, nil
}

// cached returns the index of the last version searched and that version.
func (m *Manager) cached() (*index, string) {
	m.mu.RLock()
	defer m.mu.RUnlock()
	if m.ix == nil {
		return nil, ""
	}
	return m.ix, m.ix.version
}

func (m *Manager) current(ctx context.Context, op string) (*index, error) {
	ix, data, v, err := m.cachedOrLoad(ctx, op)
	if ix != nil || err != nil {
		return ix, err
	}
	d := Parse(data)
	ix = newIndex(v, d.all())
	ix.ralph = d.RalphDialect()
	if v != "" {
		m.mu.Lock()
		m.ix = ix
		if m.dups != nil && m.dups.version == v {
			// The same version parses to the same memories: the
			// duplicates NearDuplicates found hold for this index.
			ix.dupsOf = m.dups.info
		}
		m.dups = nil
		m.mu.Unlock()
	}
	return ix, nil
}

// cachedOrLoad returns the index of the last version searched when the
// file is still at that version; otherwise the file's content and
// version. A file the Store reports as ErrUnreadable reads as no
// memories, with a warning.
func (m *Manager) cachedOrLoad(ctx context.Context, op string) (ix *index, data []byte, v string, err error) {
	if vs, ok := m.store.(Versioner); ok {
		if ix, have := m.cached(); ix != nil {
			if v, err := vs.Version(ctx); err == nil && v != "" && v == have {
				return ix, nil, v, nil // unchanged: not even read
			}
		}
	}
	data, v, err = m.store.Load(ctx)
	if err != nil && errors.Is(err, ErrUnreadable) {
		m.log.WarnContext(ctx, "memories: cannot read the memories file; treating it as empty", "op", op, "error", err)
		return nil, nil, "", nil
	}
	if err != nil {
		return nil, nil, "", &OpError{Op: op, Err: err, Detail: "loading the memories file"}
	}
	if ix, have := m.cached(); ix != nil && v != "" && have == v {
		return ix, nil, v, nil
	}
	return nil, data, v, nil
}

// extendIndex takes the memory Add appended as entry, with id, into ix,
// the index of version base, when the file Add appended to was at version
// base (the Store checked it) and is now at version: the file is then the
// memories of ix followed by entry. Entry is parsed alone, as it parses at
// the end of the file: it starts a line and a heading; its id, new, is
// stated, so it is not a copy of an earlier entry and takes no id an
// earlier entry derives. Anything else, and the index is left to be built
// again.
func (m *Manager) extendIndex(ix *index, base, version string, entry []byte, id string) {
	ms := Parse(append([]byte(Header), entry...)).all()
	if version == "" || len(ms) != 1 || ms[0].ID != id {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.ix != ix || ix.version != base || ix.ralph || ix.added >= maxExtend ||
		slices.ContainsFunc(ix.ms, func(o Memory) bool { return o.ID == id }) {
		return
	}
	ix.extend(version, ms[0])
}

// Add implements MemoryManager. Tags are trimmed; empty and repeated tags
// are dropped. With a Store that implements Appender the entry is appended
// without reading the file.
func (m *Manager) Add(ctx context.Context, content string, tags ...string) (Memory, error) {
	if err := checkAdd(content, tags); err != nil {
		return Memory{}, err
	}
	if !m.cfg.Enabled {
		return Memory{}, &OpError{Op: "add", Err: ErrDisabled, Detail: "Config.Enabled is false; nothing was written"}
	}
	content, tags, err := m.screenAdd(content, tags)
	if err != nil {
		return Memory{}, err
	}
	mem, err := m.newMemory(content, tags)
	if err != nil {
		return Memory{}, err
	}
	entry, err := EncodeEntry(mem)
	if err != nil {
		return Memory{}, &OpError{Op: "add", Err: err}
	}
	a, canAppend := m.store.(Appender)
	if p, ok := m.store.(Peeker); ok && canAppend {
		head, err := p.Peek(ctx, peekBytes)
		if err != nil {
			return Memory{}, &OpError{Op: "add", Err: err, Detail: "reading the start of the memories file"}
		}
		canAppend = !isRalphHead(head)
	}
	if canAppend && m.max > 0 {
		sizer, ok := m.store.(Sizer)
		if canAppend = ok; ok {
			cur, err := sizer.Size(ctx)
			if err != nil {
				return Memory{}, &OpError{Op: "add", Err: err, Detail: "reading the file size"}
			}
			if next := grownSize(cur, entry); next > m.max {
				return Memory{}, m.tooLarge(next)
			}
		}
	}
	var size int64
	appended := false
	if ca, ok := m.store.(CondAppender); ok && canAppend {
		// Append only to the file the index was built from, so the
		// index can take in the new memory (see extendIndex).
		if ix, base := m.cached(); ix != nil {
			var v string
			size, v, err = ca.AppendIf(ctx, []byte(Header), entry, base)
			if err != nil && !errors.Is(err, ErrConflict) {
				return Memory{}, &OpError{Op: "add", ID: mem.ID, Err: err, Detail: "appending to the memories file"}
			}
			if appended = err == nil; appended {
				m.extendIndex(ix, base, v, entry, mem.ID)
			}
		}
	}
	if canAppend && !appended {
		size, _, err = a.Append(ctx, []byte(Header), entry)
		if err != nil {
			return Memory{}, &OpError{Op: "add", ID: mem.ID, Err: err, Detail: "appending to the memories file"}
		}
	} else if !canAppend {
		seed := mem
		size, err = m.rewrite(ctx, "add", mem.ID, func(d *Document) error {
			mem = seed
			if d.RalphDialect() {
				if mem, err = m.ralphMemory(d, seed); err != nil {
					return err
				}
			}
			return d.Append(mem)
		})
		if err != nil {
			return Memory{}, err
		}
	}
	m.checkSize(ctx, size)
	m.log.InfoContext(ctx, "memories: memory added", "id", mem.ID, "title", mem.Title)
	return mem, nil
}

// peekBytes is how much of the file Add reads to tell its format.
const peekBytes = 4096

// ralphMemory gives seed, a new memory, ralph-orchestrator's shape (see
// ralphShape) and an id of ralph's own form, mem-<unix>-<4 hex>, that no
// memory of d has.
func (m *Manager) ralphMemory(d *Document, seed Memory) (Memory, error) {
	mem := ralphShape(seed)
	prefix, rnd, _ := strings.Cut(strings.TrimPrefix(seed.ID, "mem-"), "-")
	mem.ID = "mem-" + prefix + "-" + rnd[:4]
	for range 64 {
		if _, taken := d.Get(mem.ID); !taken {
			return mem, nil
		}
		var b [2]byte
		if _, err := io.ReadFull(m.rand, b[:]); err != nil {
			return Memory{}, err
		}
		mem.ID = "mem-" + prefix + "-" + hex.EncodeToString(b[:])
	}
	return Memory{}, fmt.Errorf("%w: no free id mem-%s-<4 hex> in this second; try again", ErrConflict, prefix)
}

func (m *Manager) newMemory(content string, tags []string) (Memory, error) {
	var rnd [4]byte
	if _, err := io.ReadFull(m.rand, rnd[:]); err != nil {
		return Memory{}, &OpError{Op: "add", Err: err, Detail: "reading random bytes for the id"}
	}
	now := m.now().In(m.loc)
	content = NormalizeContent(content)
	var clean []string // nil without tags, as a memory without tags reads back
	seen := make(map[string]bool, len(tags))
	for _, t := range tags {
		if t = strings.TrimSpace(t); t != "" && !seen[t] {
			seen[t] = true
			clean = append(clean, t)
		}
	}
	return Memory{
		ID:      "mem-" + strconv.FormatInt(now.Unix(), 10) + "-" + hex.EncodeToString(rnd[:]),
		Title:   MakeTitle(content),
		Tags:    clean,
		Date:    now.Format(time.DateOnly),
		Content: content,
	}, nil
}

// grownSize is the file size after appending entry to a file of size cur
// (header and a separating newline counted generously).
func grownSize(cur int64, entry []byte) int64 {
	if cur == 0 {
		return int64(len(Header) + len(entry))
	}
	return cur + 1 + int64(len(entry))
}

func (m *Manager) tooLarge(size int64) error {
	return &OpError{Op: "add", Err: ErrTooLarge, Detail: fmt.Sprintf(
		"the file would be %d bytes, over the limit of %d (Options.MaxBytes); delete old memories first", size, m.max)}
}

func (m *Manager) checkSize(ctx context.Context, size int64) {
	if m.warn > 0 && size > m.warn {
		m.log.WarnContext(ctx, "memories: memories.md is over the size limit; delete old entries",
			"size", size, "limit", m.warn)
	}
}

// rewrite loads the file, applies change, and saves it if it is unchanged
// since the load, retrying on ErrConflict. It returns the new size.
func (m *Manager) rewrite(ctx context.Context, op, id string, change func(*Document) error) (int64, error) {
	return m.rewriteIn(ctx, m.store, op, id, change)
}

// rewriteStore is rewrite on another Store (the trash).
func (m *Manager) rewriteStore(ctx context.Context, s Store, op, id string, change func(*Document) error) error {
	_, err := m.rewriteIn(ctx, s, op, id, change)
	return err
}

func (m *Manager) rewriteIn(ctx context.Context, s Store, op, id string, change func(*Document) error) (int64, error) {
	for range m.tries {
		var d *Document
		var v string
		var err error
		if s == m.store {
			d, v, err = m.load(ctx, op)
		} else {
			var data []byte
			if data, v, err = s.Load(ctx); err != nil {
				err = &OpError{Op: op, ID: id, Err: err, Detail: "reading the trash"}
			}
			d = Parse(data)
		}
		if err != nil {
			return 0, err
		}
		if err := change(d); err != nil {
			if oe := (*OpError)(nil); errors.As(err, &oe) {
				return 0, err
			}
			return 0, &OpError{Op: op, ID: id, Err: err}
		}
		out := Format(d)
		if op == "add" && m.max > 0 && int64(len(out)) > m.max {
			return 0, m.tooLarge(int64(len(out)))
		}
		_, err = s.Save(ctx, out, v)
		if err == nil {
			return int64(len(out)), nil
		}
		if !errors.Is(err, ErrConflict) {
			return 0, &OpError{Op: op, ID: id, Err: err, Detail: "saving the memories file"}
		}
	}
	return 0, &OpError{Op: op, ID: id, Err: ErrConflict, Detail: fmt.Sprintf(
		"the file changed under %d attempts in a row; nothing was written", m.tries)}
}

// Delete implements MemoryManager. The file is rewritten atomically through
// Store.Save (compare-and-swap, retried on conflict); see Document.Delete
// for what else changes.
func (m *Manager) Delete(ctx context.Context, id string) error {
	if err := checkLen("delete", "id", id, MaxIDBytes); err != nil {
		return err
	}
	if !m.cfg.Enabled {
		return &OpError{Op: "delete", ID: id, Err: ErrDisabled, Detail: "Config.Enabled is false; nothing was changed"}
	}
	if m.trash != nil {
		d, _, err := m.load(ctx, "delete")
		if err != nil {
			return err
		}
		mem, ok := d.Get(id)
		if !ok {
			return m.notFound("delete", id, d)
		}
		if err := m.toTrash(ctx, mem); err != nil {
			return err
		}
	}
	size, err := m.rewrite(ctx, "delete", id, func(d *Document) error {
		err := d.Delete(id)
		if errors.Is(err, ErrNotFound) {
			return m.notFound("delete", id, d)
		}
		return err
	})
	if err != nil {
		return err
	}
	m.log.InfoContext(ctx, "memories: memory deleted", "id", id, "size", size)
	return nil
}

func (m *Manager) notFound(op, id string, d *Document) error {
	ms := d.all()
	if len(ms) == 0 {
		return &OpError{Op: op, ID: id, Err: ErrNotFound, Detail: "there are no memories"}
	}
	idx := newestFirst(ms)
	var ids []string
	for _, i := range idx[:min(5, len(idx))] {
		ids = append(ids, ms[i].ID)
	}
	exist := fmt.Sprintf("%d memories exist", len(ms))
	if len(ms) == 1 {
		exist = "1 memory exists"
	}
	return &OpError{Op: op, ID: id, Err: ErrNotFound, Detail: fmt.Sprintf(
		"%s, newest: %s; use List or Search to find an id", exist, strings.Join(ids, ", "))}
}

// Get implements MemoryManager. With memories disabled nothing is found.
func (m *Manager) Get(ctx context.Context, id string) (Memory, error) {
	if err := checkLen("get", "id", id, MaxIDBytes); err != nil {
		return Memory{}, err
	}
	if !m.cfg.Enabled {
		return Memory{}, &OpError{Op: "get", ID: id, Err: ErrNotFound, Detail: "memories are disabled (Config.Enabled is false)"}
	}
	d, _, err := m.load(ctx, "get")
	if err != nil {
		return Memory{}, err
	}
	mem, ok := d.Get(id)
	if !ok {
		return Memory{}, m.notFound("get", id, d)
	}
	return mem, nil
}

// List implements MemoryManager; nil when disabled.
func (m *Manager) List(ctx context.Context) ([]Memory, error) {
	if !m.cfg.Enabled {
		return nil, nil
	}
	d, _, err := m.load(ctx, "list")
	if err != nil {
		return nil, err
	}
	return d.all(), nil // d is not kept: no copy needed
}

// ListPage is one page of the memories in file order, and Total, how many
// there are.
type ListPage struct {
	Memories []Memory `json:"memories"`
	Total    int      `json:"total"`
}

// ListPage returns at most limit memories (0: all) after skipping offset,
// in file order, and how many there are; an empty page when disabled. The
// file is parsed only when it changed since the last search or page, and
// only the page's memories are copied.
func (m *Manager) ListPage(ctx context.Context, offset, limit int) (ListPage, error) {
	if offset < 0 || limit < 0 {
		return ListPage{}, &OpError{Op: "list", Err: ErrInvalid, Detail: fmt.Sprintf("offset %d and limit %d must not be negative", offset, limit)}
	}
	if !m.cfg.Enabled {
		return ListPage{Memories: []Memory{}}, nil
	}
	ix, done, err := m.indexed(ctx, "list")
	if err != nil {
		return ListPage{}, err
	}
	defer done()
	all := ix.ms[min(offset, len(ix.ms)):]
	if limit > 0 && len(all) > limit {
		all = all[:limit]
	}
	page := make([]Memory, len(all))
	for i, mem := range all {
		mem.Tags = slices.Clone(mem.Tags)
		page[i] = mem
	}
	return ListPage{Memories: page, Total: len(ix.ms)}, nil
}

// Search implements MemoryManager, ranking as Match does: every memory
// that matches, best first (any query word may match; see Find for a
// limit, scores and snippets); nil when disabled. The file is parsed and
// folded only when it changed since the last search.
func (m *Manager) Search(ctx context.Context, query string) ([]Memory, error) {
	if err := checkLen("search", "query", query, MaxQueryBytes); err != nil {
		return nil, err
	}
	if !m.cfg.Enabled {
		return nil, nil
	}
	ix, done, err := m.indexed(ctx, "search")
	if err != nil {
		return nil, err
	}
	defer done()
	r, _ := ix.rank(query, 0)
	m.usedScored(ctx, ix, r)
	return ix.memories(r), nil
}

// Find searches the memories as Search does and returns the best
// req.Limit of them with their scores and snippets, and how many match in
// all. A query over MaxQueryBytes or a limit outside [0, MaxSearchLimit]
// is a *LimitError. With memories disabled nothing is found. Its cost
// grows with the matches, not with the limit's complement: a common word
// in a 10 MB file takes a few milliseconds once the file is indexed.
func (m *Manager) Find(ctx context.Context, req SearchRequest) (SearchResult, error) {
	if err := checkLen("search", "query", req.Query, MaxQueryBytes); err != nil {
		return SearchResult{}, err
	}
	if req.Limit < 0 || req.Limit > MaxSearchLimit {
		return SearchResult{}, &LimitError{Op: "search", Field: "limit", Size: req.Limit, Limit: MaxSearchLimit}
	}
	limit := cmp.Or(req.Limit, DefaultSearchLimit)
	if !m.cfg.Enabled {
		return SearchResult{Hits: []Hit{}}, nil
	}
	ix, done, err := m.indexed(ctx, "search")
	if err != nil {
		return SearchResult{}, err
	}
	defer done()
	r, total := ix.rank(req.Query, limit)
	m.usedScored(ctx, ix, r)
	return SearchResult{Hits: ix.hits(r, req.Query), Total: total}, nil
}

// InjectionContent implements MemoryManager: Render of every memory with
// Options.InjectBudget when inject is "auto" and memories are enabled, ""
// otherwise (without reading the file).
func (m *Manager) InjectionContent(ctx context.Context) (string, error) {
	if !m.cfg.Enabled || m.cfg.injectMode() != InjectAuto {
		return "", nil
	}
	return m.InjectionFor(ctx, "")
}

// InjectionFor is InjectionContent chosen for a prompt: the memories most
// relevant to it first (ranked as Search ranks them, with the prompt as
// the query, matching any of its words), then the newest; whole memories
// only, within the character and token caps, followed by a line counting
// those left out. An empty prompt gives InjectionContent's newest-first
// order. Inject uses it.
func (m *Manager) InjectionFor(ctx context.Context, prompt string) (string, error) {
	if !m.cfg.Enabled || m.cfg.injectMode() != InjectAuto {
		return "", nil
	}
	ix, done, err := m.indexed(ctx, "inject")
	if err != nil {
		return "", err
	}
	defer done()
	order, ranked := ix.relevantFirst(prompt)
	if m.excludeFlagged {
		order = slices.DeleteFunc(order, func(i int) bool { return Flagged(ix.ms[i]) })
	}
	order = ix.oneOfEachCluster(order)
	out, take := renderTaken(ix.ms, order, !ranked, m.budget, m.tokenBudget, m.tokens)
	m.used(ctx, ix, order[:take])
	return out, nil
}

// oneOfEachCluster drops from order every memory of a duplicate cluster
// but the first in order (the most relevant, or the newest): injecting
// two memories that say the same thing spends the budget twice on one
// fact.
func (ix *index) oneOfEachCluster(order []int) []int {
	d := ix.dups()
	if len(d.groups) == 0 {
		return order
	}
	taken := make([]bool, len(d.groups))
	out := make([]int, 0, len(order))
	for _, i := range order {
		if k := d.cluster[i]; k >= 0 {
			if taken[k] {
				continue
			}
			taken[k] = true
		}
		out = append(out, i)
	}
	return out
}
