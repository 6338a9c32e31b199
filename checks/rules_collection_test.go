package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Outputs lost from a damaged bundle are not blamed on the host: one
// finding per host lists them, and its fix says the bundle is damaged.
// Commands an offline input does not hold get one finding per host too.
func TestCollectionFailedOfflineInput(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	n := 0
	for k, srcs := range h.Sources {
		for i := range srcs {
			if n%2 == 0 {
				srcs[i].Status, srcs[i].Error, srcs[i].Cause, srcs[i].Parsed = hostio.StatusFailed, hostio.CauseMissingFromBundle.Error(""), hostio.CauseMissingFromBundle, false
			}
			n++
		}
		h.Sources[k] = srcs
	}
	h.Sources[catalog.KindOf(cmdDCB4)] = []facts.Source{{Command: cmdDCB4, Status: hostio.StatusFailed, Error: "exit status 1"}}
	damaged := 0
	for _, srcs := range h.Sources {
		for _, s := range srcs {
			if s.Cause == hostio.CauseMissingFromBundle {
				damaged++
			}
		}
	}
	var fails []Finding
	for _, f := range runRule(t, "COLLECTION_FAILED", h) {
		if f.Status == StatusFail {
			fails = append(fails, f)
		}
	}
	if len(fails) != 2 {
		t.Fatalf("want one finding for the damaged bundle and one for the failed command, got %d: %+v", len(fails), fails)
	}
	var bundleF, cmdF Finding
	for _, f := range fails {
		if f.Subject == cmdDCB4 {
			cmdF = f
		} else {
			bundleF = f
		}
	}
	if !strings.Contains(bundleF.Message, "missing or corrupt in the bundle") || !strings.Contains(bundleF.Fix, "The bundle is damaged") ||
		strings.Contains(bundleF.Fix, "--command-timeout") || len(bundleF.Evidence) != damaged {
		t.Errorf("damaged-bundle finding: %+v", bundleF)
	}
	if !strings.Contains(cmdF.Fix, "Run the command on the host by hand") {
		t.Errorf("failed command finding: %+v", cmdF)
	}

	// Stage-1 commands that a transcript or a folder of saved outputs
	// lacks are coverage (the host is partial), not a finding about the
	// host; nor is the host's collection passed.
	for _, why := range []hostio.Cause{hostio.CauseNotInTranscript, hostio.CauseNotSaved} {
		h = goodHost("esx01", "192.168.50.11")
		k := catalog.KindOf(cmdNICList)
		h.Sources[k] = []facts.Source{{Command: cmdNICList, Status: hostio.StatusSkipped, Error: why.Error(""), Cause: why}}
		if got := runRule(t, "COLLECTION_FAILED", h); len(got) != 0 {
			t.Errorf("%s: %+v", why, got)
		}
		// A command that failed as well still is a finding.
		missing(&h, cmdFirewall)
		if got := runRule(t, "COLLECTION_FAILED", h); len(got) != 1 || got[0].Status != StatusFail || got[0].Subject != cmdFirewall {
			t.Errorf("%s and a failed command: %+v", why, got)
		}
	}
}

func TestRuleCollectionFailed(t *testing.T) {
	runCases(t, "COLLECTION_FAILED", []ruleCase{
		{name: "fires for a host not collected", hosts: func() []facts.Host {
			return []facts.Host{{Host: "esx05", Collection: facts.Collection{Status: hostio.StatusNotCollected, Reason: "connection refused"}, Sources: map[hostio.Kind][]facts.Source{}}}
		}, want: []want{{host: "esx05", subject: "esx05", status: StatusFail, severity: Warning, msg: "connection refused"}}},
		{name: "fires for a failed command", hosts: one(func(h *facts.Host) { missing(h, cmdDCB4) }),
			want: []want{{"esx01", cmdDCB4, StatusFail, Warning, "exit status 1", ""}}, exact: true},
		{name: "fires for output that could not be parsed", hosts: one(func(h *facts.Host) {
			k := catalog.KindOf(cmdNICList)
			h.Sources[k] = []facts.Source{{Command: cmdNICList, Status: hostio.StatusCollected, Error: "line 3: expected a dash line"}}
		}), want: []want{{"esx01", cmdNICList, StatusFail, Warning, "could not be parsed: line 3", ""}}, exact: true},
		{name: "passes when everything was collected", hosts: one(nil),
			want: []want{{host: "esx01", subject: "esx01", status: StatusPass}}, exact: true},
	})
}

// A finding's evidence for the TCP fallback of a host without devices names
// the (empty) listing, so a user can look at it.

// esxcli commands vCenter's API does not serve on a host reached through
// it are one finding for the host, with every command as evidence and no
// XML, not one finding per command.
func TestCollectionFailedUnservedByAPIIsOneFinding(t *testing.T) {
	h := goodHost("esx01", "192.168.50.11")
	n := 0
	for k, srcs := range h.Sources {
		if !strings.HasPrefix(srcs[0].Command, "esxcli ") || n == 3 {
			continue
		}
		n++
		srcs[0].Status, srcs[0].Parsed = hostio.StatusFailed, false
		srcs[0].Error = hostio.CauseNotServedByAPI.Error("vCenter vc01 does not serve `" + srcs[0].Command + "` for esx01 (vSphere fault NotFound)")
		srcs[0].Cause = hostio.CauseNotServedByAPI
		h.Sources[k] = srcs
	}
	var fails []Finding
	for _, f := range runRule(t, "COLLECTION_FAILED", h) {
		if f.Status == StatusFail {
			fails = append(fails, f)
		}
	}
	if len(fails) != 1 || len(fails[0].Evidence) != 3 || !strings.Contains(fails[0].Message, "vCenter does not serve 3 esxcli command(s)") ||
		strings.Contains(fails[0].Message, "<") || !strings.Contains(fails[0].Fix, "Enable SSH on esx01 for the scan") {
		t.Errorf("%d findings: %+v", len(fails), fails)
	}
}
