package collect

import (
	"context"
	"fmt"
	"net/netip"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// DefaultMaxStage2 caps the follow-up commands of one host. A real host
// has at most a few hundred PVRDMA adapters (one per VM NIC) and a handful
// of RDMA devices; a host that lists more is broken or hostile, and the
// scan must still end within its timeout.
const DefaultMaxStage2 = 512

// planStage2 derives the dependent commands from a host's stage 1 captures:
// the vsish properties of every PVRDMA backend listed, the counters of every
// RDMA device, and the details and DCB state of every RDMA paired uplink.
// Every value taken from host output is validated by the command
// constructors before it can reach a command line; invalid ones are
// reported and skipped. At most max commands are planned (devices and
// uplinks first, then PVRDMA backends in listed order); the notes say how
// many more were not. Planning is linear and stops when ctx ends.
func planStage2(ctx context.Context, caps []hostio.Capture, max int) ([]Command, []string) {
	p := stage2Plan{max: max, seen: map[string]bool{}, over: map[hostio.Kind]int{}}
	// addEach plans, for one set of argument values, every stage 2
	// command of the catalogue that takes its arguments from that source.
	addEach := func(from catalog.Source, args ...string) {
		for _, s := range catalog.Specs() {
			if s.Stage == 2 && s.From == from {
				p.add(s.Command(args...))
			}
		}
	}
	if c, ok := collected(caps, catalog.KindRDMADeviceList); ok {
		devs, err := parse.RDMADeviceList(c.Stdout)
		if err != nil {
			p.note(fmt.Errorf("cannot read RDMA devices: %w", err))
		}
		for _, d := range devs {
			addEach(catalog.FromRDMADevices, d.Name)
		}
		for _, d := range devs {
			if d.PairedUplink == "" || d.PairedUplink == "N/A" {
				continue
			}
			addEach(catalog.FromRDMAUplinks, d.PairedUplink)
		}
	}
	if c, ok := collected(caps, catalog.KindPVRDMADeviceLs); ok {
		// Only the entries that can fit under the cap are parsed; the
		// other lines are counted, so a listing of any length costs
		// memory in proportion to the cap.
		head, rest := headLines(c.Stdout, 2*max)
		for _, s := range catalog.Specs() {
			if s.Stage == 2 && s.From == catalog.FromPVRDMABackends {
				p.over[s.Kind] += rest
			}
		}
		entries, err := parse.VsishLs(head)
		if _, partial := parse.Skipped(err); partial {
			p.note(fmt.Errorf("PVRDMA device listing: the readable entries are used, %w", err))
		} else if err != nil {
			p.note(fmt.Errorf("cannot list PVRDMA devices: %w", err))
		}
		for i, e := range entries {
			if i%1024 == 0 && ctx.Err() != nil {
				p.notes = append(p.notes, fmt.Sprintf("planning stopped (%s): %d PVRDMA devices not considered", ctxReason(ctx), len(entries)-i))
				break
			}
			wid, idx, found := e.DeviceID()
			if !found {
				p.note(fmt.Errorf("skipping unexpected PVRDMA device entry %q", e.Name))
				continue
			}
			addEach(catalog.FromPVRDMABackends, wid, idx)
		}
	}
	planFromFacts(catalog.Specs(), caps, &p)
	planVMX(ctx, caps, &p)
	if n := p.skipped(); n > 0 {
		var kinds []string
		for _, s := range stage2NoteOrder() {
			if p.over[s.Kind] > 0 {
				kinds = append(kinds, thousands(p.over[s.Kind])+" "+s.Noun)
			}
		}
		p.notes = append(p.notes, fmt.Sprintf("%s more follow-up commands not collected (cap of %d per host): %s", thousands(n), max, strings.Join(kinds, ", ")))
	}
	if p.errs > maxPlanNotes {
		p.notes = append(p.notes, fmt.Sprintf("%d more unexpected entries skipped", p.errs-maxPlanNotes))
	}
	cmds := p.cmds
	sort.SliceStable(cmds, func(i, j int) bool { return kindOrder(cmds[i].Kind) < kindOrder(cmds[j].Kind) })
	return cmds, p.notes
}

// stage2Inputs are the stage-1 kinds planStage2 reads: the RDMA devices
// (their counters, their uplinks' details), the PVRDMA backends listing
// (their properties; with the VM list, the .vmx reads) and what the
// catalogue's fact-planned specs read (Spec.InstancesRead). nil means
// every stage-1 kind (a spec that does not say what it reads).
func stage2Inputs() map[hostio.Kind]bool {
	in := map[hostio.Kind]bool{catalog.KindRDMADeviceList: true, catalog.KindPVRDMADeviceLs: true, catalog.KindVMProcessList: true}
	for _, s := range catalog.Specs() {
		if s.Stage == 2 && s.From == catalog.FromFacts && s.Instances != nil {
			if len(s.InstancesRead) == 0 {
				return nil
			}
			for _, k := range s.InstancesRead {
				in[k] = true
			}
		}
	}
	return in
}

// splitStage1 splits stage-1 commands into the ones stage 2 is planned
// from (stage2Inputs) and the others, each in catalogue order.
func splitStage1(s1 []Command) (inputs, rest []Command) {
	in := stage2Inputs()
	if in == nil {
		return s1, nil
	}
	for _, c := range s1 {
		if in[c.Kind] {
			inputs = append(inputs, c)
		} else {
			rest = append(rest, c)
		}
	}
	return inputs, rest
}

// planFromFacts plans the stage 2 commands of specs whose arguments come
// from the host's stage-1 facts (catalog.FromFacts: Spec.Instances). The
// stage-1 outputs are read into facts only when such a spec exists.
func planFromFacts(specs []*catalog.Spec, caps []hostio.Capture, p *stage2Plan) {
	var from []*catalog.Spec
	var read []hostio.Kind
	all := false
	for _, s := range specs {
		if s.Stage == 2 && s.From == catalog.FromFacts && s.Instances != nil {
			from = append(from, s)
			read = append(read, s.InstancesRead...)
			all = all || len(s.InstancesRead) == 0
		}
	}
	if len(from) == 0 {
		return
	}
	if all {
		read = nil // a spec that does not say what it reads reads everything
	}
	f := catalog.StageFacts(caps, 1, read...)
	for _, s := range from {
		for _, args := range s.Instances(&f) {
			p.add(s.Command(args...))
		}
	}
}

// stage2NoteOrder is the order of kinds in the note of a host over the
// cap: per-device and per-uplink commands (in catalogue order), then the
// per-PVRDMA-backend ones.
func stage2NoteOrder() []*catalog.Spec {
	var first, last []*catalog.Spec
	for _, s := range catalog.Specs() {
		switch {
		case s.Stage != 2:
		case s.From == catalog.FromPVRDMABackends, s.From == catalog.FromPVRDMAVMs:
			last = append(last, s)
		default:
			first = append(first, s)
		}
	}
	return append(first, last...)
}

// maxPlanNotes caps the notes about invalid entries (each names one).
const maxPlanNotes = 10

type stage2Plan struct {
	max   int
	cmds  []Command
	seen  map[string]bool
	over  map[hostio.Kind]int
	notes []string
	errs  int
}

func (p *stage2Plan) note(err error) {
	p.errs++
	if p.errs <= maxPlanNotes {
		p.notes = append(p.notes, err.Error())
	}
}

func (p *stage2Plan) add(c Command, err error) {
	if err != nil {
		p.note(err)
		return
	}
	if p.seen[c.Line] {
		return
	}
	if len(p.cmds) >= p.max {
		// Counted, not remembered: memory stays bounded by the cap (a
		// repeated entry past the cap is counted twice).
		p.over[c.Kind]++
		return
	}
	p.seen[c.Line] = true
	p.cmds = append(p.cmds, c)
}

func (p *stage2Plan) skipped() int {
	n := 0
	for _, v := range p.over {
		n += v
	}
	return n
}

// thousands formats n with thousands separators: 299,491.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}

// headLines returns the first n lines of text and how many non-empty
// lines follow them.
func headLines(text string, n int) (string, int) {
	i := 0
	for ; n > 0 && i < len(text); n-- {
		j := strings.IndexByte(text[i:], '\n')
		if j < 0 {
			return text, 0
		}
		i += j + 1
	}
	rest := 0
	for line := range strings.Lines(text[i:]) {
		if strings.TrimSpace(line) != "" {
			rest++
		}
	}
	return text[:i], rest
}

// kindOrder is a stage 2 kind's place in the catalogue: planned commands
// run grouped by kind, in catalogue order.
func kindOrder(k hostio.Kind) int {
	for i, s := range catalog.Specs() {
		if s.Kind == k {
			return i
		}
	}
	return len(catalog.Specs())
}

func collected(caps []hostio.Capture, k hostio.Kind) (hostio.Capture, bool) {
	for _, c := range caps {
		if c.Kind == k && c.OK() {
			return c, true
		}
	}
	return hostio.Capture{}, false
}

// probeSourceOf finds the vmknic a host's probes leave from and its IPv4
// address: a vmknic on the PVRDMA distributed switch (the vDS holding an
// RDMA device's paired uplink; the tagged /Net/PVRDMAVmknic first, then
// one bound to an RDMA device, then any with an address), else the tagged
// vmknic, else the one bound to an RDMA device. Its MTU is the larger of
// the vmknic's and its vDS's: the size the path is configured to carry.
func probeSourceOf(caps []hostio.Capture) probeSource {
	in := readProbeInputs(caps)
	pick := in.pvrdmaVmknic()
	if pick == "" {
		pick = in.tagged
		if pick == "" && len(in.bound) > 0 {
			pick = in.bound[0]
		}
	}
	if pick == "" || in.addr[pick] == "" {
		return probeSource{}
	}
	src := probeSource{Vmknic: pick, IP: in.addr[pick], Net: parse.Subnet(in.addr[pick], in.mask[pick])}
	if n := in.nic(pick); n != nil {
		src.Netstack, src.MTU = n.Netstack, n.MTU
		for _, d := range in.dvs {
			if d.Name == n.VDSName && n.VDSName != "" {
				src.MTU = max(src.MTU, d.MTU)
			}
		}
	}
	return src
}

// probeInputs are the stage-1 facts a host's probe source is chosen from;
// an output missing or unreadable leaves its fact empty.
type probeInputs struct {
	tagged     string            // /Net/PVRDMAVmknic
	bound      []string          // the vmknics bound to an RDMA device
	nics       []parse.Vmknic    // the vmknics
	addr, mask map[string]string // each vmknic's IPv4 address and netmask (set ones only)
	dvs        []parse.DVSwitch  // the distributed switches
	uplinks    []string          // the RDMA devices' paired uplinks, Active ones first
}

// readProbeInputs parses the captures a probe source is chosen from.
func readProbeInputs(caps []hostio.Capture) probeInputs {
	in := probeInputs{addr: map[string]string{}, mask: map[string]string{}}
	if c, ok := collected(caps, catalog.KindPVRDMAVmknicOpt); ok {
		if s, err := parse.AdvancedSettingList(c.Stdout); err == nil {
			in.tagged = strings.TrimSpace(s.StringValue)
		}
	}
	if c, ok := collected(caps, catalog.KindRDMAVmknicList); ok {
		if rows, err := parse.RDMAVmknicList(c.Stdout); err == nil {
			for _, r := range rows {
				in.bound = append(in.bound, r.Vmknic)
			}
		}
	}
	if c, ok := collected(caps, catalog.KindIPInterfaceList); ok {
		in.nics, _ = parse.IPInterfaceList(c.Stdout)
	}
	if c, ok := collected(caps, catalog.KindIPv4Get); ok {
		if rows, err := parse.IPv4Get(c.Stdout); err == nil {
			for _, r := range rows {
				if r.Address != "" && r.Address != "0.0.0.0" {
					in.addr[r.Name], in.mask[r.Name] = r.Address, r.Netmask
				}
			}
		}
	}
	if c, ok := collected(caps, catalog.KindDVSList); ok {
		in.dvs, _ = parse.DVSList(c.Stdout)
	}
	if c, ok := collected(caps, catalog.KindRDMADeviceList); ok {
		if devs, err := parse.RDMADeviceList(c.Stdout); err == nil {
			in.uplinks = pairedUplinksActiveFirst(devs)
		}
	}
	return in
}

// pairedUplinksActiveFirst lists the RDMA devices' paired uplinks, those
// of Active devices first, each group in the listing's order.
func pairedUplinksActiveFirst(devs []parse.RDMADevice) []string {
	var uplinks []string
	for _, active := range []bool{true, false} {
		for _, d := range devs {
			if strings.EqualFold(strings.TrimSpace(d.State), "active") == active {
				uplinks = append(uplinks, d.PairedUplink)
			}
		}
	}
	return uplinks
}

// nic returns the vmknic named (nil: none).
func (in *probeInputs) nic(name string) *parse.Vmknic {
	for i := range in.nics {
		if in.nics[i].Name == name {
			return &in.nics[i]
		}
	}
	return nil
}

// pvrdmaSwitch returns the PVRDMA distributed switch: the first holding
// a paired uplink, in the order of the uplinks (nil: none).
func (in *probeInputs) pvrdmaSwitch() *parse.DVSwitch {
	for _, u := range in.uplinks {
		for i := range in.dvs {
			if u != "" && slices.Contains(in.dvs[i].Uplinks, u) {
				return &in.dvs[i]
			}
		}
	}
	return nil
}

// pvrdmaVmknic picks a vmknic with an address on the PVRDMA distributed
// switch: the tagged one first, then those bound to an RDMA device, then
// any ("": none).
func (in *probeInputs) pvrdmaVmknic() string {
	sw := in.pvrdmaSwitch()
	if sw == nil {
		return ""
	}
	var order []string
	if in.tagged != "" {
		order = append(order, in.tagged)
	}
	order = append(order, in.bound...)
	for _, n := range in.nics {
		order = append(order, n.Name)
	}
	for _, name := range order {
		if n := in.nic(name); n != nil && n.VDSName == sw.Name && in.addr[name] != "" {
			return name
		}
	}
	return ""
}

// stageOf orders captures in a host result: stage 1 in catalogue order,
// then stage 2, then probes.
func stageOf(c hostio.Capture) int {
	for i, s := range stage1 {
		if s.Kind == c.Kind {
			return i
		}
	}
	return len(stage1) + kindOrder(c.Kind)
}

// unprobeable says why a host's PVRDMA vmknic address is no probe end
// ("" when it is one): it takes part in no path probe, neither as source
// nor as target (a hostile host must not make its peers probe a
// broadcast, multicast, loopback or link-local address).
func unprobeable(src probeSource) string {
	if src.IP == "" {
		return ""
	}
	a, err := netip.ParseAddr(src.IP)
	if err == nil {
		err = catalog.ProbeTarget(a)
	}
	if err == nil {
		return ""
	}
	return fmt.Sprintf("no path probes to or from this host: its PVRDMA vmknic %s has the address %s, %v (probes go to unicast addresses only)", src.Vmknic, src.IP, err)
}

// subnetEdge says why dst is the network or broadcast address of src's
// subnet ("" when it is not): a vmkping there would reach every host of
// the subnet, or none.
func subnetEdge(src, dst probeSource) string {
	if !src.Net.IsValid() || src.Net.Bits() > 30 {
		return ""
	}
	a, err := netip.ParseAddr(dst.IP)
	if err != nil || !src.Net.Contains(a) {
		return ""
	}
	network := src.Net.Masked().Addr()
	b := network.As4()
	host := 32 - src.Net.Bits()
	v := (uint32(b[0])<<24 | uint32(b[1])<<16 | uint32(b[2])<<8 | uint32(b[3])) | (1<<host - 1)
	bcast := netip.AddrFrom4([4]byte{byte(v >> 24), byte(v >> 16), byte(v >> 8), byte(v)})
	switch a {
	case network:
		return "the network address"
	case bcast:
		return "the broadcast address"
	}
	return ""
}
