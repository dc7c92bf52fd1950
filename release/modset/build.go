package modset

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"golang.org/x/mod/modfile"
	"golang.org/x/mod/module"
	"golang.org/x/mod/semver"
	"golang.org/x/mod/sumdb/dirhash"
	modzip "golang.org/x/mod/zip"
)

// Release is every module of the repository made ready for one version.
type Release struct {
	Version string
	Modules []*Built // in release order
	dir     string   // holds the zips
}

// Built is one module as its tag will hold it.
type Built struct {
	Module
	OldGoMod, GoMod []byte // go.mod now and at the release
	OldGoSum, GoSum []byte // go.sum now (nil when absent) and at the release
	Zip             string // path of the module zip
	Sum             string // "h1:…" of the zip, the go.sum line for the module
	ModSum          string // "h1:…" of go.mod, the go.sum line for path version/go.mod
}

// Build prepares mods (in release order, as Load returns them) for
// version, writing the module zips into workDir.
func Build(mods []Module, version, workDir string) (*Release, error) {
	if !semver.IsValid(version) || semver.Canonical(version) != version {
		return nil, fmt.Errorf("%w: %q; write it like v1.2.3 or v1.2.3-rc.1", ErrVersion, version)
	}
	rel := &Release{Version: version, dir: workDir}
	built := map[string]*Built{}
	for _, m := range mods {
		b := &Built{Module: m}
		var err error
		if b.OldGoMod, err = os.ReadFile(filepath.Join(m.Dir, "go.mod")); err != nil {
			return nil, err
		}
		if b.OldGoSum, err = os.ReadFile(filepath.Join(m.Dir, "go.sum")); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		if b.GoMod, err = rewriteGoMod(m, b.OldGoMod, version); err != nil {
			return nil, err
		}
		var deps []*Built
		for _, p := range closure(m, mods) {
			d := built[p]
			if d == nil {
				return nil, fmt.Errorf("modset: %s requires %s, which comes later in the order given: pass the modules as Load orders them", m.Path, p)
			}
			deps = append(deps, d)
		}
		b.GoSum = rewriteGoSum(b.OldGoSum, mods, deps, version)
		if b.ModSum, err = goModSum(b.GoMod); err != nil {
			return nil, err
		}
		b.Zip = filepath.Join(workDir, strings.ReplaceAll(m.Path, "/", "_")+"@"+version+".zip")
		if err := b.writeZip(version); err != nil {
			return nil, err
		}
		if b.Sum, err = dirhash.HashZip(b.Zip, dirhash.DefaultHash); err != nil {
			return nil, err
		}
		built[m.Path] = b
		rel.Modules = append(rel.Modules, b)
	}
	return rel, nil
}

// closure lists the repository modules m needs at the release, directly or
// through another repository module, so its go.sum holds each checksum.
func closure(m Module, mods []Module) []string {
	byPath := map[string]Module{}
	for _, x := range mods {
		byPath[x.Path] = x
	}
	seen := map[string]bool{}
	var visit func(p string)
	visit = func(p string) {
		for _, r := range byPath[p].Requires {
			if !seen[r] {
				seen[r] = true
				visit(r)
			}
		}
	}
	visit(m.Path)
	out := make([]string, 0, len(seen))
	for p := range seen {
		out = append(out, p)
	}
	slices.Sort(out)
	return out
}

// rewriteGoMod sets every requirement of a repository module to version,
// keeping everything else (comments included) as it is.
func rewriteGoMod(m Module, data []byte, version string) ([]byte, error) {
	f, err := modfile.Parse(filepath.Join(m.Dir, "go.mod"), data, nil)
	if err != nil {
		return nil, err
	}
	if len(f.Replace) > 0 {
		// go install pkg@version refuses a module with replace directives.
		return nil, fmt.Errorf("modset: %s/go.mod has replace directives (%s => …): go install …@%s would refuse the module; move them to go.work",
			m.Rel, f.Replace[0].Old.Path, version)
	}
	for _, r := range m.Requires {
		if err := f.AddRequire(r, version); err != nil {
			return nil, err
		}
	}
	f.Cleanup()
	return modfile.Format(f.Syntax), nil
}

// rewriteGoSum drops every line of a repository module and adds the lines
// of deps at version, keeping the other lines in go's order.
func rewriteGoSum(old []byte, mods []Module, deps []*Built, version string) []byte {
	ours := map[string]bool{}
	for _, m := range mods {
		ours[m.Path] = true
	}
	var lines []string
	sc := bufio.NewScanner(bytes.NewReader(old))
	for sc.Scan() {
		line := sc.Text()
		if f := strings.Fields(line); len(f) == 3 && ours[f[0]] {
			continue
		}
		if strings.TrimSpace(line) != "" {
			lines = append(lines, line)
		}
	}
	for _, d := range deps {
		lines = append(lines, d.Path+" "+version+" "+d.Sum, d.Path+" "+version+"/go.mod "+d.ModSum)
	}
	slices.SortStableFunc(lines, func(a, b string) int {
		fa, fb := strings.Fields(a), strings.Fields(b)
		if c := strings.Compare(fa[0], fb[0]); c != 0 {
			return c
		}
		va, vb := strings.TrimSuffix(fa[1], "/go.mod"), strings.TrimSuffix(fb[1], "/go.mod")
		if c := semver.Compare(va, vb); c != 0 {
			return c
		}
		return strings.Compare(fa[1], fb[1])
	})
	if len(lines) == 0 {
		return nil
	}
	return []byte(strings.Join(lines, "\n") + "\n")
}

// goModSum is the go.sum hash of a go.mod file, as the go command computes
// it (the hash of a tree holding that one file).
func goModSum(gomod []byte) (string, error) {
	return dirhash.DefaultHash([]string{"go.mod"}, func(string) (io.ReadCloser, error) {
		return io.NopCloser(bytes.NewReader(gomod)), nil
	})
}

// writeZip writes the module zip of b at version: the files of its
// directory git tracks or would track, without nested modules, with the
// release's go.mod and go.sum.
func (b *Built) writeZip(version string) error {
	files, err := moduleFiles(b.Dir)
	if err != nil {
		return err
	}
	var zf []modzip.File
	for _, name := range files {
		switch name {
		case "go.mod", "go.sum":
			continue
		}
		zf = append(zf, diskFile{name: name, path: filepath.Join(b.Dir, filepath.FromSlash(name))})
	}
	zf = append(zf, memFile{name: "go.mod", data: b.GoMod})
	if b.GoSum != nil {
		zf = append(zf, memFile{name: "go.sum", data: b.GoSum})
	}
	out, err := os.Create(b.Zip)
	if err != nil {
		return err
	}
	if err := modzip.Create(out, module.Version{Path: b.Path, Version: version}, zf); err != nil {
		out.Close()
		return fmt.Errorf("modset: zipping %s: %w", b.Path, err)
	}
	return out.Close()
}

// moduleFiles lists the files of the module in dir (slash-separated,
// relative to dir) as git would put them in a commit: tracked files that
// still exist and untracked ones .gitignore does not exclude, leaving out
// the directories of nested modules.
func moduleFiles(dir string) ([]string, error) {
	cmd := exec.Command("git", "ls-files", "-z", "--cached", "--others", "--exclude-standard", ".")
	cmd.Dir = dir
	out, err := cmd.Output()
	if err != nil {
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return nil, fmt.Errorf("modset: git ls-files in %s: %w: %s", dir, err, ee.Stderr)
		}
		return nil, fmt.Errorf("modset: git ls-files in %s: %w", dir, err)
	}
	var names []string
	nested := map[string]bool{}
	for _, name := range strings.Split(string(out), "\x00") {
		if name == "" {
			continue
		}
		if path.Base(name) == "go.mod" && name != "go.mod" {
			nested[path.Dir(name)] = true
		}
		names = append(names, name)
	}
	seen := map[string]bool{}
	var files []string
	for _, name := range names {
		if seen[name] || inNested(name, nested) {
			continue
		}
		seen[name] = true
		if _, err := os.Lstat(filepath.Join(dir, filepath.FromSlash(name))); errors.Is(err, fs.ErrNotExist) {
			continue // deleted in the work tree: the commit will not hold it
		}
		files = append(files, name)
	}
	slices.Sort(files)
	return files, nil
}

func inNested(name string, nested map[string]bool) bool {
	for d := path.Dir(name); d != "."; d = path.Dir(d) {
		if nested[d] {
			return true
		}
	}
	return false
}

type diskFile struct{ name, path string }

func (f diskFile) Path() string                 { return f.name }
func (f diskFile) Lstat() (os.FileInfo, error)  { return os.Lstat(f.path) }
func (f diskFile) Open() (io.ReadCloser, error) { return os.Open(f.path) }

type memFile struct {
	name string
	data []byte
}

func (f memFile) Path() string                 { return f.name }
func (f memFile) Lstat() (os.FileInfo, error)  { return memInfo{f}, nil }
func (f memFile) Open() (io.ReadCloser, error) { return io.NopCloser(bytes.NewReader(f.data)), nil }

type memInfo struct{ f memFile }

func (i memInfo) Name() string       { return path.Base(i.f.name) }
func (i memInfo) Size() int64        { return int64(len(i.f.data)) }
func (i memInfo) Mode() fs.FileMode  { return 0o644 }
func (i memInfo) ModTime() time.Time { return time.Time{} }
func (i memInfo) IsDir() bool        { return false }
func (i memInfo) Sys() any           { return nil }
