package plan

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Read is a read-only command and what its output must show, in words
// (Expect) and machine-checkable (Match: every match must hold). A plan
// step carries two: its Check, which shows the step is already done (a
// runbook skips the step then, so running it twice is harmless), and its
// Verify, which shows it took effect (after the whole plan: a module
// enabled now is loaded only after the plan's reboot).
type Read struct {
	Command string `json:"command"`
	// VM names the VM whose World ID stands for <worldID> in Command (the
	// ID changes at every power-on: `esxcli vm process list` gives it).
	VM string `json:"vm,omitempty"`
	// On is where the command runs: "esxi" (the host's shell) or "guest".
	On     string  `json:"on"`
	Expect string  `json:"expect"`
	Match  []Match `json:"match"`
}

// Match is one machine-checkable condition on a command's output. Exactly
// one way of reading it applies: Line (a regular expression some line must
// match), Row (a table: the row whose first column is Row), Record (a
// list of records: the one titled Record) or neither (the key/value
// fields of an esxcli get); Field and Value then name the column or key
// and the value it must have (case-insensitive). Absent turns it around:
// nothing may match.
type Match struct {
	Line   string `json:"line,omitempty"`
	Row    string `json:"row,omitempty"`
	Record string `json:"record,omitempty"`
	Field  string `json:"field,omitempty"`
	Value  string `json:"value,omitempty"`
	Absent bool   `json:"absent,omitempty"`
}

// Holds reports whether every match of the read holds on out (a read
// without matches holds nothing).
func (r Read) Holds(out string) bool {
	if len(r.Match) == 0 {
		return false
	}
	for _, m := range r.Match {
		if !m.Holds(out) {
			return false
		}
	}
	return true
}

// Holds reports whether the match holds on a command's output.
func (m Match) Holds(out string) bool {
	return m.found(out) != m.Absent
}

func (m Match) found(out string) bool {
	eq := func(v string) bool { return strings.EqualFold(strings.TrimSpace(v), strings.TrimSpace(m.Value)) }
	switch {
	case m.Line != "":
		re, err := regexp.Compile(m.Line)
		if err != nil {
			return false
		}
		for _, l := range strings.Split(out, "\n") {
			if re.MatchString(strings.TrimRight(l, "\r")) {
				return true
			}
		}
		return false
	case m.Row != "":
		t, _ := parse.ReadTable(out)
		if len(t.Header) == 0 {
			return false
		}
		for _, row := range t.Rows {
			if strings.TrimSpace(row.Cells[t.Header[0]]) != m.Row {
				continue
			}
			if m.Field == "" || eq(row.Cells[m.Field]) {
				return true
			}
		}
		return false
	case m.Record != "":
		recs, _ := parse.ReadRecords(out)
		for _, r := range recs {
			if strings.TrimSpace(r.Title) == m.Record && (m.Field == "" || eq(r.Get(m.Field))) {
				return true
			}
		}
		return false
	case m.Field != "":
		r, _ := parse.ReadStructure(out)
		return r.Has(m.Field) && eq(r.Get(m.Field))
	}
	return false
}

// LineOf is a Line match for a literal line (surrounding blanks allowed).
func LineOf(s string) Match { return Match{Line: `^\s*` + regexp.QuoteMeta(s) + `\s*$`} }

func esxiRead(cmd, expect string, m ...Match) *Read {
	return &Read{Command: cmd, On: "esxi", Expect: expect, Match: m}
}

func guestRead(cmd, expect string, m ...Match) *Read {
	return &Read{Command: cmd, On: "guest", Expect: expect, Match: m}
}

// reads lists the reads that are there.
func reads(rs ...*Read) []Read {
	var out []Read
	for _, r := range rs {
		if r != nil {
			out = append(out, *r)
		}
	}
	return out
}

// vmxLine matches a .vmx line key = "value" (value a regular expression).
func vmxLine(key, valueRE string) Match {
	return Match{Line: `^` + regexp.QuoteMeta(key) + ` = "` + valueRE + `"$`}
}

// atLeastRE is a regular expression for the decimal numbers >= n
// (n < 100).
func atLeastRE(n int) string {
	if n < 10 {
		return fmt.Sprintf("([%d-9]|[1-9][0-9]+)", n)
	}
	tens, ones := n/10, n%10
	alt := fmt.Sprintf("%d[%d-9]", tens, ones)
	if tens < 9 {
		alt += fmt.Sprintf("|[%d-9][0-9]", tens+1)
	}
	return "(" + alt + "|[1-9][0-9][0-9]+)"
}

// vsishProps is the vsish path of a VM's first PVRDMA adapter.
const vsishProps = "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/<worldID>_0/properties"
