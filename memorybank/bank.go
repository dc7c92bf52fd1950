package memorybank

import (
	"crypto/rand"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank/internal/codec"
	"github.com/mnemobank/mnemobank/screen"
)

// Scope selects a memory bank: the branch bank of one git branch, the global
// bank shared by all branches, or (for searches only) several.
type Scope string

const (
	ScopeBranch Scope = "branch"
	ScopeGlobal Scope = "global"
	ScopeAll    Scope = "all" // searches only: the global bank and the given branch (Search: else every branch)
)

// Mode says whether a Write may create, overwrite, or both.
type Mode string

const (
	ModeUpsert Mode = "upsert" // create or update (the default, also for "")
	ModeCreate Mode = "create" // create only; an existing document is ErrExists
	ModeUpdate Mode = "update" // update only; a missing document is ErrNotFound
)

// Language is the language of rules and of the templates a new branch bank
// is initialised with.
type Language string

const (
	English  Language = "en"
	Japanese Language = "ja"
	Chinese  Language = "zh"
)

// Languages returns the supported languages (a new slice on every call).
func Languages() []Language { return []Language{English, Japanese, Chinese} }

// Store key prefixes of the two scopes. A branch bank lives under
// BranchPrefix + <branch-dir> + "/".
const (
	GlobalPrefix = "global-memory-bank/"
	BranchPrefix = "branch-memory-bank/"
)

// Default limits.
const (
	DefaultMaxDocumentBytes = 1 << 20
	// MaxNestingDepth is the deepest any value of a document (its content,
	// a metadata field, a front matter value) may nest arrays and objects.
	// A write over it is a *LimitError ("nesting depth"), judged on the
	// bytes as sent before they are decoded: the stored form indents each
	// line by its depth, so 18 KB nested 9,000 deep would expand to about
	// 162 MB before the size limit could see it.
	MaxNestingDepth = codec.MaxDepth
	// MaxLockNameBytes bounds the name given to KeyLocker.LockKey.
	MaxLockNameBytes = 1024
	// DefaultWatchInterval is how often Watch reads the change count of a
	// store that does not say when it changed.
	DefaultWatchInterval = 200 * time.Millisecond
	DefaultMaxPatchOps   = 256
	DefaultMaxTags       = 64
	DefaultMaxRetries    = 32
	// IndexMaxAge bounds how stale List, ReadContext, searches and the
	// check of a new path against its spellings may be about changes no
	// Store counted (a person editing the folder, git pull): what the Bank
	// derived from the store is listed again once it is this old, by the
	// Bank's Clock. Writes through any Bank are seen at once: this Bank's
	// update what it derived, and another's change the Store's count
	// (ChangeCounter; a Store without one is listed on every call). Read
	// always reads the store.
	IndexMaxAge = 2 * time.Second
	// DefaultContextTokens is ReadContext's default token budget: room
	// for the core files of both banks and a listing, a small part of a
	// model's context window.
	DefaultContextTokens = 16000
	// Limits of Search: results by default and at most, query length.
	DefaultSearchLimit = 10
	MaxSearchLimit     = 100
	MaxQueryBytes      = 4096
	// MaxActorBytes bounds the Actor of a request, in bytes of UTF-8.
	MaxActorBytes = 256
)

// DefaultBranchCoreFiles returns the core files of a branch bank, created
// from templates when a branch bank is first read with ReadContext (a new
// slice on every call).
func DefaultBranchCoreFiles() []string {
	return []string{"branchContext.json", "activeContext.json", "systemPatterns.json", "progress.json"}
}

// DefaultGlobalCoreFiles returns the core files of the global bank: every
// document under core/ (an entry ending in "/" is a prefix), then the
// documents a global memory bank usually holds, when present (a new slice
// on every call).
func DefaultGlobalCoreFiles() []string {
	return []string{"core/", "architecture.md", "coding-standards.md", "domain-models.md", "glossary.md", "tech-stack.md", "user-guide.md"}
}

// Options configure a Bank. The zero value, and a nil *Options, give the
// defaults. Options are copied by New.
type Options struct {
	// Clock gives lastModified and createdAt. Default time.Now.
	Clock func() time.Time
	// NewID generates metadata.id for documents that have none. Default: a
	// random UUID (version 4).
	NewID func() string
	// Logger receives debug logs (retries, index refreshes). Default: discard.
	Logger *slog.Logger
	// Patcher applies JSON Patches. Default jsonpatch.New(nil).
	Patcher jsonpatch.Patcher
	// Language is ReadContext's default language. Default Japanese.
	Language Language
	// BranchCoreFiles and GlobalCoreFiles replace DefaultBranchCoreFiles and
	// DefaultGlobalCoreFiles when non-nil. A core file name matches a stored
	// document of the same name, or of the same name with the other of the
	// extensions .json/.md (so existing Markdown banks keep their core files).
	BranchCoreFiles []string
	GlobalCoreFiles []string
	// DefaultRules replace the built-in rules per language. A "rules/<lang>.md"
	// document in the global bank takes precedence over both.
	DefaultRules map[Language]string
	// MaxDocumentBytes limits the stored size of a document. Default 1 MiB.
	MaxDocumentBytes int
	// MaxPatchOps limits the operations of one patch. Default 256.
	MaxPatchOps int
	// MaxTags limits the tags of a document. Default 64.
	MaxTags int
	// MaxRetries bounds how often a write without IfVersion is recomputed on
	// the latest version after the store reports a concurrent change by
	// another Bank or process (this Bank's own goroutines queue on a per-key
	// lock instead). Retries wait a jittered pause growing from 1 ms to 50 ms
	// (about 1 s in all at the default). Default 32.
	MaxRetries int
	// History records every write and delete (see Journal);
	// history.New(nil) keeps each document's history in the Store, where
	// package history reads it. Nil: the Bank records no history (deletes
	// still record the version they consumed, so versions never repeat).
	History Journal
	// ContextTokens is ReadContext's default token budget
	// (ReadContextRequest.MaxTokens overrides it). Zero means
	// DefaultContextTokens; negative means unlimited.
	ContextTokens int
	// TokenCounter counts tokens for ReadContext's budget. Default
	// EstimateTokens; a host may pass its model's tokenizer.
	TokenCounter TokenCounter
	// Secrets screens every document a write would store (its content,
	// metadata and extra members, after patches) for credentials before
	// anything is written: it refuses the write (an error wrapping
	// screen.ErrSecret, a *screen.SecretError naming each kind and its
	// line) or redacts them. Nil: no check. Package screen/gitleaks
	// provides the maintained rule set.
	Secrets screen.Screen
	// Flagger, when set, flags text that addresses the agent (memory
	// poisoning) on every write: the flags are stored in the document's
	// metadata (FlagsMember), shown by Read (Document.Flags) and
	// ReadContext (ContextFile.Flags), which can leave flagged documents
	// out (ReadContextRequest.ExcludeFlagged). A flag never refuses a
	// write. Nil: no flags.
	Flagger screen.Flagger
	// ExcludeFlagged makes every ReadContext leave flagged documents out,
	// as ReadContextRequest.ExcludeFlagged does for one call.
	ExcludeFlagged bool
}

// Bank is a memory bank over a Store: branch and global banks of JSON and
// text documents, validated writes with content or JSON Patches, ReadContext
// and tag search. A Bank is safe for concurrent use, and several Banks (in
// one or many processes) may share one Store.
type Bank struct {
	store Store
	// journalStore: what Options.History writes to: store, or its Lazy
	// view (LazyWriter), counting the Bank's own changes.
	journalStore Store
	// ahead: what rides on the next durable write (a delete's tombstone):
	// store, or its Ordered view (OrderedWriter).
	ahead Store
	opts  Options

	locks *keyLocks // serialise this Bank's writers of one key

	mu         sync.Mutex
	branches   map[string]string   // branch dir -> branch name, verified
	catalogs   map[string]*catalog // bank prefix -> what is derived from the bank
	branchList branchListing       // the branch banks, for searches of every branch
	own        atomic.Uint64       // this Bank's successful Puts and Deletes: the freshness rule's own count
}

// New returns a Bank over store. opts may be nil. A nil store gives a Bank
// whose every method returns ErrNotInitialised.
func New(store Store, opts *Options) *Bank {
	b := &Bank{store: store, ahead: store, locks: newKeyLocks(), branches: map[string]string{}, catalogs: map[string]*catalog{}}
	b.journalStore = ownStore{Store: store, own: &b.own}
	if lw, ok := store.(LazyWriter); ok {
		b.journalStore = ownStore{Store: lw.Lazy(), own: &b.own}
	}
	if ow, ok := store.(OrderedWriter); ok {
		b.ahead = ow.Ordered()
	}
	if opts != nil {
		b.opts = *opts
	}
	o := &b.opts
	if o.Clock == nil {
		o.Clock = time.Now
	}
	if o.NewID == nil {
		o.NewID = newUUID
	}
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if o.Patcher == nil {
		o.Patcher = jsonpatch.New(nil)
	}
	if o.Language == "" {
		o.Language = Japanese
	}
	if o.BranchCoreFiles == nil {
		o.BranchCoreFiles = DefaultBranchCoreFiles()
	}
	if o.GlobalCoreFiles == nil {
		o.GlobalCoreFiles = DefaultGlobalCoreFiles()
	}
	o.BranchCoreFiles = append([]string(nil), o.BranchCoreFiles...)
	o.GlobalCoreFiles = append([]string(nil), o.GlobalCoreFiles...)
	if o.DefaultRules != nil {
		rules := make(map[Language]string, len(o.DefaultRules))
		for k, v := range o.DefaultRules {
			rules[k] = v
		}
		o.DefaultRules = rules
	}
	if o.MaxDocumentBytes <= 0 {
		o.MaxDocumentBytes = DefaultMaxDocumentBytes
	}
	if o.MaxPatchOps <= 0 {
		o.MaxPatchOps = DefaultMaxPatchOps
	}
	if o.MaxTags <= 0 {
		o.MaxTags = DefaultMaxTags
	}
	if o.MaxRetries <= 0 {
		o.MaxRetries = DefaultMaxRetries
	}
	if o.ContextTokens == 0 {
		o.ContextTokens = DefaultContextTokens
	}
	if o.TokenCounter == nil {
		o.TokenCounter = TokenCounterFunc(EstimateTokens)
	}
	return b
}

// ready returns ErrNotInitialised for a Bank without a Store: every method
// calls it first, so misuse is an error, never a panic.
func (b *Bank) ready() error {
	if b == nil || b.store == nil || b.locks == nil {
		return ErrNotInitialised
	}
	return nil
}

// Options returns a copy of the Bank's options, defaults filled in (for
// example to tell an agent the limits or the default language); a Bank
// that was never initialised has the zero Options.
func (b *Bank) Options() Options {
	if b == nil {
		return Options{}
	}
	o := b.opts
	o.BranchCoreFiles = append([]string(nil), o.BranchCoreFiles...)
	o.GlobalCoreFiles = append([]string(nil), o.GlobalCoreFiles...)
	if o.DefaultRules != nil {
		rules := make(map[Language]string, len(o.DefaultRules))
		for k, v := range o.DefaultRules {
			rules[k] = v
		}
		o.DefaultRules = rules
	}
	return o
}

// Store returns the Store the Bank runs on.
func (b *Bank) Store() Store {
	if b == nil {
		return nil
	}
	return b.store
}

func (b *Bank) now() time.Time { return b.opts.Clock().UTC() }

func newUUID() string {
	var u [16]byte
	_, _ = rand.Read(u[:]) // crypto/rand.Read never fails
	u[6] = u[6]&0x0f | 0x40
	u[8] = u[8]&0x3f | 0x80
	return fmt.Sprintf("%x-%x-%x-%x-%x", u[0:4], u[4:6], u[6:8], u[8:10], u[10:16])
}

// Bool returns a pointer to v, for ReadContextRequest's optional flags.
func Bool(v bool) *bool { return &v }

func validLanguage(l Language) bool {
	for _, x := range Languages() {
		if l == x {
			return true
		}
	}
	return false
}
