// Command jsbench times jsonpatch against fast-json-patch, the JavaScript
// library (JSON.parse, applyPatch with validation, JSON.stringify), and
// against evanphx/json-patch, on the documents and patches of jsonpatch's
// BenchmarkShapes, bytes in to bytes out. Run it with run.sh beside it,
// which installs fast-json-patch (pinned in js/package.json) first.
//
//	bash jsonpatch/internal/jsbench/run.sh [-secs 2] [-only 1MB/ops=1000]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	evanphx "github.com/evanphx/json-patch/v5"

	"github.com/mnemobank/mnemobank/jsonpatch"
	"github.com/mnemobank/mnemobank/jsonpatch/internal/benchgen"
)

type shape struct {
	name       string
	doc, patch []byte
}

func shapes() []shape {
	var out []shape
	mixed := func(size, ops int, name string) {
		doc, n := benchgen.Doc(size)
		out = append(out, shape{fmt.Sprintf("doc=%s/ops=%d", name, ops), doc, benchgen.Patch(n, ops, uint64(ops))})
	}
	for _, s := range []struct {
		size int
		name string
	}{{100 << 10, "100KB"}, {1 << 20, "1MB"}} {
		for _, ops := range []int{10, 100, 1000} {
			mixed(s.size, ops, s.name)
		}
	}
	mixed(10<<10, 1000, "10KB")
	doc, _ := benchgen.Doc(1 << 20)
	out = append(out, shape{"doc=1MB/toplevel=1000", doc, benchgen.TopLevelPatch(1000)})
	return out
}

func main() {
	secs := flag.Float64("secs", 2, "seconds to time each implementation per shape")
	only := flag.String("only", "", "run only the shapes whose name contains this")
	jsDir := flag.String("js", "js", "directory of bench.js and its node_modules")
	flag.Parse()
	log.SetFlags(0)
	tmp, err := os.MkdirTemp("", "jsbench")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	fmt.Println("| shape | jsonpatch ms | evanphx ms | fast-json-patch ms | jsonpatch/fast-json-patch | jsonpatch/evanphx |")
	fmt.Println("|---|---|---|---|---|---|")
	for _, s := range shapes() {
		if !strings.Contains(s.name, *only) {
			continue
		}
		docFile, patchFile := filepath.Join(tmp, "doc.json"), filepath.Join(tmp, "patch.json")
		if err := os.WriteFile(docFile, s.doc, 0o600); err != nil {
			log.Fatal(err)
		}
		if err := os.WriteFile(patchFile, s.patch, 0o600); err != nil {
			log.Fatal(err)
		}
		ours := timeGo(*secs, func() error {
			p, err := jsonpatch.Decode(s.patch)
			if err != nil {
				return err
			}
			_, err = jsonpatch.Apply(s.doc, p)
			return err
		})
		theirs := timeGo(*secs, func() error {
			p, err := evanphx.DecodePatch(s.patch)
			if err != nil {
				return err
			}
			_, err = p.ApplyWithOptions(s.doc, &evanphx.ApplyOptions{EscapeHTML: false})
			return err
		})
		js := timeNode(*jsDir, docFile, patchFile, *secs)
		fmt.Printf("| %s | %.2f | %.2f | %.2f | %.2fx | %.2fx |\n", s.name, ours/1e6, theirs/1e6, js/1e6, ours/js, ours/theirs)
	}
}

// timeGo returns the nanoseconds per call of f.
func timeGo(secs float64, f func() error) float64 {
	if err := f(); err != nil {
		log.Fatal(err)
	}
	var failed error
	r := testing.Benchmark(func(b *testing.B) {
		for b.Loop() {
			if err := f(); err != nil {
				failed = err
				b.FailNow()
			}
		}
	})
	if failed != nil {
		log.Fatal(failed)
	}
	// testing.Benchmark runs about a second; repeat to reach secs.
	best := float64(r.NsPerOp())
	for spent := r.T.Seconds(); spent < secs; {
		r := testing.Benchmark(func(b *testing.B) {
			for b.Loop() {
				_ = f()
			}
		})
		spent += r.T.Seconds()
		best = min(best, float64(r.NsPerOp()))
	}
	return best
}

// timeNode runs bench.js and returns its nanoseconds per run.
func timeNode(dir, docFile, patchFile string, secs float64) float64 {
	cmd := exec.Command("node", filepath.Join(dir, "bench.js"), docFile, patchFile, fmt.Sprint(secs))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		log.Fatalf("node bench.js: %v (did run.sh install fast-json-patch in %s?)", err, dir)
	}
	var res struct {
		NsPerOp float64 `json:"ns_per_op"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		log.Fatalf("node bench.js printed %q: %v", out, err)
	}
	return res.NsPerOp
}
