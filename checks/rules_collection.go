package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// rulesCollection are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesCollection = []*Rule{
	{ID: CollectionFailed, Severity: Warning, Check: checkCollectionFailed},
}

// The checks of this area (prose: catalogue.yaml): what could not be collected, and why.

func checkCollectionFailed(in *Input, r *Reporter) {
	h := in.Host
	if h.Status == hostio.StatusNotCollected {
		target := h.Address
		if target == "" {
			target = h.Host
		}
		r.Fail(h.Host, fmt.Sprintf("%s was not collected: %s", h.Host, h.Reason),
			fmt.Sprintf("Check that %s is reachable on SSH, that SSH is enabled (Host > Configure > Services > SSH), "+
				"and that the credentials and host key are right; then scan again.", h.Host),
			Evidence{Host: h.Host, Command: "ssh " + target, Note: h.Reason})
		return
	}
	kinds := make([]string, 0, len(h.Sources))
	for k := range h.Sources {
		kinds = append(kinds, string(k))
	}
	sort.Strings(kinds)
	bad := false
	// Outputs lost from a damaged bundle, and commands that an offline
	// input (transcript, saved outputs) simply does not hold, are not
	// the host's fault: one finding per host for each, with its own fix.
	var damaged, absent, unreached, needSSH, unserved []Evidence
	for _, k := range kinds {
		for _, s := range h.Sources[hostio.Kind(k)] {
			switch {
			case s.Status != hostio.StatusCollected && s.Cause.InputDamaged():
				damaged = append(damaged, Evidence{Host: h.Host, Command: s.Command, Note: s.Error})
			case s.Status != hostio.StatusCollected && s.Cause.NotInInput():
				absent = append(absent, Evidence{Host: h.Host, Command: s.Command, Note: s.Error})
			case s.Status != hostio.StatusCollected && s.Cause == hostio.CauseNeedsSSH:
				needSSH = append(needSSH, Evidence{Host: h.Host, Command: s.Command, Note: s.Error})
			case s.Status != hostio.StatusCollected && s.Cause == hostio.CauseNotServedByAPI:
				unserved = append(unserved, Evidence{Host: h.Host, Command: s.Command, Note: "not served by vCenter's esxcli API (vSphere fault NotFound)"})
			case s.Status != hostio.StatusCollected && s.Cause == hostio.CauseHostUnreached:
				unreached = append(unreached, Evidence{Host: h.Host, Command: s.Command, Note: s.Error})
			case s.Status == hostio.StatusCollected && !s.Parsed:
				bad = true
				r.Fail(s.Command, fmt.Sprintf("output of `%s` could not be parsed: %s", s.Command, s.Error),
					"Run the command on the host and check its output; attach it to a bug report if it looks normal.",
					Evidence{Host: h.Host, Command: s.Command})
			case s.Status != hostio.StatusCollected:
				bad = true
				r.Fail(s.Command, fmt.Sprintf("`%s` %s: %s", s.Command, s.State(), s.Error),
					"Run the command on the host by hand to see why it fails; raise --command-timeout if it is only slow.",
					Evidence{Host: h.Host, Command: s.Command})
			}
		}
	}
	commands := func(ev []Evidence) string {
		var cs []string
		for i, e := range ev {
			if i == 5 {
				cs = append(cs, fmt.Sprintf("and %d more", len(ev)-5))
				break
			}
			cs = append(cs, "`"+e.Command+"`")
		}
		return strings.Join(cs, ", ")
	}
	if len(damaged) > 0 {
		bad = true
		r.Fail("outputs missing from the bundle",
			fmt.Sprintf("%d command output(s) of %s are missing or corrupt in the bundle, which is damaged (the commands did not fail on the host): %s",
				len(damaged), h.Host, commands(damaged)),
			"The bundle is damaged (see the PARTIAL INPUT note): ask for a new bundle, or run the commands on the host.",
			damaged...)
	}
	// Commands an offline input (transcript, saved outputs) does not hold
	// (absent) are coverage, not a fault of the host: the host is partial
	// (INCOMPLETE, "not collected: not in the input"), the checks that
	// need them are not evaluated, and no finding blames it (nor passes
	// it).
	if len(unreached) > 0 {
		// One finding for the connection, not one per command it did not run.
		bad = true
		why := hostio.CauseHostUnreached.Detail(unreached[0].Note)
		r.Fail(h.Host, fmt.Sprintf("%s was not reached over SSH (%s): %d command(s) were not run and only the data read from vCenter is used: %s",
			h.Host, why, len(unreached), commands(unreached)),
			fmt.Sprintf("Enable SSH on %s (Host > Configure > Services > SSH > Start, or `govc host.service -host %s start TSM-SSH`) or fix the credentials and host key; then scan again.",
				h.Host, shellArg(h.Host, "HOST")),
			unreached[0])
	}
	if len(needSSH) > 0 {
		// The host was reached through the vSphere API: what needs SSH is
		// one finding, with how to enable SSH for the time of a scan.
		bad = true
		r.Fail("commands that need SSH", fmt.Sprintf("%d command(s) need SSH, which is off or refused on %s (its esxcli commands ran through the vSphere API); the checks that read them are not evaluated: %s",
			len(needSSH), h.Host, commands(needSSH)),
			enableSSHForScan(h.Host), needSSH[0])
	}
	if len(unserved) > 0 {
		// esxcli namespaces the host's API does not serve: one finding,
		// not one per command.
		bad = true
		r.Fail("esxcli commands vCenter does not serve", fmt.Sprintf("vCenter does not serve %d esxcli command(s) for %s through the vSphere API (vSphere fault NotFound: those namespaces are not registered there); the checks that read them are not evaluated: %s",
			len(unserved), h.Host, commands(unserved)),
			enableSSHForScan(h.Host), unserved...)
	}
	if !bad && len(absent) == 0 {
		r.Pass(h.Host)
	}
}

// enableSSHForScan is the fix for what only SSH can read on a host reached
// through the vSphere API: SSH on for the time of a scan.
func enableSSHForScan(host string) string {
	return fmt.Sprintf("Enable SSH on %s for the scan (vSphere Client > %[1]s > Configure > System > Services > SSH > Start, or `govc host.service -host %[2]s start TSM-SSH`, or `vim-cmd hostsvc/enable_ssh` in the ESXi Shell), scan again, then stop SSH.",
		host, shellArg(host, "HOST"))
}
