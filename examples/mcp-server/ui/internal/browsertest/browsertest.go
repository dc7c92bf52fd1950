// Package browsertest starts a real headless Chromium for the viewer's
// end-to-end tests and gives each test a tab, a record of the JavaScript
// dialogs pages open (an alert() is the classic sign that injected script
// ran) and full-page screenshots saved as test artefacts.
//
// The browser is Debian's chromium (or chromium-browser, or google-chrome)
// found on PATH; MNEMOBANK_CHROME names another executable. Without one the
// test is skipped with a message saying what to install: .ci/run installs
// chromium, so CI skips only when the install itself failed.
package browsertest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// Browsers are the executables looked up on PATH, in order.
var Browsers = []string{"chromium", "chromium-browser", "google-chrome"}

// EnvChrome names an environment variable that, when set, is the browser
// executable to use instead of a PATH lookup.
const EnvChrome = "MNEMOBANK_CHROME"

// EnvScreenshots names an environment variable that, when set, is the
// folder Screenshot writes to (made when missing).
const EnvScreenshots = "MNEMOBANK_UI_SCREENSHOTS"

// Find returns the browser executable: $MNEMOBANK_CHROME when set, else
// the first of Browsers on PATH. It returns "" and why when there is none.
func Find() (path, why string) {
	if p := os.Getenv(EnvChrome); p != "" {
		if abs, err := exec.LookPath(p); err == nil {
			return abs, ""
		}
		return "", fmt.Sprintf("%s=%q is not an executable", EnvChrome, p)
	}
	for _, name := range Browsers {
		if p, err := exec.LookPath(name); err == nil {
			return p, ""
		}
	}
	return "", "no chromium on PATH (install Debian's chromium)"
}

type dialogKey struct{}

// dialogLog records the dialogs a tab opened.
type dialogLog struct {
	mu   sync.Mutex
	msgs []string
}

// New starts a headless browser for t, with one tab, and returns the tab's
// context; the browser is stopped when t ends. Every JavaScript dialog
// (alert, confirm, prompt) the tab opens is dismissed and recorded for
// Dialogs. It skips t when no browser is found (see Find).
func New(t testing.TB) context.Context {
	t.Helper()
	path, why := Find()
	if path == "" {
		if os.Getenv(EnvChrome) != "" {
			t.Fatalf("browsertest: %s", why)
		}
		t.Skip(why)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:],
		chromedp.ExecPath(path),
		chromedp.WindowSize(1280, 900),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("hide-scrollbars", true),
	)
	if runtime.GOOS == "linux" && os.Geteuid() == 0 {
		// Chromium refuses to start its sandbox as root.
		opts = append(opts, chromedp.NoSandbox)
	}
	allocCtx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancelTab := chromedp.NewContext(allocCtx, chromedp.WithLogf(t.Logf))
	t.Cleanup(func() {
		cancelTab()
		cancelAlloc()
	})
	if err := chromedp.Do(ctx); err != nil { // starts the browser and opens the tab
		t.Fatalf("browsertest: starting %s: %v", path, err)
	}
	log := &dialogLog{}
	dialogs := chromedp.Events(ctx, page.JavascriptDialogOpening)
	go func() {
		for ev, err := range dialogs {
			if err != nil {
				return
			}
			log.mu.Lock()
			log.msgs = append(log.msgs, fmt.Sprintf("%s: %s", ev.Type, ev.Message))
			log.mu.Unlock()
			// A dialog blocks the page until it is closed; dismiss it so the
			// test goes on and sees the record instead of a hang.
			_, _ = chromedp.Call(ctx, page.HandleJavaScriptDialog, page.HandleJavaScriptDialogParams{Accept: false})
		}
	}()
	return context.WithValue(ctx, dialogKey{}, log)
}

// Dialogs returns the dialogs the tab of ctx (from New) has opened so far,
// each as "type: message".
func Dialogs(ctx context.Context) []string {
	log, _ := ctx.Value(dialogKey{}).(*dialogLog)
	if log == nil {
		return nil
	}
	log.mu.Lock()
	defer log.mu.Unlock()
	return append([]string(nil), log.msgs...)
}

var unsafeName = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// Screenshot saves a full-page PNG of the tab of ctx as name.png in
// $MNEMOBANK_UI_SCREENSHOTS when set, else in t.TempDir(), and logs the
// path. Characters other than letters, digits, '.', '_' and '-' in name
// become '_', so the file stays in that folder.
func Screenshot(t testing.TB, ctx context.Context, name string) string {
	t.Helper()
	dir := os.Getenv(EnvScreenshots)
	if dir == "" {
		dir = t.TempDir()
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatalf("browsertest: screenshot folder: %v", err)
	}
	// A page reached by a click can be in the DOM before its first layout,
	// and the browser refuses a screenshot of a page with no width: wait
	// (bounded) for a loaded document that has been laid out.
	_, err := chromedp.Run(ctx, chromedp.Poll[chromedp.Void](
		`document.readyState === "complete" && document.documentElement.getBoundingClientRect().width > 0`,
		chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatalf("browsertest: screenshot %s: the page was not laid out: %v", name, err)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatalf("browsertest: screenshot %s: %v", name, err)
	}
	path := filepath.Join(dir, unsafeName.ReplaceAllString(name, "_")+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatalf("browsertest: screenshot %s: %v", name, err)
	}
	t.Logf("screenshot %s", path)
	return path
}
