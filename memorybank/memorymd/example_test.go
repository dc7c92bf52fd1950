package memorymd_test

import (
	"fmt"

	"github.com/mnemobank/mnemobank/memorybank/memorymd"
)

// Rewriting one section of MEMORY.md keeps every byte outside the machine
// block.
func ExampleFile_WithSection() {
	md, err := memorymd.Parse("# メモ\r\n<!-- MACHINE_BLOCK_START -->\r\n## Current Focus\r\n決済\r\n<!-- MACHINE_BLOCK_END -->\r\nユーザーのメモ")
	if err != nil {
		panic(err)
	}
	next, err := md.WithSection("Next Steps", "- テスト\n- レビュー")
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q\n", next.String())
	for _, s := range next.Sections() {
		fmt.Printf("%s: %q\n", s.Name, s.Body)
	}

	_, err = memorymd.Parse("<!-- MACHINE_BLOCK_START -->\n## A\n")
	fmt.Println(err)
	// Output:
	// "# メモ\r\n<!-- MACHINE_BLOCK_START -->\r\n## Current Focus\r\n決済\r\n\r\n## Next Steps\r\n- テスト\r\n- レビュー\r\n<!-- MACHINE_BLOCK_END -->\r\nユーザーのメモ"
	// Current Focus: "決済"
	// Next Steps: "- テスト\r\n- レビュー"
	// memorymd: malformed MEMORY.md blocks: line 1 (<!-- MACHINE_BLOCK_START -->): the MACHINE_BLOCK is never closed; add <!-- MACHINE_BLOCK_END --> on a line of its own
}
