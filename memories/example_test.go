package memories_test

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/mnemobank/mnemobank/memories"
)

func fixedOptions() *memories.Options {
	return &memories.Options{
		Now:      func() time.Time { return time.Date(2026, 1, 26, 9, 0, 0, 0, time.UTC) },
		Location: time.UTC,
		Rand:     bytes.NewReader(bytes.Repeat([]byte{0xab, 0xcd, 0xef, 0x01}, 8)),
	}
}

func ExampleManager() {
	ctx := context.Background()
	m, err := memories.New(new(memories.MemStore), fixedOptions())
	if err != nil {
		panic(err)
	}
	mem, _ := m.Add(ctx, "Always use try-catch around adapter calls", "pattern", "error-handling")
	fmt.Println(mem.ID, mem.Date, mem.Tags)

	found, _ := m.Search(ctx, "ＴＲＹ－ＣＡＴＣＨ") // full-width query, folded
	fmt.Println(len(found), found[0].Title)

	prompt, _ := memories.Inject(ctx, m, "Fix the failing test.")
	fmt.Print(prompt)
	// Output:
	// mem-1769418000-abcdef01 2026-01-26 [pattern error-handling]
	// 1 Always use try-catch around adapter calls
	// # Memories
	//
	// ## Always use try-catch around adapter calls
	// - Tags: pattern, error-handling
	// - Date: 2026-01-26
	// - Content: Always use try-catch around adapter calls
	//
	// ---
	// Fix the failing test.
}

func ExampleParse() {
	file := []byte(`# Memories

My own notes stay where they are.

## Use PostgreSQL
- Tags: database
- Date: 2026-01-20
- Content: Use PostgreSQL for concurrent writers
`)
	doc := memories.Parse(file)
	for _, m := range doc.Memories() {
		fmt.Printf("%s | %s | %v\n", m.Title, m.Date, m.Tags)
	}
	fmt.Println(bytes.Equal(memories.Format(doc), file))
	// Output:
	// Use PostgreSQL | 2026-01-20 | [database]
	// true
}

func ExampleRender() {
	ms := []memories.Memory{
		{Title: "古いメモ", Date: "2026-01-01", Content: "古いメモ"},
		{Title: "新しいメモ", Date: "2026-01-02", Content: "新しいメモ"},
	}
	fmt.Print(memories.Render(ms, 100))
	// Output:
	// # Memories
	//
	// ## 新しいメモ
	// - Tags:
	// - Date: 2026-01-02
	// - Content: 新しいメモ
	//
	// (1 older memory not shown)
	//
	// ---
}

func ExampleFold() {
	fmt.Println(memories.Fold("ＴＲＹ－Ｃａｔｃｈ"), memories.Fold("ｴﾗｰﾊﾝﾄﾞﾘﾝｸﾞ"))
	// Output: try-catch エラーハンドリング
}

func ExampleMakeTitle() {
	fmt.Println(memories.MakeTitle("データベースの接続プールは二十に設定し、タイムアウトは三十秒にする。理由：本番の負荷試験で接続待ちが発生したため。"))
	// Output: データベースの接続プールは二十に設定し、タイムアウトは三十秒にする。理由：本番の負荷試験で接続待ちが...
}
