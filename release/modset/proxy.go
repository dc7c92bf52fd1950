package modset

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"golang.org/x/mod/module"
)

// WriteProxy lays the release out in dir as a GOPROXY serves it
// (<escaped module path>/@v/list, .info, .mod, .zip), so that
// GOPROXY=file://dir,… resolves the release's modules as if they were
// tagged and pushed.
func (r *Release) WriteProxy(dir string) error {
	for _, b := range r.Modules {
		esc, err := module.EscapePath(b.Path)
		if err != nil {
			return err
		}
		v := filepath.Join(dir, filepath.FromSlash(esc), "@v")
		if err := os.MkdirAll(v, 0o755); err != nil {
			return err
		}
		info, err := json.Marshal(struct {
			Version string
			Time    time.Time
		}{r.Version, time.Now().UTC().Truncate(time.Second)})
		if err != nil {
			return err
		}
		for name, data := range map[string][]byte{
			"list":              []byte(r.Version + "\n"),
			r.Version + ".info": info,
			r.Version + ".mod":  b.GoMod,
		} {
			if err := os.WriteFile(filepath.Join(v, name), data, 0o644); err != nil {
				return err
			}
		}
		if err := copyFile(b.Zip, filepath.Join(v, r.Version+".zip")); err != nil {
			return fmt.Errorf("modset: proxy zip of %s: %w", b.Path, err)
		}
	}
	return nil
}

func copyFile(from, to string) error {
	in, err := os.Open(from)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}
