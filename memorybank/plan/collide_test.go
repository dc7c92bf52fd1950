package plan_test

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/memorybank"
	"github.com/mnemobank/mnemobank/memorybank/plan"
)

// A plan whose files collide, with the bank's or with each other, by case,
// by Unicode normalisation or as file and folder, is refused before any
// file is written: the store is as it was.
func TestApplyRefusesCollisionsBeforeWriting(t *testing.T) {
	create := func(p string) plan.Operation {
		return plan.Operation{Type: plan.OpCreate, Path: p, Reason: "new note", Content: text("# " + p + "\n")}
	}
	cases := []struct {
		name     string
		existing []string
		ops      []plan.Operation
	}{
		{"case of an existing file", []string{"notes.md"}, []plan.Operation{create("other.md"), create("Notes.md")}},
		{"case within the plan", nil, []plan.Operation{create("a.md"), create("A.md")}},
		{"normalisation within the plan", nil, []plan.Operation{create("caf\u00e9.md"), create("cafe\u0301.md")}},
		{"case and normalisation within the plan", nil, []plan.Operation{create("x/\u00c9t\u00e9.md"), create("x/e\u0301te\u0301.md")}},
		{"file then folder within the plan", nil, []plan.Operation{create("a"), create("a/b.md")}},
		{"folder then file, another case", nil, []plan.Operation{create("Dir/b.md"), create("dir")}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			forEachStore(t, func(t *testing.T, store memorybank.Store) {
				b := newBank(store)
				for _, p := range tc.existing {
					writeTexts(t, b, planRoot, [2]string{p, "# " + p + "\n"})
				}
				before := snapshot(t, store)
				_, err := plan.Apply(ctx, b, plan.ApplyRequest{Root: planRoot, Plan: &plan.WritePlan{
					SchemaVersion: plan.SchemaVersion, Action: plan.ActionMemoryOps, Operations: tc.ops}})
				require.ErrorIs(t, err, memorybank.ErrPathConflict)
				var oe *plan.OperationError
				require.ErrorAs(t, err, &oe)
				assert.Equal(t, len(tc.ops)-1, oe.Index, "the second spelling is the one refused")
				assert.Equal(t, before, snapshot(t, store), "nothing was written")
			})
		})
	}
}
