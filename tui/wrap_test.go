package tui

import (
	"math/rand/v2"
	"strings"
	"testing"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
)

// wordsOf returns the words of (possibly styled) lines.
func wordsOf(lines []string) []string {
	var out []string
	for _, l := range lines {
		out = append(out, strings.Fields(ansi.Strip(l))...)
	}
	return out
}

// sameWords checks that the wrapped words are the text's words: nothing
// lost or changed, and only words longer than the width broken up.
func sameWords(t *testing.T, what string, w int, got []string, text string) {
	t.Helper()
	want := strings.Fields(text)
	if strings.Join(got, " ") == strings.Join(want, " ") {
		return
	}
	fail := func(why string) {
		t.Helper()
		t.Fatalf("%s at width %d %s:\n got: %q\nwant: %q", what, w, why, strings.Join(got, " "), strings.Join(want, " "))
	}
	if strings.Join(got, "") != strings.Join(want, "") {
		fail("lost text")
	}
	whole := map[string]int{}
	for _, g := range got {
		whole[g]++
	}
	for _, x := range want {
		if ansi.StringWidth(x) <= w-3 {
			if whole[x] == 0 {
				fail("broke the word " + x)
			}
			whole[x]--
		}
	}
}

// TestWrapKeepsEveryWord: for random widths and the Why and Fix texts of
// every rule, the wrapped lines fit the width and hold the original words.
func TestWrapKeepsEveryWord(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	rules := checks.Rules()
	if len(rules) == 0 {
		t.Fatal("no rules")
	}
	for range 300 {
		w := 20 + rng.IntN(181)
		for _, r := range rules {
			for _, text := range []string{r.Why, r.Fix} {
				lines := wrap(text, w)
				for _, l := range lines {
					if ansi.StringWidth(l) > w {
						t.Fatalf("%s: line wider than %d: %q", r.ID, w, l)
					}
				}
				sameWords(t, r.ID+" wrap", w, wordsOf(lines), text)

				lab := labeled("Why it matters:", text, w, lipgloss.NewStyle().Bold(true))
				for _, l := range lab {
					if ansi.StringWidth(l) > w {
						t.Fatalf("%s: labeled line wider than %d: %q", r.ID, w, ansi.Strip(l))
					}
				}
				sameWords(t, r.ID+" labeled", w, wordsOf(lab), "Why it matters: "+text)
			}
		}
	}
}

func TestWrapBreaksOnlyOverlongWords(t *testing.T) {
	got := wrap("a "+strings.Repeat("x", 25)+" b", 10)
	want := []string{"a", "xxxxxxxxxx", "xxxxxxxxxx", "xxxxx b"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("wrap = %q, want %q", got, want)
	}
}

// TestFindingTextNotCut: on the finding screen, at every width, the full
// "why it matters" (w) and the fix show every word of their text.
func TestFindingTextNotCut(t *testing.T) {
	why := testRules["TEST_TCP_FALLBACK"].Why
	fix := testFindings()[0].Fix
	for w := 60; w <= 200; w++ {
		m := newTestModel(t, w, 40, nil)
		press(t, m, "j", "enter", "enter", "w")
		lines := strings.Split(screen(m), "\n")
		section := func(from, to string) []string {
			var out []string
			in := false
			for _, l := range lines {
				switch {
				case strings.HasPrefix(l, " "+from):
					in = true
				case to != "" && strings.HasPrefix(l, " "+to):
					in = false
				}
				if in {
					out = append(out, l)
				}
				if in && to == "" && strings.TrimSpace(l) == "" {
					break
				}
			}
			return out
		}
		sameWords(t, "why", w, wordsOf(section("Why it matters:", "Fix (c copies):")), "Why it matters: "+why)
		fixLines := section("Fix (c copies):", "")
		got := wordsOf(fixLines)
		sameWords(t, "fix", w, got[:min(len(got), len(strings.Fields("Fix (c copies): "+fix)))], "Fix (c copies): "+fix)
	}
}
