package claudememory_test

import (
	"context"
	"encoding/json"
	"fmt"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/claudememory"
)

func Example() {
	ctx := context.Background()
	bank := memorybank.New(new(memorybank.MemStore), nil)
	h := claudememory.New(claudememory.BankFiles(bank), nil)

	// The inputs of the model's tool_use blocks, one call at a time.
	for _, input := range []string{
		`{"command": "create", "path": "/memories/prefs.md", "file_text": "# Preferences\n- coffee, black"}`,
		`{"command": "str_replace", "path": "/memories/prefs.md", "old_str": "black", "new_str": "with milk"}`,
		`{"command": "view", "path": "/memories/prefs.md"}`,
		`{"command": "view", "path": "/memories/tea.md"}`,
	} {
		text, err := h.Handle(ctx, json.RawMessage(input))
		if err != nil {
			text = "is_error: " + err.Error()
		}
		fmt.Println(text)
	}

	// The file is a text document of the global bank.
	doc, _ := bank.Read(ctx, memorybank.ReadRequest{Scope: memorybank.ScopeGlobal, Path: "memories/prefs.md"})
	fmt.Printf("%s %q version %d\n", doc.Path, doc.Title, doc.Version)
	// Output:
	// File created successfully at: /memories/prefs.md
	// The memory file has been edited. Here is the snippet showing the change (with line numbers):
	//      1	# Preferences
	//      2	- coffee, with milk
	// Here's the content of /memories/prefs.md with line numbers:
	//      1	# Preferences
	//      2	- coffee, with milk
	// is_error: The path /memories/tea.md does not exist. Please provide a valid path.
	// memories/prefs.md "prefs" version 2
}
