package memorybank_test

import (
	"testing"

	"github.com/stretchr/testify/assert"

	"github.com/mnemobank/mnemobank/memorybank"
)

// Every method of a Bank that was never initialised (a nil *Bank, or New
// without a Store) returns ErrNotInitialised instead of panicking.
func TestUninitialisedBank(t *testing.T) {
	banks := map[string]*memorybank.Bank{
		"nil *Bank":         nil,
		"New(nil, nil)":     memorybank.New(nil, nil),
		"zero Bank":         &memorybank.Bank{},
		"New(nil, options)": memorybank.New(nil, &memorybank.Options{MaxTags: 3}),
	}
	for name, b := range banks {
		t.Run(name, func(t *testing.T) {
			g := memorybank.ScopeGlobal
			calls := map[string]func() error{
				"Write": func() error {
					_, err := b.Write(ctx, memorybank.WriteRequest{Scope: g, Path: "a.md", Text: "x"})
					return err
				},
				"Read": func() error {
					_, err := b.Read(ctx, memorybank.ReadRequest{Scope: g, Path: "a.md"})
					return err
				},
				"Delete":   func() error { return b.Delete(ctx, memorybank.DeleteRequest{Scope: g, Path: "a.md"}) },
				"List":     func() error { _, err := b.List(ctx, memorybank.ListRequest{Scope: g}); return err },
				"Paths":    func() error { _, err := b.Paths(ctx, memorybank.ListRequest{Scope: g}); return err },
				"Branches": func() error { _, err := b.Branches(ctx); return err },
				"Rules":    func() error { _, err := b.Rules(ctx, memorybank.English); return err },
				"InitBranch": func() error {
					return b.InitBranch(ctx, "main", memorybank.English)
				},
				"ReadContext": func() error {
					_, err := b.ReadContext(ctx, memorybank.ReadContextRequest{Branch: "main"})
					return err
				},
				"SearchByTags": func() error {
					_, err := b.SearchByTags(ctx, memorybank.SearchRequest{Tags: []string{"x"}})
					return err
				},
			}
			for call, fn := range calls {
				var err error
				assert.NotPanics(t, func() { err = fn() }, call)
				assert.ErrorIs(t, err, memorybank.ErrNotInitialised, call)
			}
			assert.NotPanics(t, func() { _ = b.Options(); _ = b.Store() })
		})
	}
}
