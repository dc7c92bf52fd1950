package memorybank_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/fsstore"
)

func seedText(t *testing.T, b *memorybank.Bank) {
	t.Helper()
	docs := []memorybank.WriteRequest{
		{Scope: memorybank.ScopeGlobal, Path: "auth/token-refresh.md", Tags: []string{"Auth"},
			Text: "# Token refresh\n\nAccess tokens expire after 15 minutes; the client refreshes them with the refresh token before expiry.\n"},
		{Scope: memorybank.ScopeGlobal, Path: "db/migrations.md", Tags: []string{"database"},
			Text: "# Database migrations\n\nMigrations run at startup with goose. Never edit an applied migration; add a new one.\n"},
		{Scope: memorybank.ScopeGlobal, Path: "notes/ja-auth.md", Tags: []string{"認証"},
			Text: "# 認証の方式\n\nログインはＯＡｕｔｈ２で行い、リフレッシュトークンは三十日で失効する。\n"},
		{Scope: memorybank.ScopeGlobal, Path: "notes/zh-cache.md",
			Text: "# 缓存策略\n\n用户资料缓存在 Redis 中，过期时间为十分钟。数据库是唯一的数据来源。\n"},
		{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "decisions.json", Tags: []string{"login"},
			Content: raw(`{"metadata":{"title":"Login decisions","documentType":"decisions"},"content":{"decisions":["Use the PKCE flow for the login page","Keep sessions in cookies"]}}`)},
		{Scope: memorybank.ScopeBranch, Branch: "fix/cache", Path: "notes.md",
			Text: "# Cache bug\n\nThe profile cache is never invalidated after a password change.\n"},
	}
	for _, d := range docs {
		mustWrite(t, b, d)
	}
}

func hitPaths(hits []memorybank.TextHit) []string {
	out := []string{}
	for _, h := range hits {
		out = append(out, h.Path)
	}
	return out
}

func TestSearchFindsByRelevance(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		b := newBank(store)
		seedText(t, b)
		cases := []struct {
			name, query string
			scope       memorybank.Scope
			branch      string
			want        string // the best hit
		}{
			{"english words", "when do tokens expire", "", "", "auth/token-refresh.md"},
			{"title weighs", "migrations", "", "", "db/migrations.md"},
			{"case and width folded", "ＯＡＵＴＨ2", "", "", "notes/ja-auth.md"},
			{"japanese without spaces", "リフレッシュトークンの失効", "", "", "notes/ja-auth.md"},
			{"chinese without spaces", "缓存过期", "", "", "notes/zh-cache.md"},
			{"json values", "PKCE", "", "", "decisions.json"},
			{"camel case in a title", "login decision", memorybank.ScopeBranch, "feature/login", "decisions.json"},
			{"every branch by default", "invalidated password", "", "", "notes.md"},
		}
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: c.query, Scope: c.scope, Branch: c.branch})
				require.NoError(t, err)
				require.NotEmpty(t, hits)
				assert.Equal(t, c.want, hits[0].Path, "hits: %v", hitPaths(hits))
				assert.NotEmpty(t, hits[0].Snippet)
				assert.Greater(t, hits[0].Score, 0.0)
			})
		}
	})
}

func TestSearchResultFields(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	seedText(t, b)
	hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "profile cache invalidated"})
	require.NoError(t, err)
	require.NotEmpty(t, hits)
	h := hits[0]
	assert.Equal(t, memorybank.TextHit{Scope: memorybank.ScopeBranch, Branch: "fix/cache", Path: "notes.md", Title: "Cache bug",
		Score: h.Score, Snippet: "# Cache bug The profile cache is never invalidated after a password change."}, h)
	for i := 1; i < len(hits); i++ {
		assert.GreaterOrEqual(t, hits[i-1].Score, hits[i].Score, "best first")
	}

	// One branch, or the global bank only.
	hits, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "cache", Scope: memorybank.ScopeGlobal})
	require.NoError(t, err)
	assert.Equal(t, []string{"notes/zh-cache.md"}, hitPaths(hits)[:1])
	for _, h := range hits {
		assert.Equal(t, memorybank.ScopeGlobal, h.Scope)
	}
	hits, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "cache", Branch: "feature/login"})
	require.NoError(t, err)
	for _, h := range hits {
		assert.NotEqual(t, "fix/cache", h.Branch, "scope all with a branch covers that branch and the global bank")
	}
	hits, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "the", Limit: 2})
	require.NoError(t, err)
	assert.Len(t, hits, 2)
}

func TestSearchTagsFilterIgnoresCase(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	seedText(t, b)
	hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "token", Tags: []string{"AUTH"}})
	require.NoError(t, err)
	assert.Equal(t, []string{"auth/token-refresh.md"}, hitPaths(hits))
	hits, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "token", Tags: []string{"auth", "database"}})
	require.NoError(t, err)
	assert.Empty(t, hits, "tags must all match")

	tagHits, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"auth"}})
	require.NoError(t, err)
	require.Len(t, tagHits, 1)
	assert.Equal(t, []string{"Auth"}, tagHits[0].Tags, "tags are shown as written")
	tagHits, err = b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"ＬＯＧＩＮ"}, Branch: "feature/login"})
	require.NoError(t, err)
	assert.Len(t, tagHits, 1, "width and case are folded")
}

func TestSearchSeesEveryAcknowledgedWrite(t *testing.T) {
	forEachStore(t, func(t *testing.T, store memorybank.Store) {
		a, other := newBank(store), newBank(store)
		seedText(t, a)
		search := func(q string) []string {
			hits, err := a.Search(ctx, memorybank.TextSearchRequest{Query: q})
			require.NoError(t, err)
			return hitPaths(hits)
		}
		assert.Equal(t, []string{"db/migrations.md"}, search("goose"))

		// Another Bank (another process) rewrites, adds and deletes.
		mustWrite(t, other, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "db/migrations.md", Text: "# Database migrations\n\nWe moved to atlas.\n"})
		mustWrite(t, other, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/new", Path: "plan.md", Text: "Plan: adopt goose again?\n"})
		require.NoError(t, other.Delete(ctx, memorybank.DeleteRequest{Scope: memorybank.ScopeGlobal, Path: "notes/zh-cache.md"}))
		assert.Equal(t, []string{"plan.md"}, search("goose"), "a new branch bank is searched, the old text is gone")
		assert.Equal(t, []string{"db/migrations.md"}, search("atlas"))
		assert.Empty(t, search("缓存"))

		// The Bank's own writes and patches.
		mustWrite(t, a, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "feature/login", Path: "decisions.json",
			Patches: jsonpatch.Patch{{Op: "add", Path: "/content/decisions/-", Value: raw(`"Rotate signing keys monthly"`)}}})
		assert.Equal(t, []string{"decisions.json"}, search("rotate signing keys"))
		mustWrite(t, a, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "brand/new", Path: "x.md", Text: "zebra crossing\n"})
		assert.Equal(t, []string{"x.md"}, search("zebra"))
		require.NoError(t, a.Delete(ctx, memorybank.DeleteRequest{Scope: memorybank.ScopeBranch, Branch: "brand/new", Path: "x.md"}))
		assert.Empty(t, search("zebra"))
	})
}

func TestSearchBadRequests(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	cases := []struct {
		name string
		req  memorybank.TextSearchRequest
		want string
	}{
		{"empty query", memorybank.TextSearchRequest{}, "no words"},
		{"punctuation only", memorybank.TextSearchRequest{Query: "?!"}, "no words"},
		{"limit too large", memorybank.TextSearchRequest{Query: "a", Limit: memorybank.MaxSearchLimit + 1}, "limit"},
		{"negative limit", memorybank.TextSearchRequest{Query: "a", Limit: -1}, "limit"},
		{"query too long", memorybank.TextSearchRequest{Query: strings.Repeat("a ", memorybank.MaxQueryBytes)}, "limit is"},
		{"bad scope", memorybank.TextSearchRequest{Query: "a", Scope: "everything"}, "scope"},
		{"branch scope without branch", memorybank.TextSearchRequest{Query: "a", Scope: memorybank.ScopeBranch}, "branch"},
		{"bad branch", memorybank.TextSearchRequest{Query: "a", Branch: "a..b"}, ".."},
		{"too many tags", memorybank.TextSearchRequest{Query: "a", Tags: make([]string, memorybank.DefaultMaxTags+1)}, "at most"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := b.Search(ctx, c.req)
			require.Error(t, err)
			assert.True(t, errors.Is(err, memorybank.ErrInvalidRequest) || errors.Is(err, memorybank.ErrInvalidBranch), "%v", err)
			assert.Contains(t, err.Error(), c.want)
		})
	}
	hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "anything"})
	require.NoError(t, err)
	assert.Empty(t, hits, "an empty store has no hits")
	assert.NotNil(t, hits)
}

// Searches running beside writers of this Bank and of another never miss
// a write acknowledged before they began.
func TestSearchConcurrentWithWrites(t *testing.T) {
	store := &memorybank.MemStore{}
	a, other := newBank(store), newBank(store)
	seedText(t, a)
	const perWriter = 30
	done := make(chan struct{})
	errs := make(chan error, 4)
	for w, bank := range []*memorybank.Bank{a, other} {
		go func() {
			for i := range perWriter {
				word := fmt.Sprintf("word%dx%d", w, i)
				if _, err := bank.Write(ctx, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("w%d/%d.md", w, i), Text: word + "\n"}); err != nil {
					errs <- err
					return
				}
				// Acknowledged: a search that starts now must find it.
				hits, err := a.Search(ctx, memorybank.TextSearchRequest{Query: word})
				if err != nil {
					errs <- err
					return
				}
				if len(hits) != 1 {
					errs <- fmt.Errorf("search for %s found %v", word, hitPaths(hits))
					return
				}
			}
			errs <- nil
		}()
	}
	go func() {
		defer close(done)
		for range 50 {
			if _, err := a.Search(ctx, memorybank.TextSearchRequest{Query: "token cache"}); err != nil {
				errs <- err
				return
			}
		}
	}()
	require.NoError(t, <-errs)
	require.NoError(t, <-errs)
	<-done
}

// failingGets fails every Get while fail is set, and answers ErrNotFound
// for the key in gone (as if deleted between a List and a Get).
type failingGets struct {
	*memorybank.MemStore
	fail atomic.Bool
	gone atomic.Value
}

var errDisk = errors.New("disk on fire")

func (s *failingGets) Get(ctx context.Context, key string) (memorybank.Object, error) {
	if s.fail.Load() {
		return memorybank.Object{}, errDisk
	}
	if g, _ := s.gone.Load().(string); g == key {
		return memorybank.Object{}, memorybank.ErrNotFound
	}
	return s.MemStore.Get(ctx, key)
}

// A store error fails the search and changes nothing: the next search,
// once the store answers, finds everything; a search reads each document
// once, then only what changed.
func TestSearchStoreErrorsAndReads(t *testing.T) {
	store := &failingGets{MemStore: &memorybank.MemStore{}}
	seedText(t, newBank(store))
	b := newBank(store)
	store.fail.Store(true)
	_, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "goose"})
	require.ErrorIs(t, err, errDisk)
	store.fail.Store(false)
	hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "goose"})
	require.NoError(t, err)
	assert.Equal(t, []string{"db/migrations.md"}, hitPaths(hits))

	// A document listed but gone when read is left out, and found again
	// once it reads.
	store.gone.Store("global-memory-bank/auth/token-refresh.md")
	b = memorybank.New(store, nil)
	hits, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "token goose"})
	require.NoError(t, err)
	assert.Equal(t, []string{"db/migrations.md"}, hitPaths(hits))
	store.gone.Store("")
	hits, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "token goose"})
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"db/migrations.md", "auth/token-refresh.md"}, hitPaths(hits))

	counting := &countingStore{Store: store.MemStore}
	b = newBank(counting)
	_, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "nothing matches this"})
	require.NoError(t, err)
	assert.Equal(t, int64(6+2), counting.gets.Load(), "six documents and two branch markers, once")
	_, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "nothing matches this"})
	require.NoError(t, err)
	assert.Equal(t, int64(8), counting.gets.Load(), "a warm search reads nothing")
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "db/migrations.md", Text: "atlas now\n"})
	before := counting.gets.Load()
	_, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "nothing matches this"})
	require.NoError(t, err)
	assert.Equal(t, int64(1), counting.gets.Load()-before, "after a write, only the written document is read")
}

// Rewriting documents over and over (leaving dead postings behind, then
// compacting them) keeps results exact.
func TestSearchAfterManyRewrites(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	seedText(t, b)
	for i := range 1200 {
		mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: fmt.Sprintf("churn/%d.md", i%3), Text: fmt.Sprintf("round%d churn\n", i)})
		if i%2 == 0 {
			hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "churn"})
			require.NoError(t, err)
			require.Len(t, hits, min(i+1, 3))
		}
	}
	hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "round1199"})
	require.NoError(t, err)
	assert.Equal(t, []string{"churn/2.md"}, hitPaths(hits))
	hits, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "round1196"})
	require.NoError(t, err)
	assert.Empty(t, hits)
	hits, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "goose"})
	require.NoError(t, err)
	assert.Equal(t, []string{"db/migrations.md"}, hitPaths(hits))
}

// Two processes on one directory: a search sees the other's acknowledged
// writes through the store's change count.
func TestSearchSeesOtherProcess(t *testing.T) {
	dir := t.TempDir()
	open := func() memorybank.Store {
		s, err := fsstore.Open(dir, nil)
		require.NoError(t, err)
		t.Cleanup(func() { _ = s.Close() })
		return s
	}
	a, other := memorybank.New(open(), nil), memorybank.New(open(), nil)
	seedText(t, a)
	search := func(q string) []string {
		hits, err := a.Search(ctx, memorybank.TextSearchRequest{Query: q})
		require.NoError(t, err)
		return hitPaths(hits)
	}
	assert.Equal(t, []string{"db/migrations.md"}, search("goose"))
	for i := range 5 {
		mustWrite(t, other, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "db/migrations.md", Text: fmt.Sprintf("tool%d\n", i)})
		assert.Equal(t, []string{"db/migrations.md"}, search(fmt.Sprintf("tool%d", i)))
		assert.Empty(t, search("goose"))
	}
	mustWrite(t, other, memorybank.WriteRequest{Scope: memorybank.ScopeBranch, Branch: "other/branch", Path: "n.md", Text: "quokka\n"})
	hits, err := a.Search(ctx, memorybank.TextSearchRequest{Query: "quokka"})
	require.NoError(t, err)
	require.Len(t, hits, 1)
	assert.Equal(t, "other/branch", hits[0].Branch)
}

// A document tagged with its author's role ("user", "assistant": a chat
// kept a message a document) weighs by it: the user's note that names the
// subject comes before the assistant's answer naming it as often.
func TestSearchWeighsAuthorRole(t *testing.T) {
	b := newBank(&memorybank.MemStore{})
	text := "# Kiln\n\nThe kiln fires celadon glaze at cone 10.\n"
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "a-answer.md", Tags: []string{"assistant"}, Text: text})
	mustWrite(t, b, memorybank.WriteRequest{Scope: memorybank.ScopeGlobal, Path: "b-note.md", Tags: []string{"user"}, Text: text})
	hits, err := b.Search(context.Background(), memorybank.TextSearchRequest{Query: "celadon glaze"})
	require.NoError(t, err)
	assert.Equal(t, []string{"b-note.md", "a-answer.md"}, hitPaths(hits))
}

// Warm does the reading a first search would: the search after it reads
// only the documents of its hits' snippets.
func TestWarmMakesTheFirstSearchWarm(t *testing.T) {
	mem := &memorybank.MemStore{}
	seedText(t, newBank(mem))
	counting := &countingStore{Store: mem}
	// A fixed clock: IndexMaxAge never passes between the calls.
	b := memorybank.New(counting, &memorybank.Options{Clock: func() time.Time { return t0 }})
	require.NoError(t, b.Warm(ctx, memorybank.ScopeAll, ""))
	warmed, listed := counting.gets.Load(), counting.lists.Load()
	require.Positive(t, warmed, "Warm reads the documents")
	hits, err := b.Search(ctx, memorybank.TextSearchRequest{Query: "goose"})
	require.NoError(t, err)
	assert.Equal(t, []string{"db/migrations.md"}, hitPaths(hits))
	assert.Equal(t, int64(len(hits)), counting.gets.Load()-warmed, "one read per snippet, nothing else")
	assert.Equal(t, listed, counting.lists.Load(), "nor lists anything")

	_, err = b.Search(ctx, memorybank.TextSearchRequest{Query: "goose", Scope: "nowhere"})
	require.ErrorIs(t, err, memorybank.ErrInvalidRequest)
	require.ErrorIs(t, b.Warm(ctx, "nowhere", ""), memorybank.ErrInvalidRequest)
}
