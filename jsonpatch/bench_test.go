package jsonpatch

import (
	"encoding/json"
	"fmt"
	"runtime"
	"strconv"
	"testing"

	evanphx "github.com/evanphx/json-patch/v5"
	"github.com/stretchr/testify/require"

	"github.com/mnemobank/mnemobank/internal/cputime"
)

// benchDoc generates a memory-bank-like document of about size bytes:
// {"schema":...,"sections":{"s0":{"title":...,"n":...,"tags":[...],"body":...},...}}.
func benchDoc(size int) ([]byte, int) {
	b := []byte(`{"schema":"memory_document_v2","metadata":{"id":"bench","version":1},"sections":{`)
	n := 0
	for len(b) < size-2 {
		if n > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `"s%d":{"title":"Section %d <draft> & notes","n":%d,"big":123456789012345678901234567890,"tags":["a","b","c%d"],"body":"lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore %d"}`, n, n, n*7, n, n)
		n++
	}
	return append(b, '}', '}'), n
}

// benchPatch generates ops mixed operations over sections sections, in groups
// of six (replace, add, test, copy, move, remove) that are valid in sequence.
func benchPatch(ops, sections int) []byte {
	b := []byte{'['}
	for i := 0; i < ops; i++ {
		g := i / 6
		k := (g * 7919) % sections
		s := "/sections/s" + strconv.Itoa(k)
		if i > 0 {
			b = append(b, ',')
		}
		switch i % 6 {
		case 0:
			b = fmt.Appendf(b, `{"op":"replace","path":"%s/title","value":"title %d <&>"}`, s, i)
		case 1:
			b = fmt.Appendf(b, `{"op":"add","path":"%s/x%d","value":{"v":%d,"w":[1,2,3]}}`, s, g, i)
		case 2:
			b = fmt.Appendf(b, `{"op":"test","path":"%s/n","value":%d}`, s, k*7)
		case 3:
			b = fmt.Appendf(b, `{"op":"copy","from":"%s/tags","path":"%s/c%d"}`, s, s, g)
		case 4:
			b = fmt.Appendf(b, `{"op":"move","from":"%s/x%d","path":"%s/y%d"}`, s, g, s, g)
		case 5:
			b = fmt.Appendf(b, `{"op":"remove","path":"%s/c%d"}`, s, g)
		}
	}
	return append(b, ']')
}

func BenchmarkApply(b *testing.B) {
	for _, size := range []int{10 << 10, 100 << 10, 1 << 20} {
		doc, sections := benchDoc(size)
		for _, ops := range []int{10, 100, 1000} {
			patch := benchPatch(ops, sections)
			name := fmt.Sprintf("doc=%dKB/ops=%d", size>>10, ops)
			b.Run(name+"/impl=ours", func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				defer reportCPU(b)()
				for b.Loop() {
					p, err := Decode(patch)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := Apply(doc, p); err != nil {
						b.Fatal(err)
					}
				}
			})
			b.Run(name+"/impl=evanphx", func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				opts := &evanphx.ApplyOptions{EscapeHTML: false}
				defer reportCPU(b)()
				for b.Loop() {
					p, err := evanphx.DecodePatch(patch)
					if err != nil {
						b.Fatal(err)
					}
					if _, err := p.ApplyWithOptions(doc, opts); err != nil {
						b.Fatal(err)
					}
				}
			})
			if ops != 10 {
				continue // decode+encode does not depend on the patch
			}
			b.Run(fmt.Sprintf("doc=%dKB/impl=encoding_json", size>>10), func(b *testing.B) {
				b.SetBytes(int64(len(doc)))
				defer reportCPU(b)()
				for b.Loop() {
					var v any
					if err := json.Unmarshal(doc, &v); err != nil {
						b.Fatal(err)
					}
					if _, err := json.Marshal(v); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}

// TestBenchInputsAgree keeps the benchmark honest: both engines accept the
// generated patches and produce the same document.
func TestBenchInputsAgree(t *testing.T) {
	doc, sections := benchDoc(10 << 10)
	patch := benchPatch(1000, sections)
	p, err := Decode(patch)
	require.NoError(t, err)
	ours, err := Apply(doc, p)
	require.NoError(t, err)
	ep, err := evanphx.DecodePatch(patch)
	require.NoError(t, err)
	theirs, err := ep.ApplyWithOptions(doc, &evanphx.ApplyOptions{EscapeHTML: false})
	require.NoError(t, err)
	require.JSONEq(t, string(theirs), string(ours))
	require.Equal(t, string(theirs), string(ours), "same bytes: names and values of this document need no re-encoding")
}

// BenchmarkApplyTopLevel uses a patch whose operations work on top-level
// members, so grouping cannot apply and Apply makes one whole-document
// evanphx call: this measures the cost of the checks around evanphx.
func BenchmarkApplyTopLevel(b *testing.B) {
	doc, _ := benchDoc(1 << 20)
	patch := []byte{'['}
	for i := range 1000 {
		if i > 0 {
			patch = append(patch, ',')
		}
		switch i % 4 {
		case 0:
			patch = fmt.Appendf(patch, `{"op":"add","path":"/k%d","value":{"v":%d,"s":"<&>"}}`, i, i)
		case 1:
			patch = fmt.Appendf(patch, `{"op":"test","path":"/schema","value":"memory_document_v2"}`)
		case 2:
			patch = fmt.Appendf(patch, `{"op":"replace","path":"/k%d","value":[%d]}`, i-2, i)
		case 3:
			patch = fmt.Appendf(patch, `{"op":"move","from":"/k%d","path":"/m%d"}`, i-3, i)
		}
	}
	patch = append(patch, ']')
	b.Run("impl=ours", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		defer reportCPU(b)()
		for b.Loop() {
			p, err := Decode(patch)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := Apply(doc, p); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("impl=evanphx", func(b *testing.B) {
		b.SetBytes(int64(len(doc)))
		opts := &evanphx.ApplyOptions{EscapeHTML: false}
		defer reportCPU(b)()
		for b.Loop() {
			p, err := evanphx.DecodePatch(patch)
			if err != nil {
				b.Fatal(err)
			}
			if _, err := p.ApplyWithOptions(doc, opts); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// reportCPU adds a cpu-ns/op metric: process CPU time per iteration, GC
// included, which a busy shared machine distorts less than wall time.
func reportCPU(b *testing.B) func() {
	runtime.GC()
	start := cputime.Process()
	return func() {
		if start > 0 && b.N > 0 {
			b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
		}
	}
}
