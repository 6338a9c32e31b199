package report

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// HOSTS lines stay within the width, continuation lines included, and
// "1 PVRDMA VM"-style units are never split across lines.
func TestTextHostsWrapWithinWidthKeepingUnits(t *testing.T) {
	reason := "cannot connect to esx-rack12-node07.lab.example.com:22: connection refused (is SSH enabled on the host? Host > Configure > Services > SSH)"
	var results []hostio.HostResult
	for _, n := range []string{"esx-rack12-node07.lab.example.com", "esx-rack12-node08.lab.example.com", "esx-rack12-node09.lab.example.com"} {
		results = append(results, hostio.HostResult{Host: n, Status: hostio.StatusCollected, Captures: []hostio.Capture{
			{Host: n, Command: "esxcli rdma device list", Status: hostio.StatusCollected,
				Stdout: "Name     Driver      State   MTU   Speed     Paired Uplink  Description\n" +
					"-------  ----------  ------  ----  --------  -------------  -----------\n" +
					"vmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4         MT27800 Family [ConnectX-5]\n"},
			{Host: n, Command: "vsish -e ls " + collect.PVRDMADevicesDir, Status: hostio.StatusCollected, Stdout: "2100788_0/\n"},
			{Host: n, Command: "esxcli system version get", Status: hostio.StatusCollected,
				Stdout: "   Product: VMware ESXi\n   Version: 8.0.3\n   Build: Releasebuild-24022510\n   Update: 3\n   Patch: 15\n"},
		}})
	}
	results = append(results, hostio.HostResult{Host: "esx-rack12-node10.lab.example.com", Status: hostio.StatusNotCollected, Reason: reason})
	r := buildWith(results)
	for _, width := range []int{80, 72, 100} {
		var b bytes.Buffer
		if err := WriteText(&b, r, TextOptions{Width: width, Details: true}); err != nil {
			t.Fatal(err)
		}
		out := b.String()
		hosts := out[strings.Index(out, "HOSTS"):]
		if !strings.Contains(strings.Join(strings.Fields(hosts), " "), "RDMA device · 1 PVRDMA VM") {
			t.Fatalf("width %d: units missing:\n%s", width, out)
		}
		split := regexp.MustCompile(`(^|\s)(\d+|\d+ RDMA|\d+ PVRDMA)$`)
		for _, l := range strings.Split(hosts, "\n") {
			if w := ansi.StringWidth(l); w > width {
				t.Errorf("width %d: line of %d cells: %q", width, w, l)
			}
			if strings.Contains(l, "\u00a0") {
				t.Errorf("width %d: no-break space left in %q", width, l)
			}
			if split.MatchString(strings.TrimSpace(l)) && strings.Contains(l, "·") {
				t.Errorf("width %d: unit split at end of %q", width, l)
			}
		}
	}
}
