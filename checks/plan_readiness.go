package checks

import (
	"fmt"
	"strings"
)

// The fix plan of a host that is not ready (HOST_NOT_READY): the seeds'
// host setup, one step for each step of the readiness table it fails, in
// the seeds' order, each citing the finding.

// readinessActions are the plan actions of the readiness steps.
var readinessActions = map[string]string{stepRDMA: "install_rdma", stepUplink: "set_uplinks", stepVmknic: "tag_vmknic",
	stepFirewall: "open_firewall", stepMTU: "set_mtu", stepLossless: "enable_pfc"}

// readinessDoes says what a step's command does, for a step whose fix is
// the command alone.
var readinessDoes = map[string]string{stepVmknic: "tag the PVRDMA vmknic, as seeds 000 and 002 do on every host",
	stepFirewall: "enable the pvrdma firewall ruleset (TCP 28250-28761 in and out), as seeds 000 and 002 do on every host",
	stepMTU:      "raise the vmknic's MTU to the vDS's"}

// readinessPlan adds the steps of the host's HOST_NOT_READY finding (any
// severity: preparing a host is work even where only an admin would move
// a PVRDMA VM to it) and returns its verification steps.
func (b *planBuilder) readinessPlan(row *HostReadiness) []PlanStep {
	var nr []Finding
	for _, f := range b.fs {
		if f.RuleID == "HOST_NOT_READY" {
			nr = append(nr, f)
		}
	}
	if len(nr) == 0 || row == nil {
		return nil
	}
	host := b.h.Host
	var verify []PlanStep
	for _, c := range row.Cells {
		if c.State != CellFail || c.fix == "" {
			continue
		}
		s := PlanStep{Action: readinessActions[c.Step], Resolves: cite(nr...)}
		text := c.fix
		if strings.HasPrefix(text, "esxcli ") {
			s.Command, _, _ = strings.Cut(text, " (")
			does := readinessDoes[c.Step]
			if c.Step == stepVmknic && strings.Contains(c.Text, "IPv4") {
				does = "give the PVRDMA vmknic an IPv4 address in the other hosts' PVRDMA subnet"
			}
			text = does + " (" + c.Text + ")."
		} else {
			text += "."
		}
		s.Text = "On " + host + ": " + text
		switch c.Step {
		case stepRDMA:
			if row.Device != "" && !strings.Contains(c.Text, "no RoCE") {
				s.Action = "repair_link"
				s.Sets = []Effect{{"link of " + pairedUplink(b.h, row.Device) + " on " + host, "up"}}
			} else {
				s.Sets = []Effect{{host + " RDMA device", "installed"}}
			}
			verify = append(verify, PlanStep{Action: "verify", Command: "esxcli rdma device list", Expect: "an RDMA device Active, paired with the PVRDMA vDS's uplink"})
		case stepUplink:
			up := "the RoCE NIC's vmnic"
			if row.Device != "" {
				up = pairedUplink(b.h, row.Device)
			}
			s.Sets = []Effect{{fmt.Sprintf("uplinks of the PVRDMA vDS on %s", host), "only " + up}}
			verify = append(verify, PlanStep{Action: "verify", Command: "esxcli network vswitch dvs vmware list", Expect: "Uplinks: " + up})
		case stepVmknic:
			if strings.Contains(c.Text, "IPv4") {
				s.Action = "set_ipv4"
				s.Sets = []Effect{{"IPv4 of the PVRDMA vmknic on " + host, "static"}}
			} else {
				target := strings.TrimPrefix(s.Command, "esxcli system settings advanced set -o /Net/PVRDMAVmknic -s ")
				if s.Command == "" {
					target = "vmkN"
				}
				s.Sets = []Effect{{"/Net/PVRDMAVmknic on " + host, target}}
				verify = append(verify, PlanStep{Action: "verify", Command: "esxcli system settings advanced list -o /Net/PVRDMAVmknic", Expect: "String Value: " + target})
			}
		case stepFirewall:
			s.Sets = []Effect{{"pvrdma ruleset on " + host, "enabled"}}
			verify = append(verify, PlanStep{Action: "verify", Command: "esxcli network firewall ruleset list", Expect: "pvrdma  true"})
		case stepMTU:
			s.Sets = []Effect{{"MTU of the PVRDMA data path of " + host, "the vDS's MTU"}}
		case stepLossless:
			nic := pairedUplink(b.h, row.Device)
			s.Sets = []Effect{{"lossless Ethernet on " + nic + " of " + host, "on"}}
			verify = append(verify, PlanStep{Action: "verify", Command: "esxcli network nic dcb status get -n " + shellArg(nic, "vmnicN"), Expect: "PFC Enabled: true"})
		}
		b.add(s)
	}
	return verify
}
