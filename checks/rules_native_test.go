package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// native enables native endpoints on the good host's VM (vrdmaX, X the
// index), at hardware version hw, with vsish's `Native endpoints
// supported` (and `Namespace allocated`) at supported.
func native(key, hw, supported string) func(h *facts.Host) {
	return func(h *facts.Host) {
		withVMX(func(s string) string {
			return replace(`virtualHW.version = "19"`, `virtualHW.version = "`+hw+`"`)(s) + key + ` = "TRUE"` + "\n"
		})(h)
		d := &h.PVRDMADevices[0]
		d.Props = rec(cmdProps, "MAC address", d.MAC, "Physical HCA available", "1", "Namespace allocated", supported,
			"Native endpoints supported", supported, "RoCE version", "2", "Active MTU", "4096")
	}
}

func esxi(version, update string) func(h *facts.Host) {
	return func(h *facts.Host) {
		h.Version.Version, h.Version.Update = version, update
		h.Version.Ref = ref(cmdVersion, 2, "   Version: "+version)
	}
}

// Native endpoints need hardware 18, ESXi 7.0 U1, PVRDMA namespaces (vsish
// `Native endpoints supported:1`) and vrdmaX naming a PVRDMA adapter (seed
// 004); PVRDMA-to-PVRDMA traffic works without them: a warning.
func TestNativeEndpointsUnavailable(t *testing.T) {
	const k1 = "vrdma1.nativeEndpointSupport"
	runCases(t, "NATIVE_ENDPOINTS_UNAVAILABLE", []ruleCase{
		{name: "everything there: passes (near miss)", hosts: one(native(k1, "18", "1")), exact: true,
			want: []want{{host: "esx01", subject: vmName, status: StatusPass}}},
		{name: "not enabled: passes", hosts: one(withVMX(nil)), exact: true,
			want: []want{{host: "esx01", subject: vmName, status: StatusPass}}},
		{name: "hardware 17: warning", hosts: one(native(k1, "17", "1")), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Warning, "virtual hardware version 17 (native endpoints need 18 or later)", `virtualHW.version = "17"`}}},
		{name: "no namespaces: warning, quoting vsish", hosts: one(native(k1, "19", "0")), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Warning,
				"vsish shows `Native endpoints supported:0` for its adapter hpc-esx01 (PVRDMA adapter 0) and `Namespace allocated:0`: PVRDMA namespaces are not enabled",
				"Native endpoints supported: 0"}}},
		{name: "an index that names no PVRDMA adapter: warning", hosts: one(native("vrdma3.nativeEndpointSupport", "19", "1")), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Warning, "vrdma3.nativeEndpointSupport in the .vmx names adapter index 3, which is not one of its PVRDMA adapters (ethernet1", "vrdma3"}}},
		{name: "ESXi 7.0 GA: warning", hosts: one(both(native(k1, "18", "1"), esxi("7.0.0", "0"))), exact: true,
			want: []want{{"esx01", vmName, StatusFail, Warning, "esx01 runs ESXi 7.0.0 (native endpoints need 7.0 Update 1 or later)", "Version: 7.0.0"}}},
		{name: "ESXi 7.0 U1: passes", hosts: one(both(native(k1, "18", "1"), esxi("7.0.1", "1"))), exact: true,
			want: []want{{host: "esx01", subject: vmName, status: StatusPass}}},
		{name: "vCenter's Network adapter 2 is index 1: passes", exact: true,
			hosts: one(both(native(k1, "18", "1"), vcenterCopy(func(c *parse.VMConfig) {
				for i := range c.Adapters {
					c.Adapters[i].Label = strings.Replace(c.Adapters[i].Label, "ethernet", "Network adapter ", 1)
					if c.Adapters[i].Label == "Network adapter 1" {
						c.Adapters[i].Label = "Network adapter 2"
					} else if c.Adapters[i].Label == "Network adapter 0" {
						c.Adapters[i].Label = "Network adapter 1"
					}
				}
			}))),
			want: []want{{host: "esx01", subject: vmName, status: StatusPass}}},
		// A source whose adapter labels carry no index (a simulator's
		// "device 4000"): the index is not judged from it.
		{name: "labels without an index: not judged from that source", exact: true,
			hosts: one(both(native(k1, "18", "1"), vcenterCopy(func(c *parse.VMConfig) {
				for i := range c.Adapters {
					c.Adapters[i].Label = "device 400" + string(rune('0'+i))
				}
			}))),
			want: []want{{host: "esx01", subject: vmName, status: StatusPass}}},
	})
	f := runRule(t, "NATIVE_ENDPOINTS_UNAVAILABLE", one(native(k1, "17", "0"))()...)
	if len(f) != 1 || !strings.Contains(f[0].Message, "It still talks RDMA to other PVRDMA VMs") || !strings.Contains(f[0].Fix, "“Remote Direct Memory Access for Virtual Machines”") {
		t.Errorf("%+v", f)
	}
}
