package parse

import (
	"strings"
	"testing"
)

func TestVCenterVMConfig(t *testing.T) {
	res, lock := int64(0), false
	text := RenderVCenterVMs(VCenterVMDoc{Host: "esx01", VMs: []VCenterVM{
		{Name: "vm-a", Version: "vmx-13", GuestID: "rhel8_64Guest", MemoryMB: 4096, MemReservationMB: &res, MemLockedToMax: &lock,
			Adapters: []VCenterAdapter{{Label: "Network adapter 1", Type: "vrdma", DeviceProtocol: "rocev2"}}},
		{Name: ""},
		{Name: "vm-b", Version: "vmx-20"},
	}})
	if !strings.HasPrefix(text, `{"host":"esx01","vms":[`+"\n") || strings.Count(text, "\n") != 7 {
		t.Fatalf("one VM per line expected:\n%s", text)
	}
	vms, err := VCenterVMConfig(text)
	sk, partial := Skipped(err)
	if !partial || len(sk) != 1 || sk[0].Line != 5 {
		t.Fatalf("err %v", err)
	}
	if len(vms) != 2 || vms[0].HWVersion != 13 || !vms[0].MemReservationSet || vms[0].MemReservationMB != 0 || !vms[0].MemLockedToMaxSet ||
		vms[0].Line != 2 || vms[1].HWVersion != 20 || vms[1].MemReservationSet || vms[1].Line != 6 || vms[0].Adapters[0].Line != 3 {
		t.Errorf("%+v", vms)
	}
	if _, err := VCenterVMConfig("Name  State\n----\n"); err == nil {
		t.Error("garbage accepted")
	}
}

func TestVCenterHostConfig(t *testing.T) {
	text := RenderVCenterHost(VCenterHostDoc{Host: "esx01",
		RDMADevices: []VCenterRDMADevice{{Device: "vmrdma0", State: "activeDefer", MTU: 1024, SpeedMbps: 25000, PairedUplink: "vmnic2", RoCEv2: true}},
		Vnics:       []VCenterVnic{{Device: "vmk1", MTU: 1500, DVSUUID: "50 1a", Port: "7", IP: "10.0.0.1"}},
		Switches:    []VCenterDVS{{Name: "dvs0", UUID: "50 1a", MaxMTU: 9000, HostUplinks: []string{"vmnic2"}}},
		Options:     map[string]string{PVRDMAVmknicOption: ""},
		Rulesets:    []VCenterRuleset{{Key: "pvrdma", Rules: []VCenterRule{{Port: 28250, EndPort: 28761, Direction: "inbound", Protocol: "tcp", PortType: "dst"}}}},
	})
	h := parsed(t, VCenterHostConfig, text)
	if h.RDMADevices[0].State != "Active_defer" || h.RDMADevices[0].Speed != "25 Gbps" || h.RDMADevices[0].Line != 3 {
		t.Errorf("%+v", h.RDMADevices)
	}
	if v := h.Vmknics[0]; v.VDSName != "dvs0" || v.MTU != 1500 || v.Record.Get("MTU") != "1500" || v.Line != 6 {
		t.Errorf("%+v", v)
	}
	if h.IPv4[0].Address != "10.0.0.1" || h.DVSwitches[0].MTU != 9000 || h.DVSwitches[0].Line != 9 {
		t.Errorf("%+v %+v", h.IPv4, h.DVSwitches)
	}
	if h.PVRDMAVmknic == nil || h.PVRDMAVmknic.StringValue != "" || h.PVRDMAVmknic.Line != 11 {
		t.Errorf("%+v", h.PVRDMAVmknic)
	}
	if r := h.PVRDMARules[0]; r.Direction != "Inbound" || r.Protocol != "TCP" || r.PortEnd != 28761 || h.Rulesets[0].Enabled {
		t.Errorf("%+v", h.PVRDMARules)
	}
	if _, err := VCenterHostConfig("{"); err == nil {
		t.Error("truncated JSON accepted")
	}
}

func FuzzVCenterVMConfig(f *testing.F) {
	res, lock := int64(1024), true
	f.Add(RenderVCenterVMs(VCenterVMDoc{Host: "h", VMs: []VCenterVM{{Name: "a", MemReservationMB: &res, MemLockedToMax: &lock,
		Adapters: []VCenterAdapter{{Label: "n1", Type: "vrdma"}, {Label: "n1"}}, Passthrough: []VCenterPassthrough{{Label: "p", ID: "0000:3b:00.0"}}}, {Name: "b"}}}))
	f.Add(RenderVCenterVMs(VCenterVMDoc{Host: "h", VMs: []VCenterVM{{Name: "g", PowerState: "poweredOn", GuestHostName: "g 1; rm",
		GuestIP: "fe80::1%ens192", ToolsStatus: "guestToolsRunning", GuestNet: []VCenterGuestNIC{{MAC: "00:50:56:AA:00:01",
			IPs: []string{"10.0.0.1", "$(id)"}, Connected: &lock, Network: "VM Network"}, {}}}}}))
	fuzzOne(f, VCenterVMConfig, func(t *testing.T, text string, vms []VMConfig) {
		for _, v := range vms {
			if g := v.Guest; g != nil {
				for _, n := range g.NICs {
					if n.MAC != strings.ToLower(n.MAC) {
						t.Errorf("guest NIC MAC %q not lower case", n.MAC)
					}
				}
			}
			for _, r := range append([]Ref{v.Ref}, refsOf(v)...) {
				if r.Line > 0 {
					checkRef(t, text, r)
				}
			}
		}
	})
}

func refsOf(v VMConfig) []Ref {
	var out []Ref
	for _, a := range v.Adapters {
		out = append(out, a.Ref)
	}
	for _, p := range v.Passthrough {
		out = append(out, p.Ref)
	}
	return out
}

func FuzzVCenterHostConfig(f *testing.F) {
	f.Add(RenderVCenterHost(VCenterHostDoc{Host: "h", RDMADevices: []VCenterRDMADevice{{Device: "vmrdma0"}}, Vnics: []VCenterVnic{{Device: "vmk1"}},
		Switches: []VCenterDVS{{Name: "d", UUID: "u"}}, Options: map[string]string{PVRDMAVmknicOption: "vmk1"},
		Rulesets: []VCenterRuleset{{Key: "pvrdma", Rules: []VCenterRule{{Port: 1, Direction: "inbound", Protocol: "tcp"}}}}}))
	fuzzOne(f, VCenterHostConfig, func(t *testing.T, text string, v VCenterHost) {
		var refs []Ref
		for _, d := range v.RDMADevices {
			refs = append(refs, d.Ref)
		}
		for _, d := range v.Vmknics {
			refs = append(refs, d.Ref)
			checkRecord(t, text, d.Record)
		}
		for _, d := range v.DVSwitches {
			refs = append(refs, d.Ref)
		}
		for _, d := range v.PVRDMARules {
			refs = append(refs, d.Ref)
		}
		if v.PVRDMAVmknic != nil {
			refs = append(refs, v.PVRDMAVmknic.Ref)
		}
		for _, r := range refs {
			if r.Line > 0 {
				checkRef(t, text, r)
			}
		}
	})
}

func TestVCenterVMConfigGuest(t *testing.T) {
	on := true
	text := RenderVCenterVMs(VCenterVMDoc{Host: "esx01", VMs: []VCenterVM{
		{Name: "vm1", PowerState: "poweredOn", GuestHostName: "vm1.lab", GuestIP: "10.0.0.5", ToolsStatus: "guestToolsRunning",
			GuestNet: []VCenterGuestNIC{{MAC: "00:50:56:AA:00:01", IPs: []string{"10.0.0.5", "fe80::1"}, Connected: &on, Network: "VM Network"},
				{MAC: "00:50:56:aa:00:02", IPs: []string{"192.168.50.5"}}}},
		{Name: "vm2", PowerState: "poweredOff"},
	}})
	vms, err := VCenterVMConfig(text)
	if err != nil || len(vms) != 2 {
		t.Fatalf("%v %+v", err, vms)
	}
	g := vms[0].Guest
	if vms[0].PowerState != "poweredOn" || g == nil || g.HostName != "vm1.lab" || g.IPAddress != "10.0.0.5" || g.ToolsRunningStatus != "guestToolsRunning" {
		t.Fatalf("vm1 %+v guest %+v", vms[0], g)
	}
	if len(g.NICs) != 2 || g.NICs[0].MAC != "00:50:56:aa:00:01" || !g.NICs[0].Connected || !g.NICs[0].ConnectedSet ||
		g.NICs[0].Network != "VM Network" || len(g.NICs[0].IPs) != 2 || g.NICs[1].ConnectedSet || g.NICs[1].IPs[0] != "192.168.50.5" {
		t.Errorf("NICs %+v", g.NICs)
	}
	if vms[1].Guest != nil || vms[1].PowerState != "poweredOff" {
		t.Errorf("vm2 %+v", vms[1])
	}
	// A document from before the guest fields still reads.
	old := `{"host":"esx01","vms":[` + "\n" + `{"name":"vm3"}` + "\n]}\n"
	if vms, err := VCenterVMConfig(old); err != nil || len(vms) != 1 || vms[0].Guest != nil {
		t.Errorf("old document: %v %+v", err, vms)
	}
}
