package parse

import (
	"strings"
	"testing"
)

const rdmaList = `[root@esx01:~] esxcli rdma device list
Name     Driver      State   MTU   Speed     Paired Uplink  Description
-------  ----------  ------  ----  --------  -------------  -----------
vmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4         MT28800 Family [ConnectX-5 Ex]
vmrdma1  nmlx5_rdma  Down    1024            vmnic5         MT28800 Family [ConnectX-5 Ex]
vmrdma2  bnxtroce    Active  1024   25 Gbps  vmnic6         Broadcom NetXtreme-E RDMA
[root@esx01:~] 
`

func TestRDMADeviceList(t *testing.T) {
	devs := parsed(t, RDMADeviceList, rdmaList)
	if len(devs) != 3 {
		t.Fatalf("got %d devices", len(devs))
	}
	d := devs[0]
	eq(t, "name", d.Name, "vmrdma0")
	eq(t, "driver", d.Driver, "nmlx5_rdma")
	eq(t, "state", d.State, "Active")
	eq(t, "mtu", d.MTU, 4096)
	eq(t, "speed", d.Speed, "100 Gbps")
	eq(t, "mbps", d.SpeedMbps, 100000)
	eq(t, "uplink", d.PairedUplink, "vmnic4")
	eq(t, "desc", d.Description, "MT28800 Family [ConnectX-5 Ex]")
	eq(t, "line", d.Line, 4)
	eq(t, "text", d.Text, "vmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4         MT28800 Family [ConnectX-5 Ex]")
	eq(t, "empty speed", devs[1].Speed, "")
	eq(t, "empty mbps", devs[1].SpeedMbps, 0)
	eq(t, "state down", devs[1].State, "Down")
	eq(t, "right-aligned speed", devs[2].SpeedMbps, 25000)
	eq(t, "driver2", devs[2].Driver, "bnxtroce")
}

func TestRDMADeviceListVariants(t *testing.T) {
	// Header only: no devices, no error.
	devs, err := RDMADeviceList("Name  Driver  State  MTU  Speed  Paired Uplink  Description\n----  ------  -----  ---  -----  -------------  -----------\n")
	if err != nil || len(devs) != 0 {
		t.Fatalf("%v %v", devs, err)
	}
	// XML form.
	xml := `<output xmlns="http://www.vmware.com/Products/ESX/5.0/esxcli"><root><list type="structure">
<structure typeName="RdmaDevice">
<field name="Description"><string>MT28800 Family [ConnectX-5 Ex]</string></field>
<field name="Driver"><string>nmlx5_rdma</string></field>
<field name="MTU"><integer>4096</integer></field>
<field name="Name"><string>vmrdma0</string></field>
<field name="PairedUplink"><string>vmnic4</string></field>
<field name="Speed"><string>100 Gbps</string></field>
<field name="State"><string>Active</string></field>
</structure></list></root></output>`
	devs, err = RDMADeviceList(xml)
	if err != nil {
		t.Fatal(err)
	}
	if len(devs) != 1 || devs[0].PairedUplink != "vmnic4" || devs[0].MTU != 4096 || devs[0].SpeedMbps != 100000 || devs[0].Line != 2 {
		t.Fatalf("xml: %+v", devs)
	}
	// Garbage: error with a line.
	_, err = RDMADeviceList("hello world\nthis is not a table\n")
	wantParseError(t, err, 2)
	_, err = RDMADeviceList("Foo  Bar\n---  ---\n1  2\n")
	wantParseError(t, err, 1)
	const hdr = "Name     Driver      State   MTU  Speed   Paired Uplink  Description\n" +
		"-------  ----------  ------  ---  ------  -------------  -----------\n"
	_, err = RDMADeviceList(hdr + "vmrdma0  nmlx5_rdma  Active  abc  1 Gbps  vmnic4         CX5\n")
	wantParseError(t, err, 3)
	_, err = RDMADeviceList(hdr + "vmrdma0  nmlx5_rdma  Active  256  fast    vmnic4         CX5\n")
	wantParseError(t, err, 3)
	// The output of another command is refused, naming the missing column.
	_, err = RDMADeviceList("Name     MTU  Speed\n-------  ---  -----\nvmrdma0  256  1 Gbps\n")
	wantParseError(t, err, 1)
}

func TestSpeedMbps(t *testing.T) {
	for in, want := range map[string]int{"100 Gbps": 100000, "25000Mbps": 25000, "10000": 10000, "N/A": 0, "": 0, "40 Gb/s": 40000, "2.5 Gbps": 2500} {
		got, ok := SpeedMbps(in)
		if !ok || got != want {
			t.Errorf("SpeedMbps(%q) = %d %v", in, got, ok)
		}
	}
	if _, ok := SpeedMbps("fast"); ok {
		t.Error("fast parsed")
	}
}

func TestVMProcessListSamples(t *testing.T) {
	vms := parseSample(t, VMProcessList, "esxcli_vm_process_list__cactus_esxi670_2vms.txt")
	if len(vms) != 2 {
		t.Fatalf("%d vms", len(vms))
	}
	eq(t, "name", vms[1].DisplayName, "ubuntu_gns3")
	eq(t, "wid", vms[1].WorldID, "4455488")
	eq(t, "cartel", vms[1].CartelID, "4455487")
	eq(t, "uuid", vms[0].UUID, "56 4d 12 f0 01 11 99 9e-24 51 75 dc de 5f 4b 10")
	eq(t, "cfg", vms[0].ConfigFile, "/vmfs/volumes/5bc7459f-967eeb48-b3f7-20677cd9a16c/gns3_vm/gns3_vm.vmx")
	eq(t, "line", vms[1].Line, 10)

	vms, err := VMProcessList(sample(t, "esxcli_vm_process_list__blog_esxi80u3_extend_vmfs.txt"))
	if err != nil || len(vms) != 1 || vms[0].DisplayName != "VC" || vms[0].WorldID != "603996" {
		t.Fatalf("%+v %v", vms, err)
	}
	// A copy that lost its indentation (seed document).
	vms, err = VMProcessList(sample(t, "seed_002_vm_process_list_then_vsish_properties.txt"))
	if err != nil || len(vms) != 1 || vms[0].DisplayName != "rhel80_1" || vms[0].WorldID != "1001474360" {
		t.Fatalf("flat: %+v %v", vms, err)
	}
}

func TestVMProcessListFreeTextNames(t *testing.T) {
	names := []string{`db "prod" $(rm -rf /); echo`, "Ünïcødé VM – 試験", "World ID: 42", "name with trailing spaces   ", "esxcli vm process list"}
	var b strings.Builder
	b.WriteString("[root@esx01:~] esxcli vm process list\r\n")
	for i, n := range names {
		b.WriteString(n + "\r\n   World ID: 10" + string(rune('0'+i)) + "\r\n   Process ID: 0\r\n   Display Name: " + strings.TrimSpace(n) + "\r\n   Config File: /vmfs/volumes/ds/x/x.vmx\r\n\r\n")
	}
	vms, err := VMProcessList(b.String())
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != len(names) {
		t.Fatalf("%d vms", len(vms))
	}
	for i, n := range names {
		eq(t, "name", vms[i].DisplayName, strings.TrimSpace(n))
		eq(t, "wid", vms[i].WorldID, "10"+string(rune('0'+i)))
	}
	// Echo-looking title directly at the start, without a prompt.
	vms, err = VMProcessList("esxcli vm process list\n   World ID: 5\n")
	if err != nil || len(vms) != 1 || vms[0].DisplayName != "esxcli vm process list" {
		t.Fatalf("%+v %v", vms, err)
	}
	vms, err = VMProcessList("")
	if err != nil || len(vms) != 0 {
		t.Fatal("empty list")
	}
	_, err = VMProcessList("vm\n   Process ID: 0\n")
	wantParseError(t, err, 1)
	_, err = VMProcessList("vm\n   World ID: abc\n")
	wantParseError(t, err, 2)
}

func TestVsishLs(t *testing.T) {
	es := parseSample(t, VsishLs, "vsish_ls__intel_mfd_i40en_rxsecqueues.txt")
	if len(es) != 15 || es[0].Name != "4" || !es[0].IsDir || es[14].Name != "18" || es[14].Line != 15 {
		t.Fatalf("%+v", es)
	}
	es, err := VsishLs("[root@esx:~] vsish -e ls /vmkModules/vrdma/pvrdmaDevices/\r\n1001474360_0/\r\n1001474360_1/\r\nstats\r\n")
	if err != nil || len(es) != 3 || es[1].Name != "1001474360_1" || es[2].IsDir || es[0].Line != 2 {
		t.Fatalf("%+v %v", es, err)
	}
	_, err = VsishLs("VSI_NODE_NOT_FOUND\n")
	wantParseError(t, err, 1)
	// One unreadable entry among readable ones is skipped, the others kept
	// (issue 24.8: it hid every PVRDMA device of the host).
	es, err = VsishLs("2100788_0/\nnot a node name\n2101236_0/\n")
	sk, partial := Skipped(err)
	if !partial || len(sk) != 1 || sk[0].Line != 2 || len(es) != 2 || es[1].Name != "2101236_0" {
		t.Fatalf("%+v %v", es, err)
	}
	// Mostly garbage is no listing.
	_, err = VsishLs("a/\nnot a node\nnor this one\n")
	wantParseError(t, err, 2)
}

func TestPVRDMAProperties(t *testing.T) {
	// The seed holds a vm process list then the vsish block (pasted
	// session, no closing brace); cut at the vsish prompt.
	seed := sample(t, "seed_002_vm_process_list_then_vsish_properties.txt")
	d, err := PVRDMAProperties(seed[strings.Index(seed, "[root@sc2-cpbu2-b0710:/vmfs/volumes/abd78922-9b6e495c/bryantan/scripts] vsish"):])
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "wid", d.WorldID, "1001474360")
	eq(t, "idx", d.Index, "0")
	eq(t, "mac", d.MAC, "00:50:56:8a:9f:c2")
	eq(t, "hca", d.PhysicalHCA, 1)
	eq(t, "roce", d.RoCEVersion, 2)
	eq(t, "mtu", d.ActiveMTU, 1024)
	eq(t, "props", d.Props.Len(), 17)
	eq(t, "prop", d.Props.Get("DMA accelerator transfer threshold"), "32768")
	eq(t, "mtu line", d.Props.RefOf("Active MTU").Line, 19) // line of the text passed in

	in := "PVRDMA Device Properties {\r\n   VMM leader ID of VM:2099\r\n      adapter index:1\r\n   MAC address:00:50:56:aa:bb:cc\r\n   Physical HCA available:0\r\n   RoCE version:1\r\n   Active MTU:4096\r\n}\r\n"
	d, err = PVRDMAProperties(in)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "wid", d.WorldID, "2099")
	eq(t, "idx", d.Index, "1")
	eq(t, "hca0", d.PhysicalHCA, 0)
	eq(t, "mtu4096", d.ActiveMTU, 4096)
	eq(t, "roce1", d.RoCEVersion, 1)
	eq(t, "mac line text", d.Props.RefOf("MAC address").Text, "   MAC address:00:50:56:aa:bb:cc")

	_, err = PVRDMAProperties("VSI_NODE_NOT_FOUND\n")
	wantParseError(t, err, 1)
	wantSkipped := func(err error, line int) {
		t.Helper()
		if sk, ok := Skipped(err); !ok || sk[0].Line != line {
			t.Fatalf("want line %d skipped, got %v", line, err)
		}
	}
	_, err = PVRDMAProperties("PVRDMA Device Properties {\nActive MTU:x\nRoCE version:2\n}\n")
	wantSkipped(err, 2)
	_, err = PVRDMAProperties("PVRDMA Device Properties {\nno colon here\n}\n")
	wantParseError(t, err, 2)
	_, err = PVRDMAProperties("PVRDMA Device Properties {\na:1\n}\ntrailing\n")
	wantSkipped(err, 4)
	_, err = PVRDMAProperties("")
	wantParseError(t, err, 0)
}
