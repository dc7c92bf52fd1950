package lcmemory

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/tmc/langchaingo/schema"
)

// Injector renders the memories relevant to a prompt, as memories.Inject
// puts them in front of it; *memories.Manager implements it.
type Injector interface {
	InjectionFor(ctx context.Context, prompt string) (string, error)
}

// DefaultMemoryKey is the variable Memories gives a chain when MemoryKey
// is "".
const DefaultMemoryKey = "memories"

// Memories is a chain memory of the learned memories: before each call,
// the memories relevant to the chain's input, under MemoryKey, for the
// prompt to show ("{{.memories}}"). The text is the memories package's
// injection ("# Memories", an entry per memory, "---"), or "" when there
// are none or injection is off (Config.Inject "manual" or "none").
type Memories struct {
	Memories Injector
	// MemoryKey is the prompt variable; "" means DefaultMemoryKey.
	MemoryKey string
	// InputKey is the input the memories are chosen for; "" means the
	// chain's only input, or "input" when it has several.
	InputKey string
}

var _ schema.Memory = (*Memories)(nil)

// GetMemoryKey returns the prompt variable.
func (m *Memories) GetMemoryKey(context.Context) string {
	if m.MemoryKey == "" {
		return DefaultMemoryKey
	}
	return m.MemoryKey
}

// MemoryVariables returns the prompt variable, the only one.
func (m *Memories) MemoryVariables(ctx context.Context) []string {
	return []string{m.GetMemoryKey(ctx)}
}

// LoadMemoryVariables returns the memories relevant to the input.
func (m *Memories) LoadMemoryVariables(ctx context.Context, inputs map[string]any) (map[string]any, error) {
	if m.Memories == nil {
		return nil, errors.New("lcmemory: Memories has no Memories")
	}
	prompt, err := m.input(inputs)
	if err != nil {
		return nil, err
	}
	text, err := m.Memories.InjectionFor(ctx, prompt)
	if err != nil {
		return nil, err
	}
	return map[string]any{m.GetMemoryKey(ctx): text}, nil
}

// input finds the text the memories are chosen for.
func (m *Memories) input(inputs map[string]any) (string, error) {
	key := m.InputKey
	if key == "" {
		key = "input"
		if len(inputs) == 1 {
			for k := range inputs {
				key = k
			}
		}
	}
	v, ok := inputs[key]
	if !ok {
		keys := make([]string, 0, len(inputs))
		for k := range inputs {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		return "", fmt.Errorf("lcmemory: the chain's inputs have no %q to choose memories for; they are %s (set Memories.InputKey)",
			key, strings.Join(keys, ", "))
	}
	s, ok := v.(string)
	if !ok {
		return "", fmt.Errorf("lcmemory: input %q is a %T, not text", key, v)
	}
	return s, nil
}

// SaveContext changes nothing: memories are learned deliberately (with
// Manager.Add or a tool), not from every exchange.
func (m *Memories) SaveContext(context.Context, map[string]any, map[string]any) error { return nil }

// Clear changes nothing: clearing a chain's memory must not delete what
// the agent learned.
func (m *Memories) Clear(context.Context) error { return nil }
