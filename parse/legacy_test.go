package parse

import (
	"strings"
	"testing"
)

func TestLegacyEsxcfg(t *testing.T) {
	text := sample(t, "legacy_esxcfg_vmknic_l.txt")
	nics, err := IPInterfaceList(text)
	if err != nil || len(nics) != 2 {
		t.Fatalf("%+v %v", nics, err)
	}
	eq(t, "vmk0 portgroup", nics[0].Portgroup, "Management Network")
	eq(t, "vmk1 dvport", nics[1].VDSPort, "17")
	eq(t, "vmk1 mtu", nics[1].MTU, 9000)
	eq(t, "vmk1 netstack", nics[1].Netstack, "defaultTcpipStack")
	v4, err := IPv4Get(text)
	if err != nil || len(v4) != 2 {
		t.Fatalf("%+v %v", v4, err)
	}
	eq(t, "vmk1 address", v4[1].Address, "192.168.10.11")
	eq(t, "vmk0 broadcast", v4[0].Broadcast, "10.0.0.255")

	text = sample(t, "legacy_esxcfg_vswitch_l.txt")
	vss, err := StandardSwitchList(text)
	if err != nil || len(vss) != 1 {
		t.Fatalf("%+v %v", vss, err)
	}
	eq(t, "portgroups", strings.Join(vss[0].Portgroups, ","), "VM Network,Management Network")
	dvs, err := DVSList(text)
	if err != nil || len(dvs) != 1 {
		t.Fatalf("%+v %v", dvs, err)
	}
	eq(t, "dvs uplinks", strings.Join(dvs[0].Uplinks, ","), "vmnic5,vmnic4")
	eq(t, "dvs mtu", dvs[0].MTU, 9000)
}

func TestMisalignedRowsAndPlacement(t *testing.T) {
	// VMware's vSAN document: a row shifted off the dash columns, single
	// spaces between its last cells.
	text := "Name  IPv4 Address  IPv4 Netmask   IPv4 Broadcast  Address Type  Gateway  DHCP DNS\n" +
		"----  ------------  -------------  --------------  ------------  -------  --------\n" +
		"vmk2  172.32.0.4  255.255.255.0  172.32.0.255  STATIC  0.0.0.0 false\n"
	rows, err := IPv4Get(text)
	if err != nil || len(rows) != 1 || rows[0].Address != "172.32.0.4" || rows[0].Gateway != "0.0.0.0" || rows[0].AddressType != "STATIC" {
		t.Fatalf("%+v %v", rows, err)
	}
	// Placement by value kind: an empty gateway and single spaces.
	text = "Name  IPv4 Address  IPv4 Netmask   IPv4 Broadcast  Address Type  Gateway  DHCP DNS\n" +
		"----  ------------  -------------  --------------  ------------  -------  --------\n" +
		"vmk3 10.1.1.3 255.255.0.0 10.1.255.255 STATIC 10.1.0.1 true\n" +
		"vmk4  10.1.1.4 255.255.0.0  10.1.255.255  DHCP  10.1.0.1  true extra words\n"
	rows, err = IPv4Get(text)
	if len(rows) != 1 || rows[0].Name != "vmk3" || !rows[0].DHCPDNS || rows[0].Netmask != "255.255.0.0" {
		t.Fatalf("%+v %v", rows, err)
	}
	if sk, ok := Skipped(err); !ok || len(sk) != 1 || sk[0].Line != 4 {
		t.Fatalf("the unplaceable row is skipped with its line: %v", err)
	}
	// A row whose cells are ambiguous is not guessed.
	if _, ok := placeWords(strings.Fields("a b c"), []column{{name: "X"}, {name: "Y"}, {name: "Z", kind: cellBool}}); ok {
		t.Error("ambiguous placement accepted")
	}
}

func TestDisplayNameAndContinuation(t *testing.T) {
	text := "DC\n   World ID: 1\n   Display Name: Camp-DC\n   Config File: /vmfs/volumes/ds/Camp-DC/Camp-D\nC.vmx\n\n...\n\nweb\n   World ID: 2\n   Config File: /vmfs/volumes/ds/web/web.vmx\n"
	vms, err := VMProcessList(text)
	sk, partial := Skipped(err)
	if !partial || len(sk) != 1 || sk[0].Line != 7 || len(vms) != 2 {
		t.Fatalf("%+v %v", vms, err)
	}
	eq(t, "display name", vms[0].DisplayName, "Camp-DC")
	eq(t, "title", vms[0].Title, "DC")
	eq(t, "config", vms[0].ConfigFile, "/vmfs/volumes/ds/Camp-DC/Camp-DC.vmx")
	eq(t, "no display name: title", vms[1].DisplayName, "web")
}
