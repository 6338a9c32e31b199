package checks

import (
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// rulesVMXNET3 are this area's rules in the catalogue (catalogueList):
// ID, default severity, scope (host unless said), Needs (the engine
// reports a rule not evaluated where one is missing) and the check.
var rulesVMXNET3 = []*Rule{
	{ID: "VMXNET3_ON_PVRDMA_PORTGROUP", Severity: Info, Check: checkVMXNET3OnPVRDMAPortgroup,
		Needs: []hostio.Kind{catalog.KindDVSList, catalog.KindRDMADeviceList, catalog.KindVMProcessList, catalog.KindPVRDMADeviceLs}},
}

// The checks of this area (prose: catalogue.yaml): VMs that use the PVRDMA
// network without PVRDMA: a VM with no PVRDMA adapter whose network adapter
// sits on the port group the host's PVRDMA adapters use, beside an Active
// RDMA device. Its traffic goes through the vmkernel TCP/IP stack where the
// adapters beside it use RDMA; the Bitfusion PVRDMA blog recommends PVRDMA
// for exactly these VMs. Information, never above a warning: VMXNET3 works.

// bitfusionRole names a VM's Bitfusion role by its name ("" when its name
// says none): the names the Bitfusion appliances and their clients are
// given in the field.
func bitfusionRole(vm string) string {
	n := strings.ToLower(vm)
	switch {
	case strings.Contains(n, "bitfusion-client") || strings.Contains(n, "bf-client") || strings.Contains(n, "bfclient"):
		return "Bitfusion client"
	case strings.Contains(n, "bitfusion") || strings.Contains(n, "bf-server") || strings.Contains(n, "bfserver"):
		return "Bitfusion server"
	}
	return ""
}

func checkVMXNET3OnPVRDMAPortgroup(in *Input, r *Reporter) {
	h, hp := in.Host, in.Path
	sw := hp.Switch
	if ok, why := h.Available(catalog.KindPVRDMAProperties); !ok && len(h.Sources[catalog.KindPVRDMAProperties]) > 0 {
		// Which VMs have a PVRDMA adapter is not known: any VM's port
		// could be one.
		r.NotEvaluated(h.Host, why)
		return
	}
	listed := 0
	for _, e := range h.PVRDMAListing {
		if _, _, ok := e.DeviceID(); ok {
			listed++
		}
	}
	if listed > len(h.PVRDMADevices) {
		r.NotEvaluated(h.Host, fmt.Sprintf("vsish lists %d PVRDMA adapters but the properties of only %d were read: which VMs have a PVRDMA "+
			"adapter is not known", listed, len(h.PVRDMADevices)))
		return
	}
	if sw == nil || len(hp.Usable) == 0 {
		return // no RDMA here: the VM could not use it either
	}
	// The port groups of the PVRDMA adapters on this vDS, across the
	// fleet (a port group ID is the vDS's), and the VMs that have one.
	pvrdmaVMs := map[string]bool{}
	for _, d := range h.PVRDMADevices {
		pvrdmaVMs[d.VMName] = true
	}
	for _, v := range vmViews(h) {
		if v.pvrdma() {
			pvrdmaVMs[v.Name] = true
		}
	}
	pgs := pvrdmaPortgroups(in.Fleet, sw.Name)
	if len(pgs) == 0 {
		return
	}
	type hit struct {
		vm, eth, pg string
		ref         parse.Ref
	}
	var hits []hit
	for _, port := range sw.Record.Nested["DVPort"] {
		vm, eth, ok := vmClient(port.Get("Client"))
		if !ok || pvrdmaVMs[vm] || !pgs[port.Get("DVPortgroup ID")] {
			continue
		}
		hits = append(hits, hit{vm, eth, port.Get("DVPortgroup ID"), port.RefOf("Client")})
	}
	sort.Slice(hits, func(i, j int) bool {
		return hits[i].vm < hits[j].vm || hits[i].vm == hits[j].vm && hits[i].eth < hits[j].eth
	})
	dev := hp.Usable[0]
	for _, x := range hits {
		kind := "a network adapter that is not PVRDMA (VMXNET3 unless set otherwise; its configuration was not read)"
		for _, v := range vmViews(h) {
			if v.Name != x.vm {
				continue
			}
			for _, c := range v.Configs {
				for _, a := range c.Adapters {
					if strings.EqualFold(a.Label, "ethernet"+strings.TrimPrefix(x.eth, "eth")) && a.Type != "" {
						kind = "a " + strings.ToUpper(a.Type) + " adapter"
					}
				}
			}
		}
		who := x.vm
		role := bitfusionRole(x.vm)
		if role != "" {
			who = fmt.Sprintf("%s (a %s by its name)", x.vm, role)
		}
		msg := fmt.Sprintf("%s has %s (%s) on %s's port group %s, which the PVRDMA adapters use, while %s's %s is Active: its traffic "+
			"goes through the TCP/IP stack, not RDMA", who, kind, x.eth, sw.Name, x.pg, h.Host, dev.Name)
		if role != "" {
			msg += "; the Bitfusion PVRDMA blog (\"PVRDMA and vSphere Bitfusion\") recommends PVRDMA for Bitfusion servers and clients"
		}
		r.Fail(x.vm+" ("+x.eth+")", msg,
			fmt.Sprintf("If %s should use RDMA: power it off, add a PVRDMA network adapter on port group %s (vSphere Client: Edit Settings > Add "+
				"New Device > Network Adapter, type PVRDMA; reserve all guest memory), power it on and load vmw_pvrdma in the guest; keep the "+
				"VMXNET3 adapter for management traffic. Nothing to do if it does not need RDMA.", x.vm, x.pg),
			Ev(h.Host, x.ref), Ev(h.Host, dev.Ref))
	}
	if len(hits) == 0 {
		r.Pass(sw.Name)
	}
}

// vmClient splits a DVPort client "vm.eth1" into the VM and its adapter.
func vmClient(client string) (vm, eth string, ok bool) {
	i := strings.LastIndex(client, ".eth")
	if i <= 0 {
		return "", "", false
	}
	return client[:i], client[i+1:], true
}

// pvrdmaPortgroups are the port groups of the PVRDMA adapters on the vDS
// named sw, across the fleet (a port group ID is the vDS's): derived once
// per fleet and switch, not once per host.
func pvrdmaPortgroups(fleet *facts.Fleet, sw string) map[string]bool {
	return fleet.DataPath().Memo("checks.pvrdmaPortgroups\x00"+sw, func() any {
		pgs := map[string]bool{}
		for i := range fleet.Hosts {
			o := &fleet.Hosts[i]
			vms := map[string]bool{}
			for _, d := range o.PVRDMADevices {
				vms[d.VMName] = true
			}
			for _, d := range o.DVSwitches {
				if d.Name != sw {
					continue
				}
				for _, port := range d.Record.Nested["DVPort"] {
					if vm, _, ok := vmClient(port.Get("Client")); ok && vms[vm] && port.Get("DVPortgroup ID") != "" {
						pgs[port.Get("DVPortgroup ID")] = true
					}
				}
			}
		}
		return pgs
	}).(map[string]bool)
}
