package claudememory_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

// BenchmarkStrReplace: one str_replace on a 100-line file, alternately
// writing two values, on the in-memory Files and through the bank.
func BenchmarkStrReplace(b *testing.B) {
	var lines []string
	for i := range 100 {
		lines = append(lines, fmt.Sprintf("- note %d: something worth remembering", i))
	}
	text := strings.Join(lines, "\n") + "\ncounter: even\n"
	inputs := [2]json.RawMessage{}
	for i, pair := range [2][2]string{{"even", "odd"}, {"odd", "even"}} {
		inputs[i], _ = json.Marshal(map[string]any{"command": "str_replace", "path": "/memories/notes.md",
			"old_str": "counter: " + pair[0], "new_str": "counter: " + pair[1]})
	}
	for _, be := range []struct {
		name  string
		files func() claudememory.Files
	}{
		{"mapFiles", func() claudememory.Files { return newMapFiles(nil) }},
		{"BankFiles-MemStore", func() claudememory.Files {
			return claudememory.BankFiles(memorybank.New(new(memorybank.MemStore), nil))
		}},
	} {
		b.Run(be.name, func(b *testing.B) {
			ctx := context.Background()
			files := be.files()
			if _, err := files.WriteText(ctx, "notes.md", text, memorybank.Condition{IfAbsent: true}); err != nil {
				b.Fatal(err)
			}
			h := claudememory.New(files, nil)
			i := 0
			for b.Loop() {
				if _, err := h.Handle(ctx, inputs[i%2]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}
