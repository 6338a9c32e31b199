package collect

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// A stage 2 command whose arguments a spec reads from the stage-1 facts
// (catalog.FromFacts) is one entry: here the module parameters of the
// driver of each RDMA uplink, each driver once, a value its pattern
// refuses noted and never sent.
func TestPlanFromFacts(t *testing.T) {
	reModule := regexp.MustCompile(`^[a-z][a-z0-9_]{0,31}$`)
	spec := &catalog.Spec{Kind: "test_module_parameters", Stage: 2, From: catalog.FromFacts,
		Instances: func(f *catalog.HostFacts) [][]string {
			var out [][]string
			for _, d := range f.RDMADevices {
				for _, n := range f.NICs {
					if n.Name == d.PairedUplink {
						out = append(out, []string{n.Driver})
					}
				}
			}
			return out
		},
		Build: func(args ...string) (hostio.Command, error) {
			if len(args) != 1 || !reModule.MatchString(args[0]) {
				return hostio.Command{}, fmt.Errorf("refusing module %q", args)
			}
			return hostio.Command{Kind: "test_module_parameters", Line: "esxcli system module parameters list -m " + args[0], Stage: 2}, nil
		}}
	rdma := "Name     Driver      State   MTU   Speed     Paired Uplink  Description\n" +
		"-------  ----------  ------  ----  --------  -------------  -----------\n" +
		"vmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4         MT28800\n" +
		"vmrdma1  nmlx5_rdma  Active  4096  100 Gbps  vmnic5         MT28800\n" +
		"vmrdma2  bnxtroce    Active  4096  25 Gbps   vmnic6         BCM57414\n"
	nics := "Name    PCI Device    Driver      Admin Status  Link Status  Speed   Duplex  MAC Address        MTU   Description\n" +
		"------  ------------  ----------  ------------  -----------  ------  ------  -----------------  ----  -----------\n" +
		"vmnic4  0000:3b:00.0  nmlx5_core  Up            Up           100000  Full    0c:42:a1:00:00:70  9000  MT28800\n" +
		"vmnic5  0000:3b:00.1  nmlx5_core  Up            Up           100000  Full    0c:42:a1:00:00:71  9000  MT28800\n" +
		"vmnic6  0000:5e:00.0  bnxt;reboot Up            Up           25000   Full    00:0a:f7:00:00:01  9000  BCM57414\n"
	caps := []hostio.Capture{
		{Command: "esxcli rdma device list", Kind: catalog.KindRDMADeviceList, Stdout: rdma, Status: hostio.StatusCollected},
		{Command: "esxcli network nic list", Kind: catalog.KindNICList, Stdout: nics, Status: hostio.StatusCollected},
	}
	p := stage2Plan{max: 10, seen: map[string]bool{}, over: map[hostio.Kind]int{}}
	planFromFacts([]*catalog.Spec{spec}, caps, &p)
	var lines []string
	for _, c := range p.cmds {
		lines = append(lines, c.Line)
	}
	if len(lines) != 1 || lines[0] != "esxcli system module parameters list -m nmlx5_core" {
		t.Errorf("planned %q", lines)
	}
	if len(p.notes) != 1 || !strings.Contains(p.notes[0], "refusing module") {
		t.Errorf("notes %q", p.notes)
	}
	// The catalogue's own spec of that source (the module parameters of
	// the drivers of the RDMA uplinks and devices): each module once, the
	// hostile driver name refused.
	p = stage2Plan{max: 10, seen: map[string]bool{}, over: map[hostio.Kind]int{}}
	planFromFacts(catalog.Specs(), caps, &p)
	lines = nil
	for _, c := range p.cmds {
		lines = append(lines, c.Line)
	}
	// The details and flow control of every RDMA uplink are read too, the
	// hostile driver's NIC by its valid name only.
	want := []string{"esxcli network nic get -n vmnic4", "esxcli network nic get -n vmnic5", "esxcli network nic get -n vmnic6",
		"esxcli network nic dcb status get -n vmnic4", "esxcli network nic dcb status get -n vmnic5",
		"esxcli network nic dcb status get -n vmnic6",
		"esxcli system module parameters list -m bnxtroce", "esxcli system module parameters list -m nmlx5_core",
		"esxcli system module parameters list -m nmlx5_rdma"}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("the catalogue plans %q, want %q", lines, want)
	}
}
