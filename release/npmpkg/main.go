// Command npmpkg makes the npm packages of mnemobank from GoReleaser's
// archives, the way esbuild and biome ship native binaries: one package per
// platform (@mnemobank/linux-x64, …) holding mnemobank and mnemobank-dot,
// with "os" and "cpu" so npm installs only the matching one, and the
// launcher package mnemobank, which lists them all as optional
// dependencies at the same version and runs the installed one. Nothing is
// downloaded at install time and no install script runs.
//
//	go -C release run ./npmpkg -dist ../dist -launcher ../npm/mnemobank -out ../dist/npm
//
// It checks every archive against GoReleaser's checksums.txt first. The
// package directories it writes are ready for npm pack (or npm publish).
package main

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"strings"
)

// scope is the npm scope of the platform packages.
const scope = "@mnemobank"

// binaries are the programs each archive must hold.
var binaries = []string{"mnemobank", "mnemobank-dot"}

// maxBinary bounds one extracted binary (they are about 10–40 MB).
const maxBinary = 256 << 20

var (
	errNoArchives = errors.New("no mnemobank_<version>_<os>_<arch> archives")
	errChecksum   = errors.New("checksum mismatch")
	errMissing    = errors.New("archive lacks a binary")
)

// archiveName matches GoReleaser's name_template in .goreleaser.yaml.
var archiveName = regexp.MustCompile(`^mnemobank_(.+)_(linux|darwin|windows)_(amd64|arm64)\.(tar\.gz|zip)$`)

func main() {
	if err := run(os.Args[1:], os.Stdout, os.Stderr); err != nil {
		if !errors.Is(err, flag.ErrHelp) {
			fmt.Fprintln(os.Stderr, "npmpkg:", err)
			os.Exit(1)
		}
	}
}

func run(args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("npmpkg", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dist := fs.String("dist", "dist", "GoReleaser's output: the archives and checksums.txt")
	launcher := fs.String("launcher", "npm/mnemobank", "the launcher package's sources")
	out := fs.String("out", "dist/npm", "where to write the package directories (replaced)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	sums, err := readChecksums(filepath.Join(*dist, "checksums.txt"))
	if err != nil {
		return err
	}
	entries, err := os.ReadDir(*dist)
	if err != nil {
		return err
	}
	if err := os.RemoveAll(*out); err != nil {
		return err
	}
	version := ""
	optional := map[string]string{}
	for _, e := range entries {
		m := archiveName.FindStringSubmatch(e.Name())
		if m == nil {
			continue
		}
		if version == "" {
			version = m[1]
		} else if m[1] != version {
			return fmt.Errorf("archives of two versions in %s: %s and %s; clean it (goreleaser --clean)", *dist, version, m[1])
		}
		file := filepath.Join(*dist, e.Name())
		if err := verify(file, sums[e.Name()]); err != nil {
			return err
		}
		npmOS, npmCPU := map[string]string{"linux": "linux", "darwin": "darwin", "windows": "win32"}[m[2]],
			map[string]string{"amd64": "x64", "arm64": "arm64"}[m[3]]
		name := scope + "/" + npmOS + "-" + npmCPU
		dir := filepath.Join(*out, npmOS+"-"+npmCPU)
		if err := platformPackage(file, m[4], m[2] == "windows", dir, name, version, npmOS, npmCPU); err != nil {
			return fmt.Errorf("%s: %w", e.Name(), err)
		}
		optional[name] = version
		fmt.Fprintf(stdout, "%s %s\t%s\n", name, version, dir)
	}
	if version == "" {
		return fmt.Errorf("%w in %s: run goreleaser release --snapshot --clean first", errNoArchives, *dist)
	}
	dir := filepath.Join(*out, "mnemobank")
	if err := launcherPackage(*launcher, dir, version, optional); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "mnemobank %s\t%s\n", version, dir)
	return nil
}

// readChecksums reads "<sha256>  <file>" lines.
func readChecksums(file string) (map[string]string, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	sums := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if fields := strings.Fields(sc.Text()); len(fields) == 2 {
			sums[fields[1]] = fields[0]
		}
	}
	return sums, sc.Err()
}

func verify(file, want string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	if got := hex.EncodeToString(h.Sum(nil)); got != want {
		return fmt.Errorf("%w: %s has sha256 %s, checksums.txt says %q", errChecksum, filepath.Base(file), got, want)
	}
	return nil
}

// platformPackage writes one platform's package: package.json and the
// binaries under bin/.
func platformPackage(archive, format string, windows bool, dir, name, version, npmOS, npmCPU string) error {
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	want := map[string]string{} // name in the archive -> file written
	for _, b := range binaries {
		if windows {
			b += ".exe"
		}
		want[b] = filepath.Join(dir, "bin", b)
	}
	var err error
	if format == "zip" {
		err = extractZip(archive, want)
	} else {
		err = extractTarGz(archive, want)
	}
	if err != nil {
		return err
	}
	for b, file := range want {
		if _, err := os.Stat(file); err != nil {
			return fmt.Errorf("%w: %s", errMissing, b)
		}
	}
	pkg := map[string]any{
		"name":            name,
		"version":         version,
		"description":     "The mnemobank MCP server's binaries for " + npmOS + " " + npmCPU + ". Install the mnemobank package, which picks this one.",
		"license":         "MIT",
		"repository":      map[string]string{"type": "git", "url": "git+https://github.com/mnemobank/mnemobank.git"},
		"os":              []string{npmOS},
		"cpu":             []string{npmCPU},
		"files":           []string{"bin"},
		"preferUnplugged": true,
	}
	return writeJSON(filepath.Join(dir, "package.json"), pkg)
}

// extract copies the wanted files out of an archive stream, by base name
// (GoReleaser puts the binaries at the archive's root).
func extract(name string, r io.Reader, want map[string]string) error {
	to, ok := want[path.Base(name)]
	if !ok || path.Dir(name) != "." {
		return nil
	}
	f, err := os.OpenFile(to, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	n, err := io.Copy(f, io.LimitReader(r, maxBinary+1))
	if err == nil && n > maxBinary {
		err = fmt.Errorf("%s is larger than %d bytes", name, maxBinary)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

func extractTarGz(file string, want map[string]string) error {
	f, err := os.Open(file)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		if h.Typeflag == tar.TypeReg {
			if err := extract(h.Name, tr, want); err != nil {
				return err
			}
		}
	}
}

func extractZip(file string, want map[string]string) error {
	zr, err := zip.OpenReader(file)
	if err != nil {
		return err
	}
	defer zr.Close()
	for _, zf := range zr.File {
		if zf.FileInfo().IsDir() {
			continue
		}
		rc, err := zf.Open()
		if err != nil {
			return err
		}
		err = extract(zf.Name, rc, want)
		rc.Close()
		if err != nil {
			return err
		}
	}
	return nil
}

// launcherPackage copies the launcher's sources and sets its version and
// optional dependencies.
func launcherPackage(src, dir, version string, optional map[string]string) error {
	data, err := os.ReadFile(filepath.Join(src, "package.json"))
	if err != nil {
		return err
	}
	var pkg map[string]any
	if err := json.Unmarshal(data, &pkg); err != nil {
		return fmt.Errorf("%s/package.json: %w", src, err)
	}
	pkg["version"] = version
	pkg["optionalDependencies"] = optional
	if err := os.MkdirAll(filepath.Join(dir, "bin"), 0o755); err != nil {
		return err
	}
	for _, f := range []string{"bin/mnemobank.js", "README.md"} {
		b, err := os.ReadFile(filepath.Join(src, f))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, f), b, 0o755); err != nil {
			return err
		}
	}
	return writeJSON(filepath.Join(dir, "package.json"), pkg)
}

func writeJSON(file string, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return err
	}
	return os.WriteFile(file, append(data, '\n'), 0o644)
}
