package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/mnemobank/mnemobank/memories"
)

// tourMemories adds, searches, deletes and injects learned memories in the
// seed's memories.md format, on the in-memory store with a fixed clock.
func tourMemories(ctx context.Context, w io.Writer) error {
	store := new(memories.MemStore)
	// A file with a hand-written note, as a person (or the seed's tool) left it.
	if _, err := store.Save(ctx, []byte("# Memories\n\nNote: ask Kenji before touching CI.\n\n"+
		"## Use PostgreSQL\n- Tags: database\n- Date: 2026-01-20\n- Content: Use PostgreSQL\n"), ""); err != nil {
		return err
	}
	clock := time.Date(2026, 1, 26, 9, 0, 0, 0, time.UTC)
	m, err := memories.New(store, &memories.Options{
		Now:          func() time.Time { clock = clock.Add(time.Hour); return clock },
		Location:     time.UTC,
		Rand:         bytes.NewReader([]byte{0x5e, 0xed, 0x00, 0x01, 0x5e, 0xed, 0x00, 0x02}),
		InjectBudget: 170,
	})
	if err != nil {
		return err
	}

	fmt.Fprintln(w, "Add returns each memory with a stable id (the seed used heading line numbers):")
	a, err := m.Add(ctx, "Always use try-catch around adapter calls", "pattern", "error-handling")
	if err != nil {
		return err
	}
	b, err := m.Add(ctx, "エラーハンドリングは共通ミドルウェアで行う\nハンドラでは握りつぶさない", "decision")
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "  %s  %s\n  %s  %s\n", a.ID, a.Title, b.ID, b.Title)

	list, err := m.List(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "List: %d memories; the seed-written one got a derived id %s\n", len(list), list[0].ID)

	for _, q := range []string{"ＴＲＹ－ＣＡＴＣＨ", "ｴﾗｰ", "postgresql"} {
		found, err := m.Search(ctx, q)
		if err != nil {
			return err
		}
		if len(found) == 0 {
			return fmt.Errorf("search %q found nothing", q)
		}
		fmt.Fprintf(w, "Search %q (width and case folded): %d hit(s), first %q\n", q, len(found), found[0].Title)
	}

	if err := m.Delete(ctx, a.ID); err != nil {
		return err
	}
	again, err := m.Get(ctx, list[0].ID)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "Deleted %s; %s is still %q\n", a.ID, again.ID, again.Title)
	err = m.Delete(ctx, a.ID)
	fmt.Fprintf(w, "Deleting it again: errors.Is(err, ErrNotFound) = %v\n", errors.Is(err, memories.ErrNotFound))
	data, _, err := store.Load(ctx)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "The hand-written note survived: %v\n", bytes.Contains(data, []byte("ask Kenji")))

	prompt, err := memories.Inject(ctx, m, "Fix the failing test.")
	if err != nil {
		return err
	}
	fmt.Fprintln(w, "Inject with a 170-character budget (newest whole entries first):")
	fmt.Fprint(w, memoriesQuote(prompt))
	fmt.Fprintln(w)
	return nil
}

func memoriesQuote(s string) string {
	var b bytes.Buffer
	for _, l := range bytes.SplitAfter([]byte(s), []byte("\n")) {
		if len(l) > 0 {
			b.WriteString("  | ")
			b.Write(l)
		}
	}
	return b.String()
}
