package memories_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

func TestAddReturnsMemory(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), &memories.Options{
		// 23:30 UTC is already the next day in Tokyo: the date is local.
		Now: func() time.Time { return time.Date(2026, 1, 25, 23, 30, 0, 0, time.UTC) },
	})
	mem, err := m.Add(ctx, "  Always use try-catch  \r\n", " pattern ", "", "pattern", "error-handling")
	require.NoError(t, err)
	assert.Equal(t, memories.Memory{
		ID:      "mem-1769383800-00000001",
		Title:   "Always use try-catch",
		Tags:    []string{"pattern", "error-handling"},
		Date:    "2026-01-26",
		Content: "Always use try-catch",
	}, mem)
	got, err := m.Get(ctx, mem.ID)
	require.NoError(t, err)
	assert.Equal(t, mem, got)

	_, err = m.Add(ctx, " \n\t ")
	assert.ErrorIs(t, err, memories.ErrInvalid)
	_, err = m.Add(ctx, "x", "a,b")
	assert.ErrorIs(t, err, memories.ErrInvalid)
	list, err := m.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 1, "rejected adds write nothing")
}

func TestAddUsesAppender(t *testing.T) {
	ctx := context.Background()
	store := new(countingStore)
	m := newManager(t, store, nil)
	for i := range 3 {
		_, err := m.Add(ctx, fmt.Sprint("memory ", i))
		require.NoError(t, err)
	}
	assert.Zero(t, store.loads, "Add must not load the file when the store can append")
	assert.Zero(t, store.saves, "Add must not rewrite the file when the store can append")
	list, err := m.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 3)
}

func TestAddFallbackConcurrent(t *testing.T) {
	ctx := context.Background()
	store := &noAppend{Store: new(memories.MemStore)}
	m := newManager(t, store, nil)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 10 {
				_, err := m.Add(ctx, fmt.Sprintf("g%d-%d", g, i))
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	list, err := m.List(ctx)
	require.NoError(t, err)
	assert.Len(t, list, 80, "no add is lost to a concurrent one")
	assert.Positive(t, store.loads)
}

func TestDisabled(t *testing.T) {
	ctx := context.Background()
	store := new(memories.MemStore)
	_, err := store.Save(ctx, []byte(seedAppended), "")
	require.NoError(t, err)
	_, v, _ := store.Load(ctx)
	m := newManager(t, store, &memories.Options{Config: &memories.Config{Enabled: false, Inject: "auto"}})

	list, err := m.List(ctx)
	require.NoError(t, err)
	assert.Empty(t, list)
	found, err := m.Search(ctx, "try")
	require.NoError(t, err)
	assert.Empty(t, found)
	inj, err := m.InjectionContent(ctx)
	require.NoError(t, err)
	assert.Empty(t, inj)
	prompt, err := memories.Inject(ctx, m, "do the task")
	require.NoError(t, err)
	assert.Equal(t, "do the task", prompt)

	_, err = m.Add(ctx, "x")
	assert.ErrorIs(t, err, memories.ErrDisabled)
	id := memories.Parse([]byte(seedAppended)).Memories()[0].ID
	assert.ErrorIs(t, m.Delete(ctx, id), memories.ErrDisabled)
	_, err = m.Get(ctx, id)
	assert.ErrorIs(t, err, memories.ErrNotFound)

	data, v2, _ := store.Load(ctx)
	assert.Equal(t, v, v2, "a disabled manager never writes")
	assert.Equal(t, seedAppended, string(data))
}

func TestInjectModes(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{"auto", "manual", "none", ""} {
		store := new(memories.MemStore)
		m := newManager(t, store, &memories.Options{Config: &memories.Config{Enabled: true, Inject: mode}})
		_, err := m.Add(ctx, "Always use try-catch", "pattern")
		require.NoError(t, err)
		got, err := memories.Inject(ctx, m, "PROMPT")
		require.NoError(t, err)
		if mode == "auto" || mode == "" {
			assert.Equal(t, "# Memories\n\n## Always use try-catch\n- Tags: pattern\n- Date: 2026-01-26\n- Content: Always use try-catch\n\n---\nPROMPT", got, "seed's shape")
		} else {
			assert.Equal(t, "PROMPT", got, mode)
		}
	}
	empty := newManager(t, nil, nil)
	got, err := empty.InjectionContent(ctx)
	require.NoError(t, err)
	assert.Empty(t, got, "no memories, no injection")
}

func TestInjectionBudget(t *testing.T) {
	ms := []memories.Memory{
		{Title: "oldest", Date: "2026-01-01", Content: "oldest"},
		{Title: "東京", Date: "2026-01-03", Content: "日本語の内容です"},
		{Title: "middle", Date: "2026-01-02", Content: "middle"},
	}
	full := memories.Render(ms, 0)
	assert.Less(t, strings.Index(full, "東京"), strings.Index(full, "middle"), "newest first")
	assert.Less(t, strings.Index(full, "middle"), strings.Index(full, "oldest"))
	assert.Equal(t, full, memories.Render(ms, utf8.RuneCountInString(full)), "an exact budget fits everything")

	for budget := 1; budget < utf8.RuneCountInString(full); budget++ {
		got := memories.Render(ms, budget)
		assert.LessOrEqual(t, utf8.RuneCountInString(got), budget, "budget %d", budget)
		if got == "" {
			continue
		}
		assert.True(t, strings.HasPrefix(got, "# Memories\n\n") && strings.HasSuffix(got, "---\n"))
		shown := strings.Count(got, "\n## ")
		require.Less(t, shown, 3)
		assert.Contains(t, got, fmt.Sprintf("(%d older ", 3-shown), "budget %d says how many were left out", budget)
		if shown >= 1 {
			assert.Contains(t, got, "- Content: 日本語の内容です\n", "whole entries only, the newest first")
		}
		if shown == 2 {
			assert.Contains(t, got, "- Content: middle\n")
			assert.NotContains(t, got, "oldest")
		}
	}
	// CJK counts one per character: a budget in bytes would cut this short.
	ja := []memories.Memory{{Title: "日本", Date: "2026-01-01", Content: strings.Repeat("語", 100)}}
	one := memories.Render(ja, 0)
	assert.Equal(t, one, memories.Render(ja, utf8.RuneCountInString(one)))
	assert.Greater(t, len(one), utf8.RuneCountInString(one)+150)
}

func TestInjectionBudgetOption(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, nil, &memories.Options{InjectBudget: 300})
	for i := range 5 {
		_, err := m.Add(ctx, fmt.Sprintf("memory number %d", i))
		require.NoError(t, err)
	}
	got, err := m.InjectionContent(ctx)
	require.NoError(t, err)
	assert.LessOrEqual(t, utf8.RuneCountInString(got), 300)
	assert.Contains(t, got, "memory number 4")
	assert.NotContains(t, got, "memory number 0")
	assert.Regexp(t, `\(\d older memories not shown`, got)
}

func TestSizeWarningAndLimit(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name  string
		store func() memories.Store
	}{
		{"appender", func() memories.Store { return new(memories.MemStore) }},
		{"load+save", func() memories.Store { return &noAppend{Store: new(memories.MemStore)} }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewTextHandler(&logs, nil))
			m := newManager(t, tc.store(), &memories.Options{Logger: logger, WarnBytes: 300, MaxBytes: 600})
			_, err := m.Add(ctx, "small")
			require.NoError(t, err)
			assert.NotContains(t, logs.String(), "level=WARN")
			_, err = m.Add(ctx, strings.Repeat("x", 250))
			require.NoError(t, err)
			assert.Contains(t, logs.String(), "level=WARN", "over WarnBytes after the add: warn")
			assert.Contains(t, logs.String(), "limit=300")

			before, err := m.List(ctx)
			require.NoError(t, err)
			_, err = m.Add(ctx, strings.Repeat("y", 300))
			assert.ErrorIs(t, err, memories.ErrTooLarge)
			after, err := m.List(ctx)
			require.NoError(t, err)
			assert.Equal(t, before, after, "an add over MaxBytes writes nothing")
		})
	}
}

func TestConfig(t *testing.T) {
	assert.Equal(t, memories.Config{Enabled: true, Inject: "auto"}, memories.DefaultConfig())
	for _, tc := range []struct {
		in      string
		want    memories.Config
		wantErr bool
	}{
		{`{}`, memories.Config{Enabled: true, Inject: "auto"}, false},
		{`{"enabled": false}`, memories.Config{Enabled: false, Inject: "auto"}, false},
		{`{"inject": "manual"}`, memories.Config{Enabled: true, Inject: "manual"}, false},
		{`{"inject": "none", "enabled": true}`, memories.Config{Enabled: true, Inject: "none"}, false},
		{`{"inject": "always"}`, memories.Config{}, true},
		{`{"enabled": "yes"}`, memories.Config{}, true},
	} {
		var c memories.Config
		err := json.Unmarshal([]byte(tc.in), &c)
		if tc.wantErr {
			assert.ErrorIs(t, err, memories.ErrInvalidConfig, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		assert.Equal(t, tc.want, c, tc.in)
	}
	_, err := memories.New(nil, &memories.Options{Config: &memories.Config{Enabled: true, Inject: "sometimes"}})
	var ce *memories.ConfigError
	require.ErrorAs(t, err, &ce)
	assert.Equal(t, "inject", ce.Field)
	assert.Contains(t, err.Error(), `"auto", "manual", "none"`)
}
