package memories_test

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memories"
)

// A memory added to a file in ralph-orchestrator's format is written in
// that format, into the section of its type, so ralph keeps reading every
// memory of the file; this package reads it back as Add returned it.
func TestAddToRalphFileKeepsRalphFormat(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		store    func() memories.Store
		tags     []string
		wantType string
		wantTags []string
	}{
		{"fix, appending store", func() memories.Store { return new(memories.MemStore) }, []string{"fix", "docker"}, "fix", []string{"fix", "docker"}},
		{"no type tag, store without Append", func() memories.Store { return &noAppend{Store: new(memories.MemStore)} }, []string{"docker"}, "pattern", []string{"pattern", "docker"}},
		{"context: the empty last section", func() memories.Store { return new(memories.MemStore) }, []string{"context"}, "context", []string{"context"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			store := tc.store()
			_, err := store.Save(ctx, []byte(ralphFile), "")
			require.NoError(t, err)
			m := newManager(t, store, nil)
			added, err := m.Add(ctx, "Restart the db\nwith compose\n\nthen retry", tc.tags...)
			require.NoError(t, err)
			assert.Regexp(t, regexp.MustCompile(`^mem-\d+-[0-9a-f]{4}$`), added.ID, "ralph's id shape")
			assert.Equal(t, tc.wantTags, added.Tags)
			assert.Equal(t, "Restart the db\nwith compose\nthen retry", added.Content, "ralph cannot store blank lines")

			data := contents(t, store)
			assert.NotContains(t, data, "- Content:", "nothing in the seed's format")
			ralph := ralphParse(data)
			require.Len(t, ralph, 4, "ralph reads every memory")
			var mine *struct{ typ, content string }
			for _, r := range ralph {
				if r.ID == added.ID {
					mine = &struct{ typ, content string }{r.Type, r.Content}
					assert.Equal(t, tc.wantTags[1:], append([]string{}, r.Tags...)[:len(r.Tags)])
					assert.Equal(t, "2026-01-26", r.Created)
				}
			}
			require.NotNil(t, mine, "ralph reads the new memory")
			assert.Equal(t, tc.wantType, mine.typ)
			assert.Equal(t, added.Content, mine.content)

			got, err := m.Get(ctx, added.ID)
			require.NoError(t, err)
			assert.Equal(t, added, got)
			assert.True(t, strings.HasPrefix(data, "# Memories\n\n## Patterns\n"), "the file keeps its layout")
		})
	}
}

func TestAddToRalphFileRefusesWhatRalphCannotRead(t *testing.T) {
	ctx := context.Background()
	store := new(memories.MemStore)
	_, err := store.Save(ctx, []byte(ralphFile), "")
	require.NoError(t, err)
	m := newManager(t, store, nil)
	_, err = m.Add(ctx, "x", "fix", "a|b")
	require.ErrorIs(t, err, memories.ErrInvalid)
	assert.Equal(t, ralphFile, contents(t, store))
}

// A file in the seed's format (or empty) still gets the seed's format.
func TestAddToSeedFileKeepsSeedFormat(t *testing.T) {
	ctx := context.Background()
	store := new(memories.MemStore)
	_, err := store.Save(ctx, []byte(seedAppended), "")
	require.NoError(t, err)
	m := newManager(t, store, nil)
	_, err = m.Add(ctx, "x", "fix")
	require.NoError(t, err)
	assert.Contains(t, contents(t, store), "- Content: x\n")
}
