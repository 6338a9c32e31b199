package report

import (
	"fmt"
	"slices"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Guests in a report: each scanned Linux guest is a Host entry of
// Report.Guests (the same counts and verdict as a host), and every PVRDMA
// adapter whose guest was scanned is one AdapterPair: the host side
// (vsish) and the guest side (the same MAC) together, listed under both
// the host and the guest.

// AdapterPair is one PVRDMA adapter seen from its host and from its guest.
type AdapterPair struct {
	Host   string `json:"host"`
	VM     string `json:"vm,omitempty"`
	Index  string `json:"index,omitempty"`
	MAC    string `json:"mac"`
	Guest  string `json:"guest"`
	Device string `json:"device"`
	// Host side: bound to a physical HCA, RoCE version, Active MTU (nil
	// when the host's properties were not read).
	PhysicalHCA *bool `json:"physical_hca,omitempty"`
	RoCEVersion int   `json:"roce_version,omitempty"`
	HostMTU     int   `json:"host_active_mtu,omitempty"`
	// Guest side: port state, interface and its MTU.
	PortState string `json:"port_state,omitempty"`
	PortUp    bool   `json:"port_active"`
	Netdev    string `json:"netdev,omitempty"`
	NetdevMTU int    `json:"netdev_mtu,omitempty"`
}

// Text is the pair on one line: "esx01 hpc-node01 (PVRDMA adapter 0): HCA
// bound, RoCE v2, Active MTU 4096 <-> hpc-node01 vmw_pvrdma0: port ACTIVE,
// ens224 MTU 9000".
func (p AdapterPair) Text() string {
	host := fmt.Sprintf("%s %s (PVRDMA adapter %s)", p.Host, orDash(p.VM, "VM ?", ""), orDash(p.Index, "?", ""))
	var hs []string
	if p.PhysicalHCA != nil {
		if *p.PhysicalHCA {
			hs = append(hs, "HCA bound")
		} else {
			hs = append(hs, "no physical HCA")
		}
	}
	if p.RoCEVersion > 0 {
		hs = append(hs, fmt.Sprintf("RoCE v%d", p.RoCEVersion))
	}
	if p.HostMTU > 0 {
		hs = append(hs, fmt.Sprintf("Active MTU %d", p.HostMTU))
	}
	gs := []string{"port " + orDash(p.PortState, "state unknown", "")}
	if p.Netdev != "" {
		gs = append(gs, fmt.Sprintf("%s MTU %d", p.Netdev, p.NetdevMTU))
	}
	return fmt.Sprintf("%s: %s <-> %s %s: %s", host, orDash(strings.Join(hs, ", "), "not read", ""), p.Guest, p.Device, strings.Join(gs, ", "))
}

// addGuests moves the guests' results out of Hosts into Guests and pairs
// every scanned guest adapter with its host side.
func addGuests(r *Report, results []hostio.HostResult, fleet *facts.Fleet) {
	if len(fleet.Guests) == 0 {
		return
	}
	role := map[string]string{}
	for _, hr := range results {
		role[hr.Host] = hr.Role
	}
	var hosts []Host
	for _, h := range r.Hosts {
		if role[h.Host] == hostio.RoleGuest {
			r.Guests = append(r.Guests, h)
			continue
		}
		hosts = append(hosts, h)
	}
	r.Hosts = hosts
	byName := map[string]*Host{}
	for i := range r.Hosts {
		byName[r.Hosts[i].Host] = &r.Hosts[i]
	}
	for gi := range fleet.Guests {
		g := &fleet.Guests[gi]
		var entry *Host
		for i := range r.Guests {
			if r.Guests[i].Host == g.Guest {
				entry = &r.Guests[i]
			}
		}
		if entry == nil {
			continue
		}
		entry.Role = hostio.RoleGuest
		if g.Kernel != nil {
			entry.Version = "Linux " + g.Kernel.Release
			if g.OS != nil && g.OS.PrettyName != "" {
				entry.Version += ", " + g.OS.PrettyName
			}
		}
		for _, b := range g.Bandwidth {
			f := strings.Fields(b.Command)
			entry.Bandwidth = append(entry.Bandwidth, BandwidthLine{To: f[len(f)-1], Device: b.Device, MsgBytes: b.MsgBytes, AvgGbps: b.AvgGbps})
		}
		for _, a := range g.Adapters {
			p := AdapterPair{Guest: g.Guest, Device: a.Device, MAC: a.MAC, PortState: a.State, PortUp: a.Active, Netdev: a.Netdev, NetdevMTU: a.NetdevMTU}
			if h, d := fleet.HostSide(a); h != nil {
				p.Host, p.VM = h.Host, a.VMName
				if d != nil {
					hca := d.PhysicalHCA == 1
					p.Index, p.PhysicalHCA, p.RoCEVersion, p.HostMTU = d.Index, &hca, d.RoCEVersion, d.ActiveMTU
				}
			}
			entry.Adapters = append(entry.Adapters, p)
			if he := byName[p.Host]; he != nil {
				he.Adapters = append(he.Adapters, p)
			}
		}
	}
}

// writeTextGuests renders the GUESTS section of the text report.
func writeTextGuests(b *strings.Builder, p painter, r *Report, wrap func(string, string)) {
	if len(r.Guests) == 0 {
		return
	}
	b.WriteString("\n" + p.c("1", "GUESTS") + "\n")
	for _, g := range r.Guests {
		wrap("  ", p.c(g.level().ansi(), g.Host+"  "+keepCounts(g.Verdict)))
		if g.Version != "" {
			wrap("      ", p.c("2", g.Version))
		}
		if len(g.Adapters) == 0 && g.Status != hostio.StatusNotCollected {
			wrap("      ", "no PVRDMA device in the guest")
		}
		for _, a := range g.Adapters {
			wrap("      ", a.Text())
		}
		for _, b := range g.Bandwidth {
			wrap("      ", fmt.Sprintf("ib_send_bw to %s: %.2f Gb/s average (%d-byte messages)", b.To, b.AvgGbps, b.MsgBytes))
		}
	}
}

// BandwidthLine is one result of the opt-in bandwidth test, on the client.
type BandwidthLine struct {
	// To is the server's address.
	To       string  `json:"to"`
	Device   string  `json:"device,omitempty"`
	MsgBytes int64   `json:"msg_bytes"`
	AvgGbps  float64 `json:"avg_gbps"`
}

// writeMarkdownGuests renders the Guests section of the Markdown report.
func writeMarkdownGuests(b *strings.Builder, r *Report) {
	if len(r.Guests) == 0 {
		return
	}
	b.WriteString("\n## Guests\n\n| guest | verdict | kernel | adapter: host side <-> guest side |\n|---|---|---|---|\n")
	for _, g := range r.Guests {
		var pairs []string
		for _, a := range g.Adapters {
			pairs = append(pairs, md(a.Text()))
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", md(g.Host), md(g.Verdict), md(orDash(g.Version, "-", "")), orDash(strings.Join(pairs, "<br>"), "no PVRDMA device", ""))
	}
}

// guestVerdict is a host's verdict for a guest, except that a guest whose
// problems all follow from host-side root causes says where they are.
func guestVerdict(g *Host, fs []checks.Finding) string {
	v := hostVerdict(g)
	if strings.HasPrefix(v, "OK") {
		// Nothing wrong inside the guest, but an adapter the host cannot
		// back with an HCA still falls back to TCP: say where to look.
		var on []string
		for _, a := range g.Adapters {
			if a.PhysicalHCA != nil && !*a.PhysicalHCA && !slices.Contains(on, a.Host) {
				on = append(on, a.Host)
			}
		}
		if len(on) > 0 {
			return v + " inside the guest; host side (" + strings.Join(on, ", ") + "): no physical HCA"
		}
		// Nothing wrong inside, but its adapter has findings on the host
		// side (RDMA MTU 1024...): say so rather than a plain OK.
		var host []string
		for _, a := range g.Adapters {
			for _, f := range fs {
				if f.Status != checks.StatusFail || f.Suppressed || f.Host != a.Host || a.VM == "" || !strings.HasPrefix(f.Subject, a.VM+" (") ||
					f.Severity.Rank() < checks.Warning.Rank() {
					continue
				}
				what := "has " + f.RuleID
				if f.RuleID == "LOW_MTU" && a.HostMTU > 0 {
					what = fmt.Sprintf("runs at RDMA MTU %d", a.HostMTU)
				}
				if w := fmt.Sprintf("%s (%s: %s)", what, f.Host, f.RuleID); !slices.Contains(host, w) {
					host = append(host, w)
				}
			}
		}
		if len(host) > 0 {
			return v + " inside the guest; its PVRDMA adapter " + strings.Join(host, ", ") + " on the host side"
		}
		return v
	}
	if g.Status == hostio.StatusNotCollected || g.Consequences == 0 || g.RootCauses != (SeverityCounts{}) {
		return v
	}
	var on []string
	seen := map[string]bool{}
	for _, f := range fs {
		if f.Host == g.Host && f.Status == checks.StatusFail && f.CausedBy != nil && !seen[f.CausedBy.Host] {
			seen[f.CausedBy.Host] = true
			on = append(on, f.CausedBy.Host)
		}
	}
	class, _, _ := strings.Cut(v, ":")
	return fmt.Sprintf("%s: %s, caused on the host side (%s)", class, plural(g.Consequences, "consequence", "consequences"), strings.Join(on, ", "))
}

// Entries are the report's hosts, then its guests.
func (r *Report) Entries() []Host {
	return append(append([]Host(nil), r.Hosts...), r.Guests...)
}
