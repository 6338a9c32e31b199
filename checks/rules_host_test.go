package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

func one(f func(h *facts.Host)) func() []facts.Host {
	return func() []facts.Host {
		h := goodHost("esx01", "192.168.50.11")
		if f != nil {
			f(&h)
		}
		return []facts.Host{h}
	}
}

func TestRuleESXiVersion(t *testing.T) {
	runCases(t, "ESXI_VERSION_UNSUPPORTED", []ruleCase{
		{name: "fires on 6.0", hosts: one(func(h *facts.Host) {
			h.Version.Version = "6.0.0"
			h.Version.Ref = ref(cmdVersion, 2, "   Version: 6.0.0")
		}), want: []want{{"esx01", "esx01", StatusFail, Critical, "runs ESXi 6.0.0", "Version: 6.0.0"}}, exact: true},
		{name: "passes on 6.5", hosts: one(func(h *facts.Host) { h.Version.Version = "6.5.0" }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdVersion); h.Version = nil }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "esxcli system version get"}}, exact: true},
	})
}

func TestRuleNoRDMADevice(t *testing.T) {
	noDev := func(h *facts.Host) { h.RDMADevices = nil }
	runCases(t, "NO_RDMA_DEVICE", []ruleCase{
		// Sources disagree (critical cross-host / info same-host): critical
		// when another scanned host runs PVRDMA VMs...
		{name: "critical with PVRDMA peers", hosts: func() []facts.Host {
			a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
			noDev(&b)
			return []facts.Host{a, b}
		}, want: []want{
			{"esx02", "esx02", StatusFail, Critical, "while esx01 also runs PVRDMA VMs", "2100788_0/"},
			{host: "esx01", subject: "esx01", status: StatusPass},
		}, exact: true},
		// ...info when this host is the only one with PVRDMA VMs.
		{name: "info without PVRDMA peers", hosts: func() []facts.Host {
			a, b := goodHost("esx01", "192.168.50.11"), goodHost("esx02", "192.168.50.12")
			noDev(&a)
			b.PVRDMAListing, b.PVRDMADevices = nil, nil
			return []facts.Host{a, b}
		}, want: []want{{"esx01", "esx01", StatusFail, Info, "same host only", "2100788_0/"}}, exact: true},
		{name: "passes without PVRDMA VMs", hosts: one(func(h *facts.Host) { noDev(h); h.PVRDMAListing, h.PVRDMADevices = nil, nil }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdRDMAList) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "`esxcli rdma device list` failed"}}, exact: true},
	})
}

func TestRuleRDMADeviceDown(t *testing.T) {
	runCases(t, "RDMA_DEVICE_DOWN", []ruleCase{
		{name: "fires", hosts: one(func(h *facts.Host) {
			h.RDMADevices[0].State = "Down"
			h.RDMADevices[0].Ref.Text = "vmrdma0  nmlx5_rdma  Down    4096  0 Mbps    vmnic4"
		}), want: []want{{"esx01", "vmrdma0", StatusFail, Critical, "vmrdma0 (paired with vmnic4) is Down", "Down    4096"}}, exact: true},
		{name: "admin down suggests nic up", hosts: one(func(h *facts.Host) {
			h.RDMADevices[0].State = "Down"
			h.NICs[0].AdminStatus = "Down"
		}), want: []want{{"esx01", "vmrdma0", StatusFail, Critical, "is Down", "vmnic4"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmrdma0", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdRDMAList) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "esxcli rdma device list"}}, exact: true},
	})
	// The admin-down fix names the exact command.
	h := goodHost("esx01", "192.168.50.11")
	h.RDMADevices[0].State = "Down"
	h.NICs[0].AdminStatus = "Down"
	got := runRule(t, "RDMA_DEVICE_DOWN", h)
	if len(got) != 1 || got[0].Fix == "" || !strings.Contains(got[0].Fix, "esxcli network nic up -n vmnic4") {
		t.Errorf("admin down fix: %+v", got)
	}
}

func TestRulePVRDMAVmknicUnset(t *testing.T) {
	runCases(t, "PVRDMA_VMKNIC_UNSET", []ruleCase{
		{name: "fires when empty", hosts: one(func(h *facts.Host) {
			h.PVRDMAVmknic.StringValue = ""
			h.PVRDMAVmknic.Record = rec(cmdTag, "Path", "/Net/PVRDMAVmknic", "String Value", "")
		}), want: []want{{"esx01", "/Net/PVRDMAVmknic", StatusFail, Critical, "is empty on esx01", "String Value"}}, exact: true},
		{name: "fires when naming a missing vmknic", hosts: one(func(h *facts.Host) {
			h.PVRDMAVmknic.StringValue = "vmk7"
			h.PVRDMAVmknic.Record = rec(cmdTag, "Path", "/Net/PVRDMAVmknic", "String Value", "vmk7")
		}), want: []want{{"esx01", "/Net/PVRDMAVmknic", StatusFail, Critical, "names vmk7, which does not exist", "String Value: vmk7"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "/Net/PVRDMAVmknic", status: StatusPass}}, exact: true},
		{name: "passes empty without PVRDMA VMs", hosts: one(func(h *facts.Host) {
			h.PVRDMAVmknic.StringValue = ""
			h.PVRDMAListing, h.PVRDMADevices = nil, nil
		}), want: []want{{host: "esx01", subject: "/Net/PVRDMAVmknic", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdTag); h.PVRDMAVmknic = nil }),
			want: []want{{host: "esx01", subject: "/Net/PVRDMAVmknic", status: StatusNotEvaluated, msg: "/Net/PVRDMAVmknic"}}, exact: true},
	})
	h := goodHost("esx01", "192.168.50.11")
	h.PVRDMAVmknic.StringValue = ""
	got := runRule(t, "PVRDMA_VMKNIC_UNSET", h)
	if len(got) != 1 || !strings.Contains(got[0].Fix, "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s vmk1") {
		t.Errorf("fix should name vmk1 (on rdma-dvs, bound to vmrdma0): %+v", got)
	}
}

func TestRulePVRDMAVmknicNotOnDVS(t *testing.T) {
	runCases(t, "PVRDMA_VMKNIC_NOT_ON_DVS", []ruleCase{
		{name: "fires on a standard switch", hosts: one(func(h *facts.Host) {
			h.PVRDMAVmknic.StringValue = "vmk0"
			h.Vmknics[0].Record = rec(cmdIfList, "Name", "vmk0", "Portset", "vSwitch0", "VDS Name", "N/A")
		}), want: []want{{"esx01", "vmk0", StatusFail, Info, "is on standard switch vSwitch0, not on the PVRDMA vDS rdma-dvs: this is the setup VMware's PVRDMA guides use", "VDS Name: N/A"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmk1", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdDVS) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdDVS}}, exact: true},
	})
}

func TestRulePVRDMAVmknicNoIPv4(t *testing.T) {
	runCases(t, "PVRDMA_VMKNIC_NO_IPV4", []ruleCase{
		{name: "fires on 0.0.0.0", hosts: one(func(h *facts.Host) {
			h.IPv4[1].Address = "0.0.0.0"
			h.IPv4[1].Ref = ref(cmdIPv4, 4, "vmk1  0.0.0.0")
		}), want: []want{{"esx01", "vmk1", StatusFail, Critical, "has no IPv4 address", "vmk1  0.0.0.0"}}, exact: true},
		{name: "fires without a row", hosts: one(func(h *facts.Host) { h.IPv4 = h.IPv4[:1] }),
			want: []want{{"esx01", "vmk1", StatusFail, Critical, "has no IPv4 address", "vmk1"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmk1", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdIPv4) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdIPv4}}, exact: true},
	})
}

func TestRuleFirewallClosed(t *testing.T) {
	runCases(t, "PVRDMA_FIREWALL_CLOSED", []ruleCase{
		{name: "fires when disabled", hosts: one(func(h *facts.Host) {
			h.Rulesets[1].Enabled = false
			h.Rulesets[1].Ref.Text = "pvrdma                         false                         true                     true"
		}), want: []want{{"esx01", "pvrdma", StatusFail, Critical, "disabled on esx01", "pvrdma                         false"}}, exact: true},
		{name: "fires when missing", hosts: one(func(h *facts.Host) { h.Rulesets = h.Rulesets[:1] }),
			want: []want{{host: "esx01", subject: "pvrdma", status: StatusFail, severity: Critical, msg: "has no pvrdma firewall ruleset"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "pvrdma", status: StatusPass}}, exact: true},
		{name: "passes disabled without PVRDMA", hosts: one(func(h *facts.Host) {
			h.Rulesets[1].Enabled = false
			h.PVRDMAListing, h.PVRDMADevices = nil, nil
			h.PVRDMAVmknic.StringValue = ""
		}), want: []want{{host: "esx01", subject: "pvrdma", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdFirewall) }),
			want: []want{{host: "esx01", subject: "pvrdma", status: StatusNotEvaluated, msg: cmdFirewall}}, exact: true},
	})
}

func TestRuleRoCENotSupported(t *testing.T) {
	runCases(t, "ROCE_NOT_SUPPORTED", []ruleCase{
		{name: "fires on iWARP only", hosts: one(func(h *facts.Host) {
			h.RDMAProtocols[0] = parse.RDMAProtocol{Device: "vmrdma0", IWARP: true, Ref: ref(cmdProto, 3, "vmrdma0    false    false   true")}
		}), want: []want{{"esx01", "vmrdma0", StatusFail, Critical, "supports neither RoCE v1 nor RoCE v2", "false    false   true"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmrdma0", status: StatusPass}}, exact: true},
		{name: "not evaluated: missing row", hosts: one(func(h *facts.Host) { h.RDMAProtocols = nil }),
			want: []want{{host: "esx01", subject: "vmrdma0", status: StatusNotEvaluated, msg: "missing from `esxcli rdma device protocol list`"}}, exact: true},
		{name: "not evaluated: command failed", hosts: one(func(h *facts.Host) { missing(h, cmdProto) }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: cmdProto}}, exact: true},
	})
}
