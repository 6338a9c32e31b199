package cli

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/spf13/cobra"
)

// internalWords is the project's private vocabulary: words an admin has
// never seen (issue 37.2). The source documents are public documents with
// titles ("Setting up a 100GbE PVRDMA Network on vCenter 7", VMware's
// "PVRDMA Setup and Performance Study", ...), never "seed 002" or "the
// seeds"; the collector's phases are not "stage 1/2/3" to a user; issue
// numbers are the tracker's.
var internalWords = regexp.MustCompile(`(?i)\b(seeds?('s|')?|seed[- ]?\d+|stages?[- ]?\d*|issue \d+(\.\d+)?)\b`)

// userDocs are the documents written for users; docs/ARCHITECTURE.md and
// the developers' pages speak the project's own words on purpose.
var userDocs = []string{"README.md", "docs/guide.md", "docs/security.md", "docs/rules-and-reports.md", "docs/report-schema.md", "docs/tui.md", "docs/bundles.md"}

// TestUsersWordsOnly fails on the project's internal vocabulary in every
// user-visible string: the help of every command, every rule's
// explanation, the reports of every scenario in every format, the fix
// runbooks, the TUI's screens (its goldens) and the user documentation.
// JSON is checked in its values: its keys are the schema's, kept until a
// major version.
func TestUsersWordsOnly(t *testing.T) {
	found := 0
	check := func(where, text string) {
		t.Helper()
		for i, line := range strings.Split(text, "\n") {
			if m := internalWords.FindString(line); m != "" {
				found++
				if found <= 60 {
					t.Errorf("%s:%d says %q: %s", where, i+1, m, strings.TrimSpace(line))
				}
			}
		}
	}
	defer func() {
		if found > 60 {
			t.Errorf("... %d in all", found)
		}
	}()

	// Help, every command.
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		check("help of "+c.CommandPath(), c.Short+"\n"+c.Long+"\n"+c.Example+"\n"+c.UsageString())
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(NewRootCmd(&Factory{IO: &IOStreams{In: strings.NewReader(""), Out: &strings.Builder{}, ErrOut: &strings.Builder{}},
		Getenv: func(string) string { return "" }, Version: "test"}))

	// Every rule, as `rules list` and `rules explain` say it.
	_, out, _ := runCLI(t, "", "rules", "list")
	check("rules list", out)
	for _, r := range checks.Rules() {
		_, out, _ := runCLI(t, "", "rules", "explain", r.ID)
		check("rules explain "+r.ID, out)
	}

	// A dry run says what it would send.
	_, out, _ = runCLI(t, "", "scan", "--hosts", "esx01", "--dry-run")
	check("scan --dry-run", out)

	// Every scenario, every format, and its runbooks.
	for _, name := range fixtures.Names() {
		dir := filepath.Join("..", "..", "..", "..", "fixtures", "scenarios", name)
		for _, args := range [][]string{{"-o", "text", "--details"}, {"-o", "text"}, {"-o", "markdown"}, {"-o", "html"},
			{"-o", "junit"}, {"-o", "sarif"}, {"-o", "json"}} {
			_, out, errOut := runCLI(t, "", append([]string{"analyze", dir}, args...)...)
			if args[1] == "json" {
				out = jsonValues.ReplaceAllString(out, "")
			}
			check(name+" "+strings.Join(args, " "), out+errOut)
		}
		runbooks := t.TempDir()
		runCLI(t, "", "plan", "--input", dir, "--dir", runbooks)
		files, _ := filepath.Glob(filepath.Join(runbooks, "*"))
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			check(name+" runbook "+filepath.Base(f), string(b))
		}
	}

	// The TUI's screens and the report goldens.
	for _, glob := range []string{"../../../../tui/testdata/*/*", "../../../../tui/testdata/*.golden", "../../../../internal/report/testdata/*/*"} {
		files, _ := filepath.Glob(glob)
		if len(files) == 0 {
			t.Errorf("no golden matches %s", glob)
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			s := string(b)
			if strings.HasSuffix(f, "json.golden") {
				s = jsonValues.ReplaceAllString(s, "")
			}
			check(strings.TrimPrefix(f, "../../../../"), s)
		}
	}

	// The documentation written for users.
	for _, doc := range userDocs {
		b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", doc))
		if err != nil {
			t.Fatal(err)
		}
		text := string(b)
		if doc == "docs/report-schema.md" {
			// The schema names the readiness steps' JSON key, which
			// stays until the next major version.
			text = strings.ReplaceAll(text, "`{id, title, seed}`", "")
		}
		check(doc, text)
	}
}

// jsonValues matches a JSON object key and its colon: what is left is
// values.
var jsonValues = regexp.MustCompile(`"[a-z_0-9]+":`)

// The denylist catches what it is for, and lets the ordinary words pass.
func TestInternalWordsDenylist(t *testing.T) {
	for _, bad := range []string{"the seeds' host setup", "(seed 000)", "seeds 000/001", "stage 1/2/3", "stage-2 arguments", "Stage 3", "(issue 37.2)"} {
		if !internalWords.MatchString(bad) {
			t.Errorf("%q passes the denylist", bad)
		}
	}
	for _, good := range []string{"VMware's \"PVRDMA Setup and Performance Study\"", "seeded", "staged", "the first pass", "reissue"} {
		if internalWords.MatchString(good) {
			t.Errorf("%q is refused", good)
		}
	}
}

// README is the short version (issue 37.8): under 250 lines, and it says
// what ESXi and vCenter need and what exit code 4 means.
func TestReadmeBudget(t *testing.T) {
	b, err := os.ReadFile(filepath.Join("..", "..", "..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	if n := strings.Count(readme, "\n"); n >= 250 {
		t.Errorf("README.md has %d lines, the budget is 250", n)
	}
	for _, want := range []string{"## Quick start", "## Scanning real hosts", "## What ESXi and vCenter need", "/etc/ssh/keys-root/authorized_keys",
		"Lockdown mode", "Exception Users", "read-only role", "**ends with exit code 4**", "## Exit codes", "## Security", "docs/security.md"} {
		if !strings.Contains(readme, want) {
			t.Errorf("README.md does not say %q", want)
		}
	}
	for _, link := range regexp.MustCompile(`\]\((docs/[^)#]+)`).FindAllStringSubmatch(readme, -1) {
		if _, err := os.Stat(filepath.Join("..", "..", "..", "..", link[1])); err != nil {
			t.Errorf("README.md links to %s: %v", link[1], err)
		}
	}
}
