package plan

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Every kind declares what its command disrupts, on its own value (not
// by the fallback that asks about an undeclared kind): the objects it
// names, or why it interrupts nothing; never both, never neither.
func TestEveryKindDeclaresItsDisruption(t *testing.T) {
	for _, k := range Kinds() {
		v := exampleOf(t, k)
		d, ok := v.(Disrupting)
		if !ok {
			t.Errorf("%s: declares nothing about what it disrupts (Disrupts)", k)
			continue
		}
		got := d.Disrupts("esx01")
		switch {
		case got.What == "" && got.None == "":
			t.Errorf("%s: neither what it disrupts nor why nothing", k)
		case got.What != "" && got.None != "":
			t.Errorf("%s: disrupts %q, yet says nothing is: %q", k, got.What, got.None)
		}
		for _, o := range DisruptedObjects("esx01", v) {
			if got.What != "" && !strings.Contains(got.What, o) {
				t.Errorf("%s: %q does not name %q", k, got.What, o)
			}
		}
	}
}

// The commands that stop traffic, a VM, a host or installed software
// disrupt: maintenance mode, a reboot or power-off, a link renegotiated,
// an MTU changed, a removal, a driver's configuration at the next boot.
// (A kind may join the list; none of these may leave it.)
func TestTheDisruptiveKinds(t *testing.T) {
	for _, k := range []Kind{KindPowerOffVMs, KindEnterMaintenance, KindReboot, KindInstallNIC, KindUpgradeESXi, KindEnableModule,
		KindSetModuleParams, KindSetUplinks, KindSetVmknicIPv4, KindSetVmknicMTU, KindSetVDSMTU, KindSetSwitchMTU, KindSetPause,
		KindSetSwitchFlow, KindVMReplaceAdapter, KindVMSetNetwork, KindVMSetFirmware, KindVMRemoveDevice, KindGuestSetMTU,
		KindGuestReloadDriver, KindGuestReplaceMOFED, KindGuestUpgradeKernel} {
		if d := DisruptionOf("esx01", exampleOf(t, k)); !d.Disrupts() {
			t.Errorf("%s: declared harmless (%s)", k, d.None)
		}
	}
	// /Net/PVRDMAVmknic takes effect at the next PVRDMA driver load; a
	// ruleset enabled opens ports: neither stops anything.
	for _, k := range []Kind{KindTagVmknic, KindEnableRuleset, KindExitMaintenance, KindPowerOnVMs, KindInvestigate} {
		if d := DisruptionOf("esx01", exampleOf(t, k)); d.Disrupts() {
			t.Errorf("%s: said to disrupt %q", k, d.What)
		}
	}
	// A value of a kind that declares nothing is asked about.
	if d := DisruptionOf("esx01", undeclared{}); !d.Disrupts() || !strings.Contains(d.What, "not declared") {
		t.Errorf("an undeclared kind: %+v", d)
	}
}

type undeclared struct{}

func (undeclared) Kind() Kind         { return "undeclared" }
func (undeclared) About() string      { return "" }
func (undeclared) Words(string) Words { return Words{} }
func (undeclared) Reads(string) Reads { return Reads{} }

// DisruptedObjects are the objects a disruption of v must name, read from
// its parameters (its JSON): the VMs, NICs, vmknic, switch, interface,
// adapter, hosts, module and PCI device it acts on; a removal's packages;
// the plan's host when it names none of them.
func DisruptedObjects(host string, v Value) []string {
	b, err := json.Marshal(v)
	if err != nil {
		return nil
	}
	var m map[string]any
	if json.Unmarshal(b, &m) != nil {
		return nil
	}
	var out []string
	for _, f := range []string{"vm", "vms", "nic", "nics", "uplinks", "vmknic", "switch", "netdev", "adapter", "hosts", "module"} {
		switch x := m[f].(type) {
		case string:
			out = append(out, x)
		case []any:
			for _, e := range x {
				if s, ok := e.(string); ok {
					out = append(out, s)
				}
			}
		}
	}
	if s, ok := m["device"].(string); ok && v.Kind() == KindVMRemoveDevice {
		out = append(out, s)
	}
	if v.Kind() == KindGuestReplaceMOFED {
		out = append(out, MOFEDPurge...)
	}
	if len(out) == 0 {
		out = append(out, host)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
