package textsearchtest

import (
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// The generated chat is the same on every run, and has the shape the
// evaluation claims: short notes beside answers ten to fifty times longer,
// at least 150 questions, each judged by messages that exist, and
// questions answered only by several messages.
func TestGenerateChat(t *testing.T) {
	c := GenerateChat()
	require.Equal(t, c, GenerateChat())
	ids := map[string]Message{}
	var user, asst []int
	for _, m := range c.Messages {
		ids[m.ID] = m
		n := len(strings.Fields(m.Text))
		if m.Role == "user" {
			user = append(user, n)
		} else {
			asst = append(asst, n)
		}
	}
	slices.Sort(user)
	slices.Sort(asst)
	ratio := float64(asst[len(asst)/2]) / float64(user[len(user)/2])
	t.Logf("%d messages, %d questions; median words: user %d, assistant %d", len(c.Messages), len(c.Questions), user[len(user)/2], asst[len(asst)/2])
	assert.GreaterOrEqual(t, len(c.Questions), 150)
	assert.Greater(t, asst[len(asst)*3/4], 10*user[len(user)/2], "long answers are ten times the notes or more")
	assert.Greater(t, ratio, 3.0)
	several := 0
	for _, q := range c.Questions {
		require.NotEmpty(t, q.Evidence, q.Text)
		for _, id := range q.Evidence {
			require.Contains(t, ids, id, q.Text)
		}
		if len(q.Evidence) > 1 {
			several++
			assert.True(t, q.Broad(), q.Text)
		}
	}
	assert.GreaterOrEqual(t, several, 30)
	for _, s := range []Set{Sessions(), Messages()} {
		keys := map[string]bool{}
		for _, d := range s.Docs {
			keys[d.Key] = true
		}
		for _, q := range s.Questions {
			for _, k := range q.Evidence {
				assert.True(t, keys[k], "%s: %q names %s", s.Name, q.Text, k)
			}
		}
	}
}
