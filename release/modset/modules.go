// Package modset finds the modules of the mnemobank repository, orders them
// so that every module comes after the repository modules it requires, and
// makes what releasing them all at one version takes: each go.mod requiring
// the others at that version, each go.sum holding their checksums, and the
// module zips a GOPROXY would serve for the tags.
//
// Every module is released at the same version from one commit: the root as
// tag v1.2.3, a nested module as <its directory>/v1.2.3 (the form the go
// command looks for). Because the checksums of a module's zip can be computed
// before it is tagged, one commit holds every go.mod and go.sum of the
// release, and the tags can be pushed together. The files of a module are
// those git tracks or would track (git ls-files, honouring .gitignore),
// without nested modules' directories, as a tag of the commit holds them.
package modset

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"golang.org/x/mod/modfile"
)

// Errors of this package, checked with errors.Is.
var (
	// ErrVersion: the version is not a canonical semantic version (v1.2.3,
	// v1.2.3-rc.1).
	ErrVersion = errors.New("modset: not a canonical semantic version")
	// ErrCycle: the repository's modules require each other in a cycle, so
	// no order tags each after what it requires.
	ErrCycle = errors.New("modset: modules require each other in a cycle")
	// ErrWorkspace: the repository root has no usable go.work.
	ErrWorkspace = errors.New("modset: no usable go.work at the repository root")
)

// Module is one module of the repository.
type Module struct {
	Path string // module path, from its go.mod
	Dir  string // absolute directory
	Rel  string // directory relative to the repository root, slash-separated; "." for the root
	// Requires lists the repository modules this one requires directly,
	// by module path.
	Requires []string
}

// Tag is the git tag that releases m at version: the version for the
// module at the repository root, "dir/version" for a nested one.
func (m Module) Tag(version string) string {
	if m.Rel == "." {
		return version
	}
	return m.Rel + "/" + version
}

// Load reads the modules the go.work at root uses, leaving out those whose
// module path is in skip, and returns them in release order: every module
// after the repository modules it requires, ties broken by path.
func Load(root string, skip ...string) ([]Module, error) {
	root, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(filepath.Join(root, "go.work"))
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWorkspace, err)
	}
	wf, err := modfile.ParseWork(filepath.Join(root, "go.work"), data, nil)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrWorkspace, err)
	}
	var mods []Module
	byPath := map[string]bool{}
	files := map[string]*modfile.File{}
	for _, u := range wf.Use {
		dir := filepath.Join(root, filepath.FromSlash(u.Path))
		gomod := filepath.Join(dir, "go.mod")
		data, err := os.ReadFile(gomod)
		if err != nil {
			return nil, fmt.Errorf("%w: go.work uses %s: %w", ErrWorkspace, u.Path, err)
		}
		f, err := modfile.ParseLax(gomod, data, nil)
		if err != nil {
			return nil, err
		}
		if f.Module == nil {
			return nil, fmt.Errorf("%w: %s has no module line", ErrWorkspace, gomod)
		}
		if slices.Contains(skip, f.Module.Mod.Path) {
			continue
		}
		rel, err := filepath.Rel(root, dir)
		if err != nil {
			return nil, err
		}
		mods = append(mods, Module{Path: f.Module.Mod.Path, Dir: dir, Rel: filepath.ToSlash(rel)})
		byPath[f.Module.Mod.Path] = true
		files[f.Module.Mod.Path] = f
	}
	for i := range mods {
		for _, r := range files[mods[i].Path].Require {
			if byPath[r.Mod.Path] {
				mods[i].Requires = append(mods[i].Requires, r.Mod.Path)
			}
		}
		slices.Sort(mods[i].Requires)
	}
	return order(mods)
}

// order sorts mods so that each comes after what it requires (Kahn's
// algorithm, taking the smallest path first so the order is stable).
func order(mods []Module) ([]Module, error) {
	slices.SortFunc(mods, func(a, b Module) int { return strings.Compare(a.Path, b.Path) })
	done := map[string]bool{}
	var out []Module
	for len(out) < len(mods) {
		progressed := false
		for _, m := range mods {
			if done[m.Path] {
				continue
			}
			ready := true
			for _, r := range m.Requires {
				if !done[r] {
					ready = false
					break
				}
			}
			if ready {
				out = append(out, m)
				done[m.Path] = true
				progressed = true
				break
			}
		}
		if !progressed {
			var left []string
			for _, m := range mods {
				if !done[m.Path] {
					left = append(left, m.Path)
				}
			}
			return nil, fmt.Errorf("%w: %s", ErrCycle, strings.Join(left, ", "))
		}
	}
	return out, nil
}
