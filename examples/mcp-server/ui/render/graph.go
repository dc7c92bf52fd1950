package render

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// Limits for GraphSVG: the DOT text's size (checked here, before any
// program starts) and the graph's node count (checked by mnemobank-dot
// before layout, the expensive step).
const (
	MaxDOTBytes   = 256 << 10
	MaxGraphNodes = 1000
)

// RendererEnv names the environment variable that, when set, is the
// renderer program GraphSVG runs: a path, or a name looked up on PATH.
const RendererEnv = "MNEMOBANK_DOT"

// RendererName is the renderer command's name (cmd/mnemobank-dot).
const RendererName = "mnemobank-dot"

const (
	// maxStderrBytes of a renderer's standard error are kept for its error.
	maxStderrBytes = 4 << 10
	// maxRenderers run at once; a further GraphSVG waits (honouring ctx).
	maxRenderers = 2
	// waitDelay is how long a renderer's pipes may stay open after it was
	// killed (a child of its own holding them) before Wait gives up.
	waitDelay = time.Second
)

var renderers = make(chan struct{}, maxRenderers)

// GraphSVG draws a Graphviz DOT graph (as skillgraph.DOT writes it) as SVG
// by running a renderer program, so that no Graphviz is loaded into this
// process. The program is, in this order: the one RendererEnv names;
// mnemobank-dot in the directory of the running executable; mnemobank-dot
// on PATH; Graphviz's dot on PATH, run as "dot -Tsvg". It gets the DOT on
// standard input, no shell and no arguments of the graph's, and is killed
// when ctx ends.
//
// Errors: *LimitError (ErrTooLarge) above MaxDOTBytes, and *SyntaxError
// (ErrSyntax) for a string or comment never closed (CheckDOT), before any
// program runs; *NoRendererError (ErrNoRenderer) when no program is found;
// *RendererError when the program fails (wrapping ErrSyntax for
// mnemobank-dot's exit status 3, ErrTooLarge for its 2 or for more than
// MaxSVGBytes of output, ctx's error when it was stopped for ctx, else
// ErrRenderer); *SyntaxError (ErrSyntax, Format "SVG") when its output is
// not one SVG document.
//
// Script in the picture is stopped in three layers: the program's output
// goes through SanitizeSVG here, whichever program wrote it; the page
// embeds the result with <img>, which never runs script in an SVG; and the
// SVG is served with a Content-Security-Policy of default-src 'none'.
func GraphSVG(ctx context.Context, dot []byte) ([]byte, error) {
	if len(dot) > MaxDOTBytes {
		return nil, &LimitError{What: "DOT graph bytes", Limit: MaxDOTBytes, Got: int64(len(dot)), Err: ErrTooLarge}
	}
	if err := CheckDOT(dot); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	prog, args, err := FindRenderer()
	if err != nil {
		return nil, err
	}
	select {
	case renderers <- struct{}{}:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	defer func() { <-renderers }()
	raw, err := runRenderer(ctx, prog, args, dot)
	if err != nil {
		return nil, err
	}
	return SanitizeSVG(raw)
}

// FindRenderer returns the renderer program GraphSVG would run and its
// arguments, or a *NoRendererError (ErrNoRenderer) saying where it looked.
// A RendererEnv naming nothing runnable is that error too: a renderer the
// person chose is never silently replaced by another.
func FindRenderer() (path string, args []string, err error) {
	var searched []string
	if v := os.Getenv(RendererEnv); v != "" {
		p, err := exec.LookPath(v)
		if err != nil {
			return "", nil, &NoRendererError{Searched: []string{fmt.Sprintf("%s=%q: %v", RendererEnv, v, err)}}
		}
		return p, nil, nil
	}
	searched = append(searched, RendererEnv+": not set")
	if exe, err := os.Executable(); err == nil {
		beside := filepath.Join(filepath.Dir(exe), RendererName)
		if p, err := exec.LookPath(beside); err == nil {
			return p, nil, nil
		}
		searched = append(searched, beside+": not found")
	}
	if p, err := exec.LookPath(RendererName); err == nil {
		return p, nil, nil
	}
	searched = append(searched, RendererName+" on PATH: not found")
	if p, err := exec.LookPath("dot"); err == nil {
		return p, []string{"-Tsvg"}, nil
	}
	searched = append(searched, "dot on PATH: not found")
	return "", nil, &NoRendererError{Searched: searched}
}

// runRenderer runs prog with dot on its standard input and returns its
// standard output, at most MaxSVGBytes of it.
func runRenderer(ctx context.Context, prog string, args []string, dot []byte) ([]byte, error) {
	cmd := exec.CommandContext(ctx, prog, args...)
	cmd.Stdin = bytes.NewReader(dot)
	stderr := &headBuffer{max: maxStderrBytes}
	cmd.Stderr = stderr
	cmd.WaitDelay = waitDelay
	// Graphviz's dot opens the files a graph names (image=, shapefile=, an
	// HTML label's IMG) unless SERVER_NAME is set: then it loads them only
	// from GV_FILE_PATH, which is cleared, so it loads none.
	// mnemobank-dot has no file system to read in the first place.
	cmd.Env = append(os.Environ(), "SERVER_NAME=mnemobank", "GV_FILE_PATH=")
	// Output goes through exec's own copying, not a pipe read here, so
	// that WaitDelay also ends a wait on a pipe still held open by a child
	// of a killed program (a script's sleep).
	stdout := &limitBuffer{max: MaxSVGBytes, full: func() { _ = cmd.Process.Kill() }}
	cmd.Stdout = stdout
	if err := cmd.Start(); err != nil {
		return nil, &RendererError{Program: prog, Status: -1, Err: fmt.Errorf("%w: starting it: %v", ErrRenderer, err)}
	}
	waitErr := cmd.Wait()
	fail := func(err error) error {
		status := -1
		if cmd.ProcessState != nil && cmd.ProcessState.Exited() {
			status = cmd.ProcessState.ExitCode()
		}
		return &RendererError{Program: prog, Status: status, Stderr: strings.TrimSpace(stderr.String()), Err: err}
	}
	switch {
	case ctx.Err() != nil:
		return nil, fail(ctx.Err())
	case stdout.over:
		return nil, fail(&LimitError{What: "renderer output bytes", Limit: MaxSVGBytes, Got: int64(stdout.buf.Len()) + 1, Err: ErrTooLarge})
	case waitErr != nil:
		var ee *exec.ExitError
		if errors.As(waitErr, &ee) && args == nil {
			switch ee.ExitCode() {
			case 2:
				return nil, fail(ErrTooLarge)
			case 3:
				return nil, fail(ErrSyntax)
			}
		}
		return nil, fail(fmt.Errorf("%w: %v", ErrRenderer, waitErr))
	}
	return stdout.buf.Bytes(), nil
}

// errOutputFull stops exec's copying of a renderer's output at the limit.
var errOutputFull = errors.New("render: renderer output above the limit")

// limitBuffer keeps at most max bytes; the write that would pass max fails
// (exec then closes the pipe) and calls full once.
type limitBuffer struct {
	buf  bytes.Buffer
	max  int
	over bool
	full func()
}

func (b *limitBuffer) Write(p []byte) (int, error) {
	if b.over || b.buf.Len()+len(p) > b.max {
		if !b.over {
			b.over = true
			b.full()
		}
		return 0, errOutputFull
	}
	return b.buf.Write(p)
}

// headBuffer keeps the first max bytes written to it and discards the
// rest without failing, so a chatty program is not stopped by a full
// pipe or a write error.
type headBuffer struct {
	buf bytes.Buffer
	max int
	cut bool
}

func (b *headBuffer) Write(p []byte) (int, error) {
	n := len(p)
	room := b.max - b.buf.Len()
	if n > room {
		b.cut = true
		p = p[:max(room, 0)]
	}
	b.buf.Write(p)
	return n, nil
}
func (b *headBuffer) String() string {
	if b.cut {
		return b.buf.String() + " …(cut)"
	}
	return b.buf.String()
}
