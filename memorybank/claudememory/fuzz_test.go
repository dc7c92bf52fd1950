package claudememory_test

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"testing"

	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

// FuzzHandle: any tool input gives a text or a *ToolError, never a panic,
// and never a file outside the valid names.
func FuzzHandle(f *testing.F) {
	data, err := os.ReadFile("testdata/reference_inputs.json")
	if err != nil {
		f.Fatal(err)
	}
	var steps []struct {
		Input json.RawMessage `json:"input"`
	}
	if err := json.Unmarshal(data, &steps); err != nil {
		f.Fatal(err)
	}
	for _, s := range steps {
		f.Add([]byte(s.Input))
	}
	f.Add([]byte(`{"command":"view","path":"/memories/d","view_range":[-5,-9]}`))
	f.Add([]byte(`{"command":"insert","path":"/memories/a.md","insert_line":-9223372036854775808,"insert_text":""}`))
	f.Add([]byte(`{"command":"rename","old_path":"/memories/d","new_path":"/memories/d/e"}`))
	f.Add([]byte(`{"command":"str_replace","path":"/memories/a.md","old_str":"\n","new_str":""}`))
	f.Fuzz(func(t *testing.T, input []byte) {
		files := newMapFiles(map[string]string{"a.md": "one\ntwo\n", "d/b.md": "x", "d/e/f.md": ""})
		h := claudememory.New(files, &claudememory.Options{MaxFileBytes: 1 << 12, MaxViewBytes: 512})
		text, err := h.Handle(context.Background(), input)
		if err != nil {
			var te *claudememory.ToolError
			if !errors.As(err, &te) {
				t.Fatalf("error is not a *ToolError: %T %v", err, err)
			}
			if te.Error() == "" || te.Err == nil {
				t.Fatalf("empty tool error: %#v", te)
			}
			return
		}
		if text == "" {
			t.Fatal("empty result")
		}
		for _, p := range files.paths() {
			if len(p) > 0 && (p[0] == '/' || p[0] == '.') {
				t.Fatalf("stored path %q", p)
			}
		}
	})
}
