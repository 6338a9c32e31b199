package cli

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
)

// The demo's simulated vCenter is built from the scenario's own outputs
// (.vmx files, VDS IDs, vmknics): a second source of the same truth. It may
// add what SSH could not read (a refused .vmx path, a host refusing SSH),
// but it must never contradict the scenario: no "sources disagree", and
// every problem found over SSH alone is still found.
func TestDemoVCenterAgreesWithTheScenario(t *testing.T) {
	type finding struct {
		Rule     string `json:"rule_id"`
		Status   string `json:"status"`
		Host     string `json:"host"`
		Subject  string `json:"subject"`
		Severity string `json:"severity"`
		Message  string `json:"message"`
	}
	findings := func(args ...string) []finding {
		t.Helper()
		_, out, errOut := runCLI(t, "", append([]string{"demo", "-o", "json"}, args...)...)
		var doc struct {
			Findings []finding `json:"findings"`
		}
		if err := json.Unmarshal([]byte(out), &doc); err != nil {
			t.Fatalf("demo %v: %v\n%s", args, err, errOut)
		}
		return doc.Findings
	}
	key := func(f finding) string { return f.Severity + " " + f.Rule + " " + f.Host + " " + f.Subject }
	// Whether DRS or HA can place VMs on a host is vCenter's to say (its
	// cluster): a host that is not ready is information over SSH alone,
	// and may become a warning with vCenter.
	placement := func(f finding) string {
		if f.Rule == "HOST_NOT_READY" {
			return "* " + f.Rule + " " + f.Host + " " + f.Subject
		}
		return key(f)
	}
	for _, sc := range fixtures.Names() {
		t.Run(sc, func(t *testing.T) {
			with, without := findings("--scenario", sc), findings("--scenario", sc, "--no-vcenter")
			var keys, unknown []string // unknown: what SSH alone could not check
			for _, f := range without {
				if f.Status == "not_evaluated" || f.Rule == "COLLECTION_FAILED" {
					unknown = append(unknown, f.Host+" "+subjectVM(f.Subject))
				}
			}
			for _, f := range with {
				if strings.Contains(f.Message, "sources disagree") {
					t.Errorf("the simulated vCenter contradicts the scenario: %s: %s", key(f), f.Message)
				}
				keys = append(keys, key(f))
			}
			plain := map[string]bool{}
			for _, f := range without {
				plain[key(f)], plain[placement(f)] = true, true
			}
			for _, f := range with {
				if f.Status == "not_evaluated" || f.Severity == "info" || plain[key(f)] || plain[placement(f)] ||
					slices.Contains(unknown, f.Host+" "+f.Host) || slices.Contains(unknown, f.Host+" "+subjectVM(f.Subject)) {
					continue
				}
				t.Errorf("a finding only the simulated vCenter gives, on something SSH read: %s: %s", key(f), f.Message)
			}
			for _, f := range without {
				if f.Status == "not_evaluated" || f.Rule == "COLLECTION_FAILED" || f.Severity == "info" {
					continue
				}
				if !slices.Contains(keys, key(f)) && !slices.ContainsFunc(with, func(g finding) bool { return placement(g) == placement(f) && placement(f) != key(f) }) {
					t.Errorf("found over SSH alone, lost with the simulated vCenter: %s", key(f))
				}
			}
		})
	}
}

// subjectVM is the VM (or host, or device) a subject names, without the
// adapter it may add ("hpc-node02 (PVRDMA adapter 0)" -> "hpc-node02").
func subjectVM(s string) string {
	if i := strings.Index(s, " ("); i > 0 {
		return s[:i]
	}
	return s
}
