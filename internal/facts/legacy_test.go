package facts

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

const esxcfgVmknic = "Interface  Port Group/DVPort/Opaque Network        IP Family IP Address                              Netmask         Broadcast       MAC Address       MTU     TSO MSS   Enabled Type                NetStack\n" +
	"vmk1       17                                      IPv4      192.168.10.11                           255.255.255.0   192.168.10.255  00:50:56:61:11:22 9000    65535     true    STATIC              defaultTcpipStack\n"

const oneDVS = "dvs-rdma\n   Name: dvs-rdma\n   VDS ID: 50 1a\n   MTU: 9000\n   Uplinks: vmnic4\n"

func TestEsxcfgVmknicDVPort(t *testing.T) {
	caps := []hostio.Capture{
		{Command: "esxcfg-vmknic -l", Kind: catalog.KindIPInterfaceList, Stdout: esxcfgVmknic, Status: hostio.StatusCollected},
		{Command: "esxcfg-vmknic -l", Kind: catalog.KindIPv4Get, Stdout: esxcfgVmknic, Status: hostio.StatusCollected},
	}
	// Without the switch list: the vmknic's switch is unknown, and rules
	// about it are not evaluated.
	h := BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Captures: caps})
	if len(h.Vmknics) != 1 || h.Vmknics[0].VDSName != "" || h.Vmknics[0].MTU != 9000 || len(h.IPv4) != 1 {
		t.Fatalf("%+v %+v", h.Vmknics, h.IPv4)
	}
	if ok, why := h.Available(catalog.KindIPInterfaceList); ok || !strings.Contains(why, "DVPort 17") {
		t.Errorf("available %v: %s", ok, why)
	}
	if ok, _ := h.Available(catalog.KindIPv4Get); !ok {
		t.Error("the IPv4 addresses of esxcfg-vmknic -l are complete")
	}
	// With one distributed switch: that is the vmknic's switch.
	caps = append(caps, hostio.Capture{Command: "esxcli network vswitch dvs vmware list", Kind: catalog.KindDVSList, Stdout: oneDVS, Status: hostio.StatusCollected})
	h = BuildHost(hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Captures: caps})
	if h.Vmknics[0].VDSName != "dvs-rdma" {
		t.Errorf("vds %q", h.Vmknics[0].VDSName)
	}
	if ok, why := h.Available(catalog.KindIPInterfaceList); !ok {
		t.Errorf("not available: %s", why)
	}
}
