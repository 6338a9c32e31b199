package report

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
)

// fleetReport is a report of n hosts with perHost findings each; name is
// the first host's first VM.
func fleetReport(n, perHost int, name string) *Report {
	var rs []hostio.HostResult
	var fs []checks.Finding
	for i := range n {
		host := fmt.Sprintf("esx%04d", i)
		rs = append(rs, hostio.HostResult{Host: host, Status: hostio.StatusCollected,
			Captures: []hostio.Capture{{Host: host, Command: "esxcli vm process list", Status: hostio.StatusCollected}}})
		for j := range perHost {
			vm := fmt.Sprintf("vm-%d-%d", i, j)
			if i == 0 && j == 0 {
				vm = name
			}
			fs = append(fs, checks.Finding{RuleID: "TCP_FALLBACK", Severity: checks.Critical, Status: checks.StatusFail, Host: host,
				Subject: vm + " (PVRDMA adapter 0)", Message: vm + " falls back to TCP", Fix: "power-cycle " + vm,
				Evidence: []checks.Evidence{{Host: host, Command: "esxcli vm process list", Line: 1, Text: vm}}})
		}
	}
	return Build(rs, &facts.Fleet{}, checks.Result{Findings: fs}, nil, Meta{Source: "test", Now: time.Unix(0, 0)})
}

func TestForHumansCopiesAndLeavesMachineFormatsExact(t *testing.T) {
	const pwned = "vm\x1b]0;PWNED\x07"
	r := fleetReport(2, 2, pwned)
	h := ForHumans(r)
	if h == r || h.Findings[0].Message == r.Findings[0].Message {
		t.Fatal("ForHumans did not make a cleaned copy")
	}
	if !strings.Contains(r.Findings[0].Message, "\x1b") || !strings.Contains(h.Findings[0].Message, `vm\x1b]0;PWNED\x07`) {
		t.Fatalf("original %q, copy %q", r.Findings[0].Message, h.Findings[0].Message)
	}
	var b bytes.Buffer
	WriteJSON(&b, r)
	if !strings.Contains(b.String(), `vm\u001b]0;PWNED\u0007`) {
		t.Error("JSON lost the exact name")
	}
	if clean := fleetReport(2, 2, "vm"); ForHumans(clean) != clean {
		t.Error("a clean report is copied")
	}
	if ForHumans(nil) != nil {
		t.Error("nil")
	}
}

// BenchmarkTextReport1000Hosts is the text report of 1,000 hosts with 20
// findings each, the clean copy (ForHumans) included.
func BenchmarkTextReport1000Hosts(b *testing.B) {
	r := fleetReport(1000, 20, "vm\x1b]0;PWNED\x07")
	for b.Loop() {
		WriteText(io.Discard, r, TextOptions{})
	}
}

// BenchmarkForHumans1000Hosts is the clean copy alone: of a report with
// one hostile name, and of one without (checked, not copied).
func BenchmarkForHumans1000Hosts(b *testing.B) {
	for _, name := range []string{"vm\x1b]0;PWNED\x07", "vm"} {
		r := fleetReport(1000, 20, name)
		b.Run(fmt.Sprintf("hostile=%t", name != "vm"), func(b *testing.B) {
			for b.Loop() {
				ForHumans(r)
			}
		})
	}
}
