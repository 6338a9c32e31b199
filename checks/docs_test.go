package checks

import (
	"flag"
	"fmt"
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the generated rule list in docs/rules-and-reports.md (go generate ./...)")

const (
	docsFile   = "../docs/rules-and-reports.md"
	rulesBegin = "<!-- BEGIN GENERATED RULES (go generate ./...) -->"
	rulesEnd   = "<!-- END GENERATED RULES -->"
)

// rulesMarkdown renders the catalogue for the docs.
func rulesMarkdown() string {
	cell := strings.NewReplacer("|", "\\|", "\n", " ")
	var b strings.Builder
	b.WriteString("| ID | severity | scope | what it finds | applies to |\n|---|---|---|---|---|\n")
	for _, r := range Rules() {
		scope := r.Scope
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s | %s |\n", r.ID, r.Severity, scope, cell.Replace(r.Title), cell.Replace(r.Applies))
	}
	return b.String()
}

// The rule list in the docs is generated from the catalogue; this test
// fails when a rule is added, removed or retitled without regenerating it.
func TestDocsRuleList(t *testing.T) {
	data, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	doc := string(data)
	i, j := strings.Index(doc, rulesBegin), strings.Index(doc, rulesEnd)
	if i < 0 || j < i {
		t.Fatalf("%s: generated-rules markers missing", docsFile)
	}
	fresh := doc[:i+len(rulesBegin)] + "\n" + rulesMarkdown() + doc[j:]
	if fresh == doc {
		return
	}
	if *update {
		if err := os.WriteFile(docsFile, []byte(fresh), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s is stale: run go generate ./... (or make generate)", docsFile)
}

// Every phase of a plan (package plan) is named in docs/report-schema.md (the action
// kinds are checked in package plan).
func TestEveryPhaseDocumented(t *testing.T) {
	doc, err := os.ReadFile("../docs/report-schema.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range plan.PhaseOrder {
		if !strings.Contains(string(doc), "`"+string(p)+"`") {
			t.Errorf("docs/report-schema.md does not name the phase %s", p)
		}
	}
}
