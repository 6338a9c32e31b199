package collect_test

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// A host whose `vsish -e ls` listing holds one unreadable entry among its
// PVRDMA devices (issue 24.8: it hid them all): over real SSH, the
// readable devices' properties are still read, their facts kept, and the
// host's notes name the entry skipped.
func TestOneUnreadableVsishEntryKeepsTheOthers(t *testing.T) {
	sc := loadScenario(t, "healthy")
	listing := sc.Host("esx01").Respond("vsish -e ls " + collect.PVRDMADevicesDir).Stdout
	bad := strings.Replace(listing, "\n", "\nVSI_NODE_NOT_FOUND: error\n", 1)
	l := lab.StartTB(t, sc, lab.Options{Faults: map[string]lab.Fault{"esx01": {Hostile: lab.Hostile{Streams: []lab.Stream{
		{Prefix: "vsish -e ls " + collect.PVRDMADevicesDir, Text: bad}}}}}})
	r := labRunner(t, l)
	res := scan(t, r, l.Targets(), collect.Options{})
	props := 0
	for _, c := range l.Stats("esx01").Commands {
		if strings.HasPrefix(c, "vsish -e cat "+collect.PVRDMADevicesDir) {
			props++
		}
	}
	want := strings.Count(listing, "_")
	if props != want {
		t.Errorf("%d PVRDMA properties read, want %d (the readable entries of %q)", props, want, bad)
	}
	if notes := strings.Join(res["esx01"].Notes, "\n"); !strings.Contains(notes, "the readable entries are used") {
		t.Errorf("notes %q", notes)
	}
	fl := facts.Build([]hostio.HostResult{res["esx01"]})
	if n := len(fl.Hosts[0].PVRDMAListing); n != want {
		t.Errorf("%d entries in the facts, want %d", n, want)
	}
}
