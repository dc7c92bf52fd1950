package modset

import (
	"os"
	"path/filepath"

	"golang.org/x/mod/modfile"
)

// WriteFiles writes the release's go.mod and go.sum files into the
// checkout, and moves the version-specific replace directives of the
// go.work at root (repository module at the old version => its directory)
// to the release's version, so the workspace still builds every module from
// its directory.
func (r *Release) WriteFiles(root string) error {
	for _, b := range r.Modules {
		if err := os.WriteFile(filepath.Join(b.Dir, "go.mod"), b.GoMod, 0o644); err != nil {
			return err
		}
		if b.GoSum != nil {
			if err := os.WriteFile(filepath.Join(b.Dir, "go.sum"), b.GoSum, 0o644); err != nil {
				return err
			}
		}
	}
	work, err := r.GoWork(root)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(root, "go.work"), work, 0o644)
}

// GoWork returns the go.work at root as WriteFiles leaves it.
func (r *Release) GoWork(root string) ([]byte, error) {
	name := filepath.Join(root, "go.work")
	data, err := os.ReadFile(name)
	if err != nil {
		return nil, err
	}
	wf, err := modfile.ParseWork(name, data, nil)
	if err != nil {
		return nil, err
	}
	ours := map[string]bool{}
	for _, b := range r.Modules {
		ours[b.Path] = true
	}
	// The version token is changed where it stands, so the block, its
	// comments and the order stay as written.
	for _, rep := range wf.Replace {
		if !ours[rep.Old.Path] || rep.Old.Version == "" || rep.Old.Version == r.Version {
			continue
		}
		tok := rep.Syntax.Token
		for i := 0; i+1 < len(tok); i++ {
			if tok[i] == rep.Old.Path && tok[i+1] == rep.Old.Version {
				tok[i+1] = r.Version
				break
			}
		}
		rep.Old.Version = r.Version
	}
	wf.Cleanup()
	return modfile.Format(wf.Syntax), nil
}
