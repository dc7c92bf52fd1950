package memories_test

import (
	"context"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// Every input of the Manager has a limit, checked before any work: at the
// limit it is accepted, one past it refused with a *LimitError that quotes
// at most a short prefix of the input.
func TestInputLimits(t *testing.T) {
	ctx := context.Background()
	tags := func(n, size int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = strings.Repeat("t", size-3) + string(rune('a'+i/26)) + string(rune('a'+i%26)) + "x"
		}
		return out
	}
	// "é" is two bytes: limits count bytes, so multi-byte input reaches
	// them in fewer characters.
	atContent := strings.Repeat("é", memories.MaxContentBytes/2)
	cases := []struct {
		name  string
		call  func(m *memories.Manager) error
		field string
		size  int // 0: the call is accepted
	}{
		{"content at the limit", func(m *memories.Manager) error {
			_, err := m.Add(ctx, atContent)
			return err
		}, "", 0},
		{"content one byte past", func(m *memories.Manager) error {
			_, err := m.Add(ctx, atContent+"x")
			return err
		}, "content", memories.MaxContentBytes + 1},
		{"content of 16 MB", func(m *memories.Manager) error {
			_, err := m.Add(ctx, strings.Repeat("a", 16<<20))
			return err
		}, "content", 16 << 20},
		{"tags at the limit", func(m *memories.Manager) error {
			_, err := m.Add(ctx, "x", tags(memories.MaxTags, memories.MaxTagBytes)...)
			return err
		}, "", 0},
		{"one tag too many", func(m *memories.Manager) error {
			_, err := m.Add(ctx, "x", tags(memories.MaxTags+1, 8)...)
			return err
		}, "tags", memories.MaxTags + 1},
		{"10,000 tags", func(m *memories.Manager) error {
			_, err := m.Add(ctx, "x", tags(10000, 8)...)
			return err
		}, "tags", 10000},
		{"a tag one byte past", func(m *memories.Manager) error {
			_, err := m.Add(ctx, "x", "go", strings.Repeat("é", memories.MaxTagBytes/2)+"x")
			return err
		}, "tags[1]", memories.MaxTagBytes + 1},
		{"query at the limit", func(m *memories.Manager) error {
			_, err := m.Search(ctx, strings.Repeat("q", memories.MaxQueryBytes))
			return err
		}, "", 0},
		{"query one byte past", func(m *memories.Manager) error {
			_, err := m.Search(ctx, strings.Repeat("é", memories.MaxQueryBytes/2)+"x")
			return err
		}, "query", memories.MaxQueryBytes + 1},
		{"id past the limit (get)", func(m *memories.Manager) error {
			_, err := m.Get(ctx, strings.Repeat("i", memories.MaxIDBytes+1))
			return err
		}, "id", memories.MaxIDBytes + 1},
		{"id past the limit (delete)", func(m *memories.Manager) error {
			return m.Delete(ctx, strings.Repeat("i", memories.MaxIDBytes+1))
		}, "id", memories.MaxIDBytes + 1},
		{"id past the limit (restore)", func(m *memories.Manager) error {
			_, err := m.Restore(ctx, strings.Repeat("i", memories.MaxIDBytes+1))
			return err
		}, "id", memories.MaxIDBytes + 1},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			store := new(countingStore)
			m := newManager(t, store, &memories.Options{Trash: new(memories.MemStore)})
			err := tc.call(m)
			if tc.size == 0 {
				require.NoError(t, err)
				return
			}
			require.ErrorIs(t, err, memories.ErrLimit)
			require.ErrorIs(t, err, memories.ErrInvalid, "a limit is invalid input too")
			var le *memories.LimitError
			require.ErrorAs(t, err, &le)
			assert.Equal(t, tc.field, le.Field)
			assert.Equal(t, tc.size, le.Size)
			assert.Less(t, len(err.Error()), 400, "the error quotes at most a short prefix: %s", err)
			assert.Contains(t, err.Error(), tc.field)
			assert.Zero(t, store.loads+store.saves, "the limit is checked before any work")
		})
	}
}

// An error quoting client input quotes a short prefix of it.
func TestErrorsQuoteShortPrefix(t *testing.T) {
	ctx := context.Background()
	m := newManager(t, new(memories.MemStore), nil)
	_, err := m.Add(ctx, "x", strings.Repeat("a,", memories.MaxTagBytes/2))
	require.ErrorIs(t, err, memories.ErrInvalid)
	long := strings.Repeat("i", memories.MaxIDBytes)
	err = m.Delete(ctx, long)
	require.ErrorIs(t, err, memories.ErrNotFound)
	assert.NotContains(t, err.Error(), long, "the id is cut to a prefix")
	assert.Contains(t, err.Error(), long[:64])
}

// Whatever the sizes, Add and Search refuse exactly the inputs over a
// limit, with a *LimitError naming the field, and never quote more than a
// short prefix.
func FuzzInputLimits(f *testing.F) {
	f.Add(uint32(10), uint8(1), uint8(5), uint16(3))
	f.Add(uint32(memories.MaxContentBytes), uint8(memories.MaxTags), uint8(memories.MaxTagBytes), uint16(memories.MaxQueryBytes))
	f.Add(uint32(memories.MaxContentBytes+1), uint8(memories.MaxTags+1), uint8(memories.MaxTagBytes+1), uint16(memories.MaxQueryBytes+1))
	f.Fuzz(func(t *testing.T, contentBytes uint32, ntags, tagBytes uint8, queryBytes uint16) {
		contentBytes %= 2 * memories.MaxContentBytes
		ctx := context.Background()
		m := newManager(t, new(memories.MemStore), nil)
		content := strings.Repeat("c", max(int(contentBytes), 1))
		tags := make([]string, ntags%64)
		for i := range tags {
			tags[i] = strings.Repeat(string(rune('a'+i%26)), max(int(tagBytes), 1))
		}
		_, err := m.Add(ctx, content, tags...)
		var le *memories.LimitError
		over := len(content) > memories.MaxContentBytes || len(tags) > memories.MaxTags ||
			(len(tags) > 0 && len(tags[0]) > memories.MaxTagBytes)
		if over {
			require.ErrorAs(t, err, &le)
			assert.Less(t, len(err.Error()), 400)
		} else if err != nil {
			assert.NotErrorIs(t, err, memories.ErrLimit)
		}
		query := strings.Repeat("q", int(queryBytes))
		_, err = m.Search(ctx, query)
		if len(query) > memories.MaxQueryBytes {
			require.ErrorAs(t, err, &le)
			assert.Equal(t, "query", le.Field)
		} else {
			require.NoError(t, err)
		}
	})
}
