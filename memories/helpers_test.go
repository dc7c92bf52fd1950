package memories_test

import (
	"context"
	"encoding/binary"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// seqRand is a deterministic io.Reader: 4-byte big-endian counters.
type seqRand struct {
	mu sync.Mutex
	n  uint32
}

func (r *seqRand) Read(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := 0; i < len(p); i += 4 {
		r.n++
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], r.n)
		copy(p[i:], b[:])
	}
	return len(p), nil
}

// stepClock returns a clock starting at start that advances one minute per call.
func stepClock(start time.Time) func() time.Time {
	var mu sync.Mutex
	t := start
	return func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		now := t
		t = t.Add(time.Minute)
		return now
	}
}

var tokyo = time.FixedZone("JST", 9*3600)

func newManager(t testing.TB, store memories.Store, opts *memories.Options) *memories.Manager {
	t.Helper()
	var o memories.Options
	if opts != nil {
		o = *opts
	}
	if o.Now == nil {
		o.Now = stepClock(time.Date(2026, 1, 26, 9, 0, 0, 0, tokyo))
	}
	if o.Location == nil {
		o.Location = tokyo
	}
	if o.Rand == nil {
		o.Rand = new(seqRand)
	}
	m, err := memories.New(store, &o)
	require.NoError(t, err)
	return m
}

func contents(t *testing.T, s memories.Store) string {
	t.Helper()
	data, _, err := s.Load(context.Background())
	require.NoError(t, err)
	return string(data)
}

// seedMemory and seedParse port the seed's parseMemories (TypeScript) line
// by line, to check that what this package writes stays readable by it.
type seedMemory struct {
	ID      int
	Title   string
	Tags    []string
	Date    string
	Content string
}

func seedParse(content string) []seedMemory {
	var out []seedMemory
	var cur *seedMemory
	for n, line := range strings.Split(content, "\n") {
		switch {
		case strings.HasPrefix(line, "## "):
			if cur != nil && cur.Title != "" {
				out = append(out, *cur)
			}
			cur = &seedMemory{ID: n + 1, Title: strings.TrimSpace(line[3:]), Tags: []string{}}
		case strings.HasPrefix(line, "- Tags:") && cur != nil:
			cur.Tags = nil
			for t := range strings.SplitSeq(strings.TrimSpace(line[7:]), ",") {
				cur.Tags = append(cur.Tags, strings.TrimSpace(t))
			}
		case strings.HasPrefix(line, "- Date:") && cur != nil:
			cur.Date = strings.TrimSpace(line[7:])
		case strings.HasPrefix(line, "- Content:") && cur != nil:
			cur.Content = strings.TrimSpace(line[10:])
		}
	}
	if cur != nil && cur.Title != "" {
		out = append(out, *cur)
	}
	return out
}

// noAppend hides the Appender (and Sizer) of a Store and counts calls.
type noAppend struct {
	memories.Store
	mu    sync.Mutex
	loads int
}

func (s *noAppend) Load(ctx context.Context) ([]byte, string, error) {
	s.mu.Lock()
	s.loads++
	s.mu.Unlock()
	return s.Store.Load(ctx)
}

// countingStore counts Loads and Saves of a MemStore but keeps its Append.
type countingStore struct {
	memories.MemStore
	mu           sync.Mutex
	loads, saves int
}

func (s *countingStore) Load(ctx context.Context) ([]byte, string, error) {
	s.mu.Lock()
	s.loads++
	s.mu.Unlock()
	return s.MemStore.Load(ctx)
}

func (s *countingStore) Save(ctx context.Context, data []byte, v string) (string, error) {
	s.mu.Lock()
	s.saves++
	s.mu.Unlock()
	return s.MemStore.Save(ctx, data, v)
}

// ralphMemory and ralphParse port ralph-orchestrator's parse_memories
// (Rust, regular expressions kept as they are) to check that what this
// package writes into a ralph file stays readable by ralph.
type ralphMemory struct {
	ID, Type, Content, Created string
	Tags                       []string
}

var (
	ralphSectionRE = regexp.MustCompile(`^## (Patterns|Decisions|Fixes|Context)`)
	ralphIDRE      = regexp.MustCompile(`^### (mem-\d+-[0-9a-f]{4})`)
	ralphContentRE = regexp.MustCompile(`^> (.+)$`)
	ralphMetaRE    = regexp.MustCompile(`<!-- tags: ([^|]*) \| created: (\d{4}-\d{2}-\d{2}) -->`)
)

func ralphParse(markdown string) []ralphMemory {
	var out []ralphMemory
	typ := "pattern"
	var cur *ralphMemory
	var content []string
	flush := func() {
		if cur != nil && len(content) > 0 {
			cur.Content = strings.Join(content, "\n")
			out = append(out, *cur)
		}
		cur, content = nil, nil
	}
	types := map[string]string{"Patterns": "pattern", "Decisions": "decision", "Fixes": "fix", "Context": "context"}
	for _, line := range strings.Split(strings.ReplaceAll(markdown, "\r\n", "\n"), "\n") {
		if m := ralphSectionRE.FindStringSubmatch(line); m != nil {
			flush()
			typ = types[m[1]]
		} else if m := ralphIDRE.FindStringSubmatch(line); m != nil {
			flush()
			cur = &ralphMemory{ID: m[1], Type: typ}
		} else if m := ralphContentRE.FindStringSubmatch(line); m != nil {
			content = append(content, m[1])
		} else if m := ralphMetaRE.FindStringSubmatch(line); m != nil && cur != nil {
			cur.Tags = nil
			for t := range strings.SplitSeq(m[1], ",") {
				if t = strings.TrimSpace(t); t != "" {
					cur.Tags = append(cur.Tags, t)
				}
			}
			cur.Created = m[2]
		}
	}
	flush()
	return out
}
