// Command release releases every module of the mnemobank repository at one
// version, so that go install github.com/mnemobank/mnemobank/examples/mcp-server/cmd/mnemobank@v1.2.3
// works: it sets each nested module's requirements of the others to that
// version, writes their checksums into go.sum, moves go.work's replace
// directives to the version, commits, and tags the modules in dependency
// order (the root as v1.2.3, a nested module as <dir>/v1.2.3). It does not
// push: it prints the git push command for the tags.
//
//	go -C release run . -n v1.2.3   # dry run: print the plan, change nothing
//	go -C release run . v1.2.3
//
// Every module is tagged at the same commit: a module zip's checksum can be
// computed before its tag exists, so no round trip through the module proxy
// is needed between the tags. The release tool's own module is not tagged.
package main

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"

	"github.com/mnemobank/mnemobank/release/modset"
)

// toolModule is this program's own module, which is not released.
const toolModule = "github.com/mnemobank/mnemobank/release"

// errUsage: the command line was wrong.
var errUsage = errors.New("usage")

// errDirty: the work tree has changes, which the release commit would
// sweep in.
var errDirty = errors.New("the work tree has uncommitted changes")

// errTagExists: a tag of the release exists already.
var errTagExists = errors.New("tag exists already")

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
	case errors.Is(err, errUsage):
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(2)
	default:
		fmt.Fprintln(os.Stderr, "release:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	fs := flag.NewFlagSet("release", flag.ContinueOnError)
	fs.SetOutput(stderr)
	dryRun := fs.Bool("n", false, "dry run: print the tags and file changes, write nothing")
	repo := fs.String("C", "", "the repository's root (default: the git top level of the working directory)")
	fs.Usage = func() {
		fmt.Fprintln(stderr, "usage: go -C release run . [-n] [-C REPO] VERSION")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return fmt.Errorf("%w: want one VERSION (like v1.2.3), got %d arguments", errUsage, fs.NArg())
	}
	version := fs.Arg(0)
	root := *repo
	if root == "" {
		out, err := git(ctx, ".", "rev-parse", "--show-toplevel")
		if err != nil {
			return err
		}
		root = strings.TrimSpace(out)
	}
	mods, err := modset.Load(root, toolModule)
	if err != nil {
		return err
	}
	for _, m := range mods {
		if out, err := git(ctx, root, "tag", "--list", m.Tag(version)); err != nil {
			return err
		} else if strings.TrimSpace(out) != "" {
			return fmt.Errorf("%w: %s; pick a version not yet released", errTagExists, m.Tag(version))
		}
	}
	if !*dryRun {
		status, err := git(ctx, root, "status", "--porcelain")
		if err != nil {
			return err
		}
		if strings.TrimSpace(status) != "" {
			return fmt.Errorf("%w (commit or stash them first, or pass -n):\n%s", errDirty, status)
		}
	}
	work, err := os.MkdirTemp("", "release-zips-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(work)
	rel, err := modset.Build(mods, version, work)
	if err != nil {
		return err
	}
	printPlan(stdout, rel)
	if *dryRun {
		fmt.Fprintln(stdout, "dry run (-n): nothing written, no commit, no tag")
		return nil
	}
	if err := rel.WriteFiles(root); err != nil {
		return err
	}
	if _, err := git(ctx, root, "add", "-A", "."); err != nil {
		return err
	}
	if _, err := git(ctx, root, "commit", "-q", "-m", "release "+version+": the modules require each other at "+version); err != nil {
		return err
	}
	var tags []string
	for _, b := range rel.Modules {
		tag := b.Tag(version)
		if _, err := git(ctx, root, "tag", "-a", "-m", b.Path+" "+version, tag); err != nil {
			return err
		}
		tags = append(tags, tag)
	}
	fmt.Fprintf(stdout, "committed and tagged. Publish with:\n  git push origin HEAD %s\n", strings.Join(tags, " "))
	return nil
}

// printPlan writes, per module in release order, its tag and the changed
// requirement and checksum lines.
func printPlan(w io.Writer, rel *modset.Release) {
	fmt.Fprintf(w, "release %s, tags in dependency order:\n", rel.Version)
	for _, b := range rel.Modules {
		fmt.Fprintf(w, "\n  %s  (%s)\n", b.Tag(rel.Version), b.Path)
		diffLines(w, "go.mod", b.OldGoMod, b.GoMod)
		diffLines(w, "go.sum", b.OldGoSum, b.GoSum)
		fmt.Fprintf(w, "    zip %s\n", b.Sum)
	}
}

// diffLines prints the lines only one of old and new holds, - then +.
func diffLines(w io.Writer, name string, old, new []byte) {
	count := func(b []byte) map[string]int {
		m := map[string]int{}
		for _, l := range strings.Split(string(b), "\n") {
			m[l]++
		}
		return m
	}
	o, n := count(old), count(new)
	for _, l := range strings.Split(string(old), "\n") {
		if n[l] == 0 && strings.TrimSpace(l) != "" {
			fmt.Fprintf(w, "    %s - %s\n", name, strings.TrimSpace(l))
		}
	}
	for _, l := range strings.Split(string(new), "\n") {
		if o[l] == 0 && strings.TrimSpace(l) != "" {
			fmt.Fprintf(w, "    %s + %s\n", name, strings.TrimSpace(l))
		}
	}
}

func git(ctx context.Context, dir string, args ...string) (string, error) {
	cmd := exec.CommandContext(ctx, "git", args...)
	cmd.Dir = dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("git %s in %s: %w: %s", strings.Join(args, " "), filepath.Clean(dir), err, strings.TrimSpace(stderr.String()))
	}
	return string(out), nil
}
