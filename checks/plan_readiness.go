package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
	"slices"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The plan contribution of a host that is not ready (HOST_NOT_READY): the
// actions of each step of the seeds' host setup its readiness row fails,
// the same actions the steps' own rules propose on a host that runs
// PVRDMA VMs (plan_host.go, plan_driver.go). HOST_NOT_READY is planned at
// any severity (PlansChecked): preparing a host is work even where only an
// admin would move a PVRDMA VM to it.

func planHostNotReady(p *planner, f Finding) {
	h := p.host
	rd := readinessOf(p.fleet, p.fleet.DataPath())
	row := rd.row(h.Host)
	if row == nil {
		p.add(plan.PhaseInvestigate, plan.Investigate{Note: f.Fix})
		return
	}
	// The steps read the PVRDMA vDS of the fleet (the host's own data path
	// has none while no vmknic of it is tagged).
	var sw *parse.DVSwitch
	if rd.vds != nil {
		sw = vdsOf(h, rd.vds.Key)
	}
	saved := p.path
	hp := *p.path
	hp.Switch = sw
	p.path = &hp
	defer func() { p.path = saved }()
	dev := rdmaDevice(h, row.Device)
	start := len(p.props)
	defer func() {
		// A step no action models (joining the vDS, a remedy told in
		// words) leaves the host not ready whatever the others do: they
		// prepare it and resolve nothing.
		mine := p.props[start:]
		if slices.ContainsFunc(mine, func(pr *proposal) bool { _, ok := pr.action.(plan.Investigate); return ok }) {
			for _, pr := range mine {
				pr.resolves = slices.DeleteFunc(pr.resolves, func(x Finding) bool { return x.Key() == f.Key() })
				pr.resolvesAtPowerOn = slices.DeleteFunc(pr.resolvesAtPowerOn, func(x Finding) bool { return x.Key() == f.Key() })
			}
		}
	}()
	for _, c := range row.Cells {
		if c.State != CellFail {
			continue
		}
		switch c.Step {
		case stepRDMA:
			switch {
			case dev == nil || strings.Contains(c.Text, "no RoCE"):
				p.rdmaRemedy(f) // which NIC gets RDMA decides the uplink and its lossless Ethernet
			case nicAdminDown(h, dev.PairedUplink):
				p.add(plan.PhaseUplinks, plan.NICUp{NIC: dev.PairedUplink, Device: dev.Name}, f)
			default:
				p.add(plan.PhaseUplinks, plan.RepairLink{NIC: dev.PairedUplink, Device: dev.Name}, f)
			}
		case stepUplink:
			if sw == nil || dev == nil {
				// Joining the vDS (Add and Manage Hosts) is vSphere work no
				// action models yet: what to do, in words.
				p.add(plan.PhaseInvestigate, plan.Investigate{Note: capitalFirst(c.fix) + "."})
				continue
			}
			p.add(plan.PhaseUplinks, plan.SetUplinks{Switch: sw.Name, Uplinks: []string{dev.PairedUplink}}, f).
				powerCycle(runningPVRDMAVMs(h)...)
		case stepVmknic:
			if v := hp.TaggedVmknic; v != nil && strings.Contains(c.Text, "IPv4") {
				p.add(plan.PhaseHost, plan.SetVmknicIPv4{Vmknic: v.Name}, f)
				continue
			}
			// The vmknic in the other hosts' PVRDMA subnet, never one they
			// cannot reach (reach.go).
			target, _ := tagTarget(p.fleet, h, &hp, sw)
			if target == "" {
				p.add(plan.PhaseInvestigate, plan.Investigate{Note: capitalFirst(c.fix) + "."})
				continue
			}
			p.add(plan.PhaseHost, plan.TagVmknic{Vmknic: target}, f)
		case stepFirewall:
			planFirewall(p, f)
		case stepMTU:
			if sw != nil {
				if v := vmknicOn(h, sw); v != nil && v.MTU > 0 && v.MTU < sw.MTU {
					p.add(plan.PhaseHost, plan.SetVmknicMTU{Vmknic: v.Name, MTU: sw.MTU}, f)
					continue
				}
			}
			p.add(plan.PhaseInvestigate, plan.Investigate{Note: capitalFirst(c.fix) + "."})
		case stepLossless:
			if dev != nil && dev.PairedUplink != "" {
				p.lossless(dev.PairedUplink, f)
			}
		}
	}
}

// nicAdminDown reports whether the host's uplink is administratively down.
func nicAdminDown(h *facts.Host, nic string) bool {
	n := h.NICNamed(nic)
	return n != nil && strings.EqualFold(n.AdminStatus, "down")
}
