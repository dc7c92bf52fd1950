package jsonpatch

import (
	"fmt"
	"runtime"
	"testing"

	evanphx "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/jsonpatch/internal/benchgen"
)

// shape is one benchmark input: a generated document and patch.
type shape struct {
	name       string
	doc, patch []byte
}

func mixedShape(size, ops int) shape {
	doc, n := benchgen.Doc(size)
	return shape{fmt.Sprintf("doc=%s/ops=%d", sizeName(size), ops), doc, benchgen.Patch(n, ops, uint64(ops))}
}

func sizeName(size int) string {
	if size >= 1<<20 {
		return fmt.Sprintf("%dMB", size>>20)
	}
	return fmt.Sprintf("%dKB", size>>10)
}

// BenchmarkShapes compares Apply with evanphx alone, bytes in to bytes out
// (decoding the patch included), on the shapes of patch an agent sends:
// mixed add, replace and remove of members and elements spread over a
// document, and operations on top-level members only. Each shape runs ours
// then evanphx, one after the other. allocB/docB is the bytes allocated per
// run over the document's size; apply-only measures Apply alone, on a patch
// decoded beforehand.
func BenchmarkShapes(b *testing.B) {
	var shapes []shape
	for _, size := range []int{100 << 10, 1 << 20} {
		for _, ops := range []int{10, 100, 1000} {
			shapes = append(shapes, mixedShape(size, ops))
		}
	}
	shapes = append(shapes, mixedShape(10<<10, 1000))
	for _, size := range []int{100 << 10, 1 << 20} {
		doc, _ := benchgen.Doc(size)
		shapes = append(shapes, shape{fmt.Sprintf("doc=%s/toplevel=1000", sizeName(size)), doc, benchgen.TopLevelPatch(1000)})
	}
	runShapes(b, shapes)
}

// BenchmarkShapesLarge is BenchmarkShapes on 10 MB documents, apart so that
// -bench Shapes$ leaves it out.
func BenchmarkShapesLarge(b *testing.B) {
	var shapes []shape
	for _, ops := range []int{10, 1000} {
		shapes = append(shapes, mixedShape(10<<20, ops))
	}
	doc, _ := benchgen.Doc(10 << 20)
	shapes = append(shapes, shape{"doc=10MB/toplevel=1000", doc, benchgen.TopLevelPatch(1000)})
	runShapes(b, shapes)
}

func runShapes(b *testing.B, shapes []shape) {
	for _, s := range shapes {
		b.Run(s.name+"/impl=ours", func(b *testing.B) {
			measure(b, len(s.doc), func() error {
				p, err := Decode(s.patch)
				if err != nil {
					return err
				}
				_, err = Apply(s.doc, p)
				return err
			})
		})
		b.Run(s.name+"/apply-only", func(b *testing.B) {
			p, err := Decode(s.patch)
			require.NoError(b, err)
			measure(b, len(s.doc), func() error {
				_, err := Apply(s.doc, p)
				return err
			})
		})
		b.Run(s.name+"/impl=evanphx", func(b *testing.B) {
			opts := &evanphx.ApplyOptions{EscapeHTML: false}
			measure(b, len(s.doc), func() error {
				p, err := evanphx.DecodePatch(s.patch)
				if err != nil {
					return err
				}
				_, err = p.ApplyWithOptions(s.doc, opts)
				return err
			})
		})
	}
}

// measure runs f b.N times and reports CPU time and bytes allocated per
// run relative to the document's size.
func measure(b *testing.B, docSize int, f func() error) {
	b.SetBytes(int64(docSize))
	b.ReportAllocs()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	defer reportCPU(b)()
	for b.Loop() {
		if err := f(); err != nil {
			b.Fatal(err)
		}
	}
	runtime.ReadMemStats(&after)
	b.ReportMetric(float64(after.TotalAlloc-before.TotalAlloc)/float64(b.N)/float64(docSize), "allocB/docB")
}

// TestShapesAgree keeps the benchmark honest: the generated patches apply
// without error, and Apply and evanphx give the same document.
func TestShapesAgree(t *testing.T) {
	doc, n := benchgen.Doc(20 << 10)
	for _, patch := range [][]byte{benchgen.Patch(n, 1000, 1), benchgen.Patch(n, 300, 2), benchgen.TopLevelPatch(500)} {
		p, err := Decode(patch)
		require.NoError(t, err)
		ours, err := Apply(doc, p)
		require.NoError(t, err)
		ep, err := evanphx.DecodePatch(patch)
		require.NoError(t, err)
		theirs, err := ep.ApplyWithOptions(doc, &evanphx.ApplyOptions{EscapeHTML: false})
		require.NoError(t, err)
		require.Equal(t, string(theirs), string(ours))
	}
}
