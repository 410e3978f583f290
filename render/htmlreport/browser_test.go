package htmlreport

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// browser finds a Chromium or Chrome to load the page in: $TALLY_BROWSER,
// else the usual names on PATH. Without one the browser tests skip, except
// under CI=true, where a missing browser is a failure (.ci/run installs
// Debian's chromium).
func browser(t testing.TB) string {
	t.Helper()
	if p := os.Getenv("TALLY_BROWSER"); p != "" {
		return p
	}
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome", "headless-shell"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("no Chromium or Chrome found on PATH, and CI=true requires the browser tests: install chromium (apt-get install -y chromium) or set TALLY_BROWSER")
	}
	t.Skip("no Chromium or Chrome found on PATH (set TALLY_BROWSER or apt-get install chromium): the HTML report's browser tests did not run")
	return ""
}

// One browser serves every test of the package, each in its own tab:
// starting Chromium is the slow part.
var (
	browserOnce   sync.Once
	browserCtx    context.Context
	browserErr    error
	browserCancel = func() {}
)

func TestMain(m *testing.M) {
	code := m.Run()
	browserCancel()
	os.Exit(code)
}

// openPage writes page to a file and loads it in a new tab of the headless
// browser; the returned context runs actions on it.
func openPage(t testing.TB, page []byte) context.Context {
	t.Helper()
	exe := browser(t)
	browserOnce.Do(func() {
		opts := append(chromedp.DefaultExecAllocatorOptions[:],
			chromedp.ExecPath(exe),
			chromedp.NoSandbox, // CI runs as root, where Chromium's sandbox cannot start
			chromedp.WindowSize(1280, 900),
		)
		actx, cancelAlloc := chromedp.NewExecAllocator(context.Background(), opts...)
		ctx, cancelCtx := chromedp.NewContext(actx)
		browserCtx, browserCancel = ctx, func() { cancelCtx(); cancelAlloc() }
		browserErr = chromedp.Do(ctx) // starts the browser
	})
	if browserErr != nil {
		t.Fatalf("starting %s: %v", exe, browserErr)
	}
	path := filepath.Join(t.TempDir(), "report.html")
	if err := os.WriteFile(path, page, 0o644); err != nil {
		t.Fatal(err)
	}
	ctx, cancelTab := chromedp.NewContext(browserCtx)
	ctx, cancelTimeout := context.WithTimeout(ctx, 60*time.Second)
	t.Cleanup(func() { cancelTimeout(); cancelTab() })
	if err := chromedp.Do(ctx, chromedp.Navigate("file://"+path), chromedp.WaitReady(chromedp.CSS("#data"))); err != nil {
		t.Fatalf("loading %s in %s: %v", path, exe, err)
	}
	return ctx
}

// screenshot saves the page as an artifact (go test -artifacts keeps it)
// and logs where it is.
func screenshot(t *testing.T, ctx context.Context, name string) {
	t.Helper()
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.ArtifactDir(), name)
	if err := os.WriteFile(path, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", path)
}

func eval[T any](t testing.TB, ctx context.Context, js string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](js))
	if err != nil {
		t.Fatalf("evaluating %s: %v", js, err)
	}
	return v
}
