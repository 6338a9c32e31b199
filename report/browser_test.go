package report_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/pvrdma-doctor/pvrdma-doctor/report"
)

// The HTML report in a real browser (Debian's chromium, headless, driven
// over the DevTools protocol by chromedp): it loads with no console error
// and no request leaving the page, every finding and group has an anchor
// that the links reach, nothing overflows at 1280 and 390 pixels wide, and
// a screenshot of each width goes to the test's artefacts (go test
// -artifacts keeps them). scripts/test-deps.sh installs chromium; without
// it the test is skipped, saying so.

func chromium(t *testing.T) string {
	t.Helper()
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome", "google-chrome-stable"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	t.Skip("no chromium on PATH: the browser test of the HTML report needs it (scripts/test-deps.sh installs Debian's chromium)")
	return ""
}

// browse opens a browser for the test: headless, offline in all but name
// (no background networking, component updates, sync or QUIC), a fresh
// profile.
func browse(t *testing.T) context.Context {
	t.Helper()
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(chromium(t)),
		chromedp.Flag("headless", true),
		chromedp.Flag("no-sandbox", true),
		chromedp.Flag("disable-gpu", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("no-first-run", true),
		chromedp.Flag("no-default-browser-check", true),
		chromedp.Flag("disable-background-networking", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true),
		chromedp.Flag("disable-extensions", true),
		chromedp.Flag("disable-dev-shm-usage", true),
		// The anchor test follows a thousand links in a row.
		chromedp.Flag("disable-ipc-flooding-protection", true),
		chromedp.UserDataDir(t.TempDir()),
	}
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel2 := chromedp.NewContext(actx)
	t.Cleanup(cancel2)
	// Generous: the CI box is a busy 2-core machine; this bounds a hang,
	// it does not measure speed.
	ctx, cancel3 := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(cancel3)
	return ctx
}

// artifactDir is where screenshots go.
func artifactDir(t *testing.T) string {
	d := t.ArtifactDir()
	t.Logf("artefacts in %s", d)
	return d
}

const overflowJS = `(() => {
  const w = document.documentElement.clientWidth;
  const out = [];
  if (document.documentElement.scrollWidth > w + 1) out.push("page scrolls sideways: " + document.documentElement.scrollWidth + " > " + w);
  for (const el of document.body.querySelectorAll("*")) {
    const r = el.getBoundingClientRect();
    if (r.width === 0 || r.right <= w + 1) continue;
    let p = el.parentElement, clipped = false;
    while (p && p !== document.body) {
      const ox = getComputedStyle(p).overflowX;
      if (ox === "auto" || ox === "scroll" || ox === "hidden") { clipped = true; break; }
      p = p.parentElement;
    }
    if (!clipped) out.push(el.tagName.toLowerCase() + (el.id ? "#" + el.id : "") + (el.className && el.className.baseVal === undefined ? "." + el.className : "") + " right " + Math.round(r.right) + " > " + w);
  }
  return out.slice(0, 20);
})()`

// anchorsJS follows every in-page link the way a click does (a fragment
// navigation): the browser must resolve it to its element (:target) and,
// for a sample spread over the page, scroll that element into view.
const anchorsJS = `(async () => {
  const bad = [];
  const targets = [...new Set([...document.querySelectorAll('a[href^="#"]')].map(a => a.getAttribute("href").slice(1)))];
  const step = Math.max(1, Math.floor(targets.length / 60));
  for (let i = 0; i < targets.length; i++) {
    const id = targets[i];
    const el = document.getElementById(id);
    if (!el) { bad.push("#" + id + ": no such element"); continue; }
    location.hash = "#" + id;
    if (document.querySelector(":target") !== el) { bad.push("#" + id + ": not the target"); continue; }
    if (i % step) continue;
    await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
    const r = el.getBoundingClientRect();
    const atEnd = window.scrollY + window.innerHeight >= document.documentElement.scrollHeight - 2;
    if (r.top < -1 || (r.top > window.innerHeight && !atEnd)) bad.push("#" + id + ": not scrolled into view (top " + Math.round(r.top) + ")");
  }
  return {bad: bad.slice(0, 20), links: targets.length};
})()`

type anchorResult struct {
	Bad   []string `json:"bad"`
	Links int      `json:"links"`
}

func TestHTMLReportInBrowser(t *testing.T) {
	ctx := browse(t)
	dir := t.TempDir()
	art := artifactDir(t)
	for _, c := range []struct {
		name string
		r    *report.Report
	}{
		{"mixed", mixedReport(t)},
		{"500vms", scanScenario(t, manyVMs(t, 10, 50))},
	} {
		t.Run(c.name, func(t *testing.T) {
			var html bytes.Buffer
			if err := report.WriteHTML(&html, c.r); err != nil {
				t.Fatal(err)
			}
			page := filepath.Join(dir, c.name+".html")
			if err := os.WriteFile(page, html.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			tctx, cancel := chromedp.NewContext(ctx)
			defer cancel()
			var mu sync.Mutex
			var problems []string
			messages := chromedp.Console(tctx)
			done := make(chan struct{})
			go func() {
				defer close(done)
				for m, err := range messages {
					if err != nil {
						return
					}
					if m.Type == chromedp.ConsoleError || m.Type == chromedp.ConsoleWarning || m.IsException() {
						mu.Lock()
						problems = append(problems, m.String()+" "+m.URL)
						mu.Unlock()
					}
				}
			}()
			url := "file://" + page
			if err := chromedp.Do(tctx, chromedp.EmulateViewport(1280, 900), chromedp.Navigate(url)); err != nil {
				t.Fatal(err)
			}
			// Every request the page made besides itself would be a leak.
			requests, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`performance.getEntriesByType("resource").map(e => e.name)`))
			if err != nil {
				t.Fatal(err)
			}
			if len(requests) > 0 {
				t.Errorf("the page loaded %d other resources: %q", len(requests), requests)
			}
			// Every failing finding and every group has an element with
			// its anchor; every in-page link reaches its target.
			ids, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("[id]")].map(e => e.id)`))
			if err != nil {
				t.Fatal(err)
			}
			have := map[string]bool{}
			for _, id := range ids {
				have[id] = true
			}
			for _, g := range c.r.Groups {
				if !have[g.ID] {
					t.Errorf("group %s has no anchor", g.ID)
				}
			}
			nf := 0
			for _, id := range ids {
				if strings.HasPrefix(id, "f-") {
					nf++
				}
			}
			fails := 0
			for _, f := range c.r.Findings {
				if f.Status == "fail" {
					fails++
				}
			}
			if nf != fails {
				t.Errorf("%d finding anchors for %d failing findings", nf, fails)
			}
			anchors, err := chromedp.Run(tctx, chromedp.Evaluate[anchorResult](anchorsJS, chromedp.EvalAwaitPromise))
			if err != nil {
				t.Fatal(err)
			}
			if len(anchors.Bad) > 0 || anchors.Links < len(c.r.Groups) {
				t.Errorf("%d in-page links; broken: %q", anchors.Links, anchors.Bad)
			}
			t.Logf("%d anchors, %d in-page links followed", len(ids), anchors.Links)
			for _, w := range []int64{1280, 390} {
				if err := chromedp.Do(tctx, chromedp.EmulateViewport(w, 900), chromedp.Navigate(url)); err != nil {
					t.Fatal(err)
				}
				over, err := chromedp.Run(tctx, chromedp.Evaluate[[]string](overflowJS))
				if err != nil {
					t.Fatal(err)
				}
				if len(over) > 0 {
					t.Errorf("at %d px wide, overflowing: %q", w, over)
				}
				height, err := chromedp.Run(tctx, chromedp.Evaluate[int](`document.documentElement.scrollHeight`))
				if err != nil {
					t.Fatal(err)
				}
				shoot := chromedp.FullScreenshot(80)
				if height > 16000 {
					// Past what one capture holds: the first screen.
					shoot = chromedp.CaptureScreenshot()
				}
				shot, err := chromedp.Run(tctx, shoot)
				if err != nil {
					t.Fatal(err)
				}
				ext := ".jpg"
				if bytes.HasPrefix(shot, []byte("\x89PNG")) {
					ext = ".png"
				}
				name := filepath.Join(art, fmt.Sprintf("report-%s-%dpx%s", c.name, w, ext))
				if err := os.WriteFile(name, shot, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cancel()
			<-done
			mu.Lock()
			defer mu.Unlock()
			if len(problems) > 0 {
				t.Errorf("console: %q", problems)
			}
		})
	}
}
