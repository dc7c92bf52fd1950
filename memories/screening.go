package memories

import (
	"fmt"
	"slices"
	"strings"
)

// Tags that mark a memory flagged as addressing the agent (Options.Flagger):
// FlaggedTag, and FlagTagPrefix followed by each kind of flag, such as
// "flagged:override-instructions". Tags are what the memories file format
// already stores, so a flag survives every tool that reads the file.
const (
	FlaggedTag    = "flagged"
	FlagTagPrefix = "flagged:"
)

// Flagged reports whether m carries FlaggedTag.
func Flagged(m Memory) bool { return slices.Contains(m.Tags, FlaggedTag) }

// screenAdd runs the Manager's secret screen over the content and each tag
// of a memory about to be added, then its flagger over the content: it
// returns what to store, or the screen's error (nothing stored).
func (m *Manager) screenAdd(content string, tags []string) (string, []string, error) {
	if m.secrets != nil {
		c, err := m.secrets.Screen("the memory's content", content)
		if err != nil {
			return "", nil, &OpError{Op: "add", Err: err}
		}
		content = c
		tags = slices.Clone(tags)
		for i, t := range tags {
			if tags[i], err = m.secrets.Screen(fmt.Sprintf("tag %d of the memory", i), t); err != nil {
				return "", nil, &OpError{Op: "add", Err: err}
			}
		}
	}
	if m.flagger != nil {
		// A writer cannot set or clear the flag tags itself.
		tags = slices.DeleteFunc(slices.Clone(tags), func(t string) bool {
			t = strings.TrimSpace(t)
			return t == FlaggedTag || strings.HasPrefix(t, FlagTagPrefix)
		})
		if flags := m.flagger.Flags(content); len(flags) > 0 {
			tags = append(tags, FlaggedTag)
			for _, f := range flags {
				if t := FlagTagPrefix + f.Kind; !slices.Contains(tags, t) {
					tags = append(tags, t)
				}
			}
		}
	}
	return content, tags, nil
}
