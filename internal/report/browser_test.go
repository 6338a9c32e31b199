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

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
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

// textBoxesJS measures the text as laid out (issue 37.6): a word or name
// (up to 30 characters; longer tokens, paths and commands, may wrap)
// broken between two letters or digits is broken mid-way (a break after
// its hyphen or slash is the browser's ordinary one); an element that
// hides what overflows it cuts its text; in the data-path drawings, a
// label that overlaps another, runs out of its box or ends in "…" is cut.
const textBoxesJS = `(() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  let words = 0;
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (n.parentElement.closest("svg,script,style")) continue;
    const re = /\S+/g;
    let m;
    while ((m = re.exec(n.data)) !== null) {
      if (m[0].length < 2 || m[0].length > 30) continue;
      words++;
      const r = document.createRange();
      r.setStart(n, m.index); r.setEnd(n, m.index + m[0].length);
      const tops = new Set([...r.getClientRects()].filter(x => x.width > 0).map(x => Math.round(x.top)));
      if (tops.size < 2) continue;
      // Where it breaks: after a hyphen, a slash or other punctuation is
      // where any browser breaks a hyphenated word; between two letters
      // or digits is mid-way ("esx0" / "1").
      let prev = null;
      for (let k = 0; k < m[0].length; k++) {
        const c = document.createRange();
        c.setStart(n, m.index + k); c.setEnd(n, m.index + k + 1);
        const rc = c.getClientRects()[0];
        if (!rc) continue;
        if (prev !== null && Math.round(rc.top) !== prev && /[\p{L}\p{N}]/u.test(m[0][k - 1]) && /[\p{L}\p{N}]/u.test(m[0][k])) {
          out.push("broken word " + JSON.stringify(m[0].slice(0, k) + "/" + m[0].slice(k)) + " in " + n.parentElement.tagName.toLowerCase());
          break;
        }
        prev = Math.round(rc.top);
      }
    }
  }
  for (const el of document.body.querySelectorAll("*")) {
    const cs = getComputedStyle(el);
    if ((cs.overflowX === "hidden" || cs.textOverflow === "ellipsis") && el.scrollWidth > el.clientWidth + 1)
      out.push("cut: " + el.tagName.toLowerCase() + " " + (el.textContent || "").slice(0, 40));
  }
  let labels = 0;
  for (const svg of document.querySelectorAll("svg.topo")) {
    const texts = [...svg.querySelectorAll("text")].map(t => ({t, r: t.getBoundingClientRect()})).filter(x => x.r.width > 0);
    labels += texts.length;
    for (const x of texts) {
      if (x.t.textContent.includes("…")) out.push("label cut: " + x.t.textContent);
      const box = x.t.parentElement.querySelector("rect");
      if (box && x.t.parentElement.tagName === "g") {
        const b = box.getBoundingClientRect();
        if (x.r.left < b.left - 1 || x.r.right > b.right + 1) out.push("label out of its box: " + x.t.textContent);
      }
    }
    for (let i = 0; i < texts.length; i++) for (let j = i + 1; j < texts.length; j++) {
      const a = texts[i].r, b = texts[j].r;
      const w = Math.min(a.right, b.right) - Math.max(a.left, b.left), h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
      if (w > 1 && h > 1) out.push("labels overlap: " + JSON.stringify(texts[i].t.textContent) + " and " + JSON.stringify(texts[j].t.textContent));
    }
  }
  return {problems: out.slice(0, 20), count: out.length, words, labels};
})()`

type textBoxes struct {
	Problems []string `json:"problems"`
	Count    int      `json:"count"`
	Words    int      `json:"words"`
	Labels   int      `json:"labels"`
}

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
				boxes, err := chromedp.Run(tctx, chromedp.Evaluate[textBoxes](textBoxesJS))
				if err != nil {
					t.Fatal(err)
				}
				if boxes.Count > 0 || boxes.Words == 0 {
					t.Errorf("at %d px wide, %d words and %d drawing labels measured, %d broken, cut or overlapping: %q",
						w, boxes.Words, boxes.Labels, boxes.Count, boxes.Problems)
				}
				t.Logf("%d px: %d words and %d drawing labels measured", w, boxes.Words, boxes.Labels)
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
