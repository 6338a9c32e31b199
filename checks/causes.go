package checks

import (
	"bytes"
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"gopkg.in/yaml.v3"
)

// The cause graph: one problem on a host often shows up as several
// findings (no RDMA device -> the host falls back to TCP -> every PVRDMA
// adapter on it has no physical HCA). Each finding may name the finding
// that causes it; reports lead with root causes and nest the consequences
// under them, with their evidence, never dropping them.
//
// A link is a claim: every kind of link (causeEdges) cites the documents
// that say the effect follows from the cause (a seed or a vendor document
// of catalogue.yaml's sources), the catalogue refuses to load an edge
// without one, and linkCauses drops any link no edge declares. A link is
// only made where the facts tie the two findings together (the same
// adapter, the device PVRDMA uses, the same hop); where nothing known
// explains a finding it stays a root cause and says so.

// Cause names the finding that causes another: rule, host and subject.
type Cause struct {
	RuleID  string `json:"rule_id"`
	Host    string `json:"host"`
	Subject string `json:"subject"`
}

// Key is the cause's finding key (as Finding.Key).
func (c Cause) Key() string { return c.RuleID + "|" + c.Host + "|" + c.Subject }

// causeEdge is one kind of causal link between two rules.
type causeEdge struct {
	Cause, Effect string
	// Why says, in a few words, why the effect follows ("and therefore ...").
	Why string
	// Sources are the catalogue.yaml source keys of the documents that say
	// the effect follows from the cause.
	Sources []string
}

// causeEdges are every link linkCauses can make, for `rules explain`.
var causeEdges = []causeEdge{
	{"NO_RDMA_DEVICE", "TCP_FALLBACK", "without an RDMA device, cross-host PVRDMA traffic falls back to TCP",
		[]string{"seed-004-vsphere-rdma", "rdma-overview-65"}},
	{"NO_RDMA_DEVICE", "PHYSICAL_HCA_UNAVAILABLE", "without an RDMA device, no PVRDMA adapter on the host can bind to an HCA",
		[]string{"seed-004-vsphere-rdma", "pvrdma-hpc-study"}},
	{"RDMA_UPLINK_NOT_ON_DVS", "TCP_FALLBACK", "the PVRDMA vDS has no Active RDMA uplink, so the host's PVRDMA traffic falls back to TCP",
		[]string{"seed-004-vsphere-rdma"}},
	{"RDMA_UPLINK_NOT_ON_DVS", "PHYSICAL_HCA_UNAVAILABLE", "the adapters cannot bind to an HCA that is not an uplink of their vDS",
		[]string{"seed-004-vsphere-rdma", "pvrdma-hpc-study"}},
	{"RDMA_DEVICE_DOWN", "TCP_FALLBACK", "the PVRDMA vDS's only RDMA device is down, so the host's PVRDMA traffic falls back to TCP",
		[]string{"seed-004-vsphere-rdma"}},
	{"RDMA_DEVICE_DOWN", "PHYSICAL_HCA_UNAVAILABLE", "the adapters lose their HCA while its device is down",
		[]string{"seed-004-vsphere-rdma", "pvrdma-hpc-study"}},
	{"ROCE_NOT_SUPPORTED", "TCP_FALLBACK", "a device without RoCE cannot carry PVRDMA traffic",
		[]string{"pvrdma-hpc-study", "seed-004-vsphere-rdma"}},
	{"ROCE_NOT_SUPPORTED", "PHYSICAL_HCA_UNAVAILABLE", "a device without RoCE cannot back a PVRDMA adapter",
		[]string{"pvrdma-hpc-study"}},
	{"PFC_DISABLED", "RDMA_ERRORS", "without lossless Ethernet, congestion drops RoCE packets, which the device counts as errors",
		[]string{"seed-004-vsphere-rdma", "lossless-nvme-70", "mellanox-pfc"}},
	{"PATH_MTU_BLOCKED", "ACTIVE_MTU_ABOVE_PATH", "a link on the path drops frames above the measured path MTU, so the larger RoCE packets are lost",
		[]string{"seed-000-max-mtu", "linux-ib-addr"}},
	{"PATH_MTU_BLOCKED", "PATH_MTU_BLOCKED", "the same hop drops the jumbo frames of every path that crosses it",
		[]string{"seed-000-max-mtu"}},
	{"RDMA_DRIVER_NOT_LOADED", "NO_RDMA_DEVICE", "the RDMA driver of the PVRDMA uplink does not run, so the NIC has no RDMA device",
		[]string{"nvidia-esxi-module-params", "seed-004-vsphere-rdma"}},
	{"INTEL_RDMA_DISABLED", "NO_RDMA_DEVICE", "RDMA is off in the LAN driver of the PVRDMA uplink, so irdman gives it no RDMA device",
		[]string{"intel-irdman-notes"}},
	{"ROCE_OFF_IN_LAN_DRIVER", "NO_RDMA_DEVICE", "a parameter of the PVRDMA uplink's LAN driver switches RoCE off for its port, so its RDMA driver gives it no RDMA device",
		[]string{"bnxt-enable-roce", "nvidia-esxi-module-params"}},
	{"INTEL_ENS_ACTIVE", "NO_RDMA_DEVICE", "the PVRDMA uplink runs in ENS mode, in which irdman gives it no RDMA device",
		[]string{"intel-irdman-notes"}},
	{"ESXI_VERSION_UNSUPPORTED", "NO_RDMA_DEVICE", "an ESXi release without PVRDMA support",
		[]string{"seed-004-vsphere-rdma", "rdma-overview-65"}},
	{"ESXI_VERSION_UNSUPPORTED", "PVRDMA_FIREWALL_CLOSED", "an ESXi release without PVRDMA has no pvrdma ruleset",
		[]string{"seed-004-vsphere-rdma", "tag-vmknic-70"}},
	{"ESXI_VERSION_UNSUPPORTED", "PVRDMA_VMKNIC_UNSET", "an ESXi release without PVRDMA has no /Net/PVRDMAVmknic",
		[]string{"seed-004-vsphere-rdma", "tag-vmknic-70"}},
	{"VM_DEVICE_PROTOCOL_MISMATCH", "ROCE_VERSION_MISMATCH", "the adapter speaks a RoCE version its host's device does not support, so it differs from its peers'",
		[]string{"vrdma-api", "pvrdma-hpc-study"}},
	{"ROCE_NOT_SUPPORTED", "VM_DEVICE_PROTOCOL_MISMATCH", "the device PVRDMA uses has no RoCE, so it supports no adapter's RoCE version",
		[]string{"pvrdma-hpc-study", "vrdma-api"}},
	// Across hosts: a tagged vmknic in another subnet than its peer's, no
	// route known, gets no reply from it (and the peer none from it).
	{"PVRDMA_VMKNIC_OTHER_SUBNET", "VMKPING_UNREACHABLE", "the tagged vmknics are in different subnets and no route joins them, so the probes between them get no reply",
		[]string{"tag-vmknic-70", "roce-network-67"}},
	// Across hosts: a pair of PVRDMA VMs uses RDMA only when both hosts
	// have it.
	{"TCP_FALLBACK", "VM_PEERS_WITHOUT_RDMA", "the peer host's PVRDMA traffic falls back to TCP, so every pair with a VM on it does",
		[]string{"seed-004-vsphere-rdma", "rdma-overview-65"}},
	// Guests: a guest adapter and its host-side adapter (same MAC) are one
	// adapter.
	{"GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", "LOW_MTU", "the guest interface's MTU caps the adapter's RoCE MTU",
		[]string{"linux-ib-addr", "linux-vmw-pvrdma"}},
	{"GUEST_KERNEL_TOO_OLD", "GUEST_NO_PVRDMA_DEVICE", "a kernel without the vmw_pvrdma module creates no PVRDMA device",
		[]string{"vm-admin-67", "seed-002-hpc-study"}},
}

// CanCause returns the rules a rule's findings can cause, sorted.
func CanCause(id string) []string { return edgeEnds(id, true) }

// CanBeCausedBy returns the rules whose findings can cause this rule's.
func CanBeCausedBy(id string) []string { return edgeEnds(id, false) }

func edgeEnds(id string, fromCause bool) []string {
	var out []string
	for _, e := range causeEdges {
		if fromCause && e.Cause == id {
			out = append(out, e.Effect)
		}
		if !fromCause && e.Effect == id {
			out = append(out, e.Cause)
		}
	}
	sort.Strings(out)
	return out
}

// CauseWhy is the reason an effect follows from a cause ("" if no edge).
func CauseWhy(cause, effect string) string {
	for _, e := range causeEdges {
		if e.Cause == cause && e.Effect == effect {
			return e.Why
		}
	}
	return ""
}

// CauseSources are the documents (as catalogue.yaml words them) that say
// the effect follows from the cause (nil if no edge).
func CauseSources(cause, effect string) []string { return edgeDocs[[2]string{cause, effect}] }

// edgeDocs resolves every edge's sources once, when the package loads: an
// edge without a source, with an unknown one, or between unknown rules is
// a programming error (a panic that every test shows).
var edgeDocs = func() map[[2]string][]string {
	var prose struct {
		Sources map[string]string `yaml:"sources"`
	}
	if err := yaml.NewDecoder(bytes.NewReader(catalogueYAML)).Decode(&prose); err != nil {
		panic(fmt.Errorf("catalogue.yaml: %w", err))
	}
	m, err := resolveEdges(causeEdges, prose.Sources, catalogue)
	if err != nil {
		panic(err)
	}
	return m
}()

// resolveEdges checks every edge and returns its sources' texts by
// (cause, effect).
func resolveEdges(edges []causeEdge, sources map[string]string, rules map[string]*Rule) (map[[2]string][]string, error) {
	m := map[[2]string][]string{}
	for _, e := range edges {
		k := [2]string{e.Cause, e.Effect}
		if _, dup := m[k]; dup {
			return nil, fmt.Errorf("cause edge %s -> %s declared twice", e.Cause, e.Effect)
		}
		if rules[e.Cause] == nil || rules[e.Effect] == nil {
			return nil, fmt.Errorf("cause edge %s -> %s names a rule that does not exist", e.Cause, e.Effect)
		}
		if e.Why == "" || len(e.Sources) == 0 {
			return nil, fmt.Errorf("cause edge %s -> %s has no reason or no source: a link nobody documented is an invented cause", e.Cause, e.Effect)
		}
		for _, key := range e.Sources {
			doc, ok := sources[key]
			if !ok {
				return nil, fmt.Errorf("cause edge %s -> %s: unknown source %q in catalogue.yaml", e.Cause, e.Effect, key)
			}
			m[k] = append(m[k], doc)
		}
	}
	return m, nil
}

// hcaCauses are the rules, in order of preference, that explain why a
// host's PVRDMA adapters have no physical HCA: the first one found (about
// a device PVRDMA uses) is the root cause of the host's TCP_FALLBACK and
// PHYSICAL_HCA_UNAVAILABLE.
var hcaCauses = []string{"NO_RDMA_DEVICE", "RDMA_UPLINK_NOT_ON_DVS", "RDMA_DEVICE_DOWN", "ROCE_NOT_SUPPORTED"}

// linkCauses sets CausedBy on the findings that follow from another
// finding of the same run, then makes severities consistent along each
// link: a consequence is never more severe than its cause, and a cause
// never less severe than its worst consequence (consequences are capped:
// the cause's severity is the rule's judgement of how much the problem
// matters, e.g. NO_RDMA_DEVICE is info when no peer host runs PVRDMA).
func linkCauses(fleet *facts.Fleet, paths *facts.DataPath, fs []Finding) {
	hosts := map[string]*facts.Host{}
	if fleet != nil {
		for i := range fleet.Hosts {
			if _, dup := hosts[fleet.Hosts[i].Host]; !dup {
				hosts[fleet.Hosts[i].Host] = &fleet.Hosts[i] // the first of a name, as before
			}
		}
	}
	causeOf := func(i int) *Cause {
		f := fs[i]
		return &Cause{RuleID: f.RuleID, Host: f.Host, Subject: f.Subject}
	}
	for name, idx := range failingByHost(fs) {
		l := hostLinks{h: hosts[name], idx: idx, fs: fs, causeOf: causeOf}
		if l.h != nil {
			l.hp = paths.For(l.h)
		}
		l.link()
	}
	// Blocked paths that cross the same hop: one root, the rest under it.
	linkSameHop(paths, fs)
	// Probes between tagged vmknics in different subnets: the tag's finding.
	linkOtherSubnet(paths, fs)
	// VMs whose peers sit on hosts without RDMA: the peer host's fallback.
	linkPeersWithoutRDMA(fleet, paths, fs)
	// Guest findings and the host findings of the same adapter.
	linkGuestCauses(fleet, fs)
	settleCauses(fs)
}

// failingByHost indexes the failing, unsuppressed findings: host -> rule
// -> their indexes in fs.
func failingByHost(fs []Finding) map[string]map[string][]int {
	byHost := map[string]map[string][]int{}
	for i, f := range fs {
		if f.Status != StatusFail || f.Suppressed {
			continue
		}
		if byHost[f.Host] == nil {
			byHost[f.Host] = map[string][]int{}
		}
		byHost[f.Host][f.RuleID] = append(byHost[f.Host][f.RuleID], i)
	}
	return byHost
}

// hostLinks links the findings of one host to their causes on it.
type hostLinks struct {
	h       *facts.Host // nil when the host has no facts
	hp      *facts.HostPath
	idx     map[string][]int // rule -> indexes of its failing findings
	fs      []Finding
	causeOf func(int) *Cause
}

func (l hostLinks) link() {
	l.hcaRoot()
	l.errorsToPFC()
	l.mtuAbovePath()
	linkVMCauses(l.fs, l.idx, l.hp, l.causeOf)
	l.noDeviceToDriver()
	l.unsupportedESXi()
}

// hcaRoot: the first rule of hcaCauses that fired on the host about a
// device PVRDMA uses (an info RDMA_DEVICE_DOWN or ROCE_NOT_SUPPORTED is
// about a device it does not use), when no device the adapters could bind
// to is left, is the cause of its TCP_FALLBACK and
// PHYSICAL_HCA_UNAVAILABLE.
func (l hostLinks) hcaRoot() {
	fs, idx := l.fs, l.idx
	hca := -1
	for _, rule := range hcaCauses {
		for _, i := range idx[rule] {
			if (rule == "RDMA_DEVICE_DOWN" || rule == "ROCE_NOT_SUPPORTED") && fs[i].Severity == Info {
				continue
			}
			hca = i
			break
		}
		if hca >= 0 {
			break
		}
	}
	if hca < 0 || (l.hp != nil && bindable(l.hp, fs, idx["ROCE_NOT_SUPPORTED"])) {
		return
	}
	for _, rule := range []string{"TCP_FALLBACK", "PHYSICAL_HCA_UNAVAILABLE"} {
		for _, i := range idx[rule] {
			// A TCP_FALLBACK on a host where vsish shows an adapter
			// bound to an HCA reports that the sources disagree, not a
			// fallback: nothing follows from the device.
			if rule == "TCP_FALLBACK" && l.h != nil && anyHCA(l.h) {
				continue
			}
			fs[i].CausedBy = l.causeOf(hca)
		}
	}
}

// errorsToPFC: RDMA errors on a device whose uplink has no lossless
// configuration.
func (l hostLinks) errorsToPFC() {
	if l.h == nil {
		return
	}
	for _, i := range l.idx["RDMA_ERRORS"] {
		for _, j := range l.idx["PFC_DISABLED"] {
			if pairedUplink(l.h, l.fs[i].Subject) == l.fs[j].Subject {
				l.fs[i].CausedBy = l.causeOf(j)
			}
		}
	}
}

// mtuAbovePath: an Active MTU above what the path proved is caused by
// the blocked pair that measured (or bounded) the path MTU the adapter is
// above.
func (l hostLinks) mtuAbovePath() {
	if l.h == nil {
		return
	}
	for _, i := range l.idx["ACTIVE_MTU_ABOVE_PATH"] {
		if j := blockedPairBelow(l.h, l.hp, l.fs, l.idx["PATH_MTU_BLOCKED"], l.fs[i].Subject); j >= 0 {
			l.fs[i].CausedBy = l.causeOf(j)
		}
	}
}

// noDeviceToDriver: no RDMA device on a host whose PVRDMA uplink's RDMA
// driver does not run (not loaded, Intel's parameter off, ENS): the
// driver layer is the root (an information finding is about a NIC PVRDMA
// does not use).
func (l hostLinks) noDeviceToDriver() {
	for _, i := range l.idx["NO_RDMA_DEVICE"] {
		for _, rule := range []string{"INTEL_ENS_ACTIVE", "RDMA_DRIVER_NOT_LOADED", "INTEL_RDMA_DISABLED", "ROCE_OFF_IN_LAN_DRIVER"} {
			for _, j := range l.idx[rule] {
				if l.fs[i].CausedBy == nil && l.fs[j].Severity != Info {
					l.fs[i].CausedBy = l.causeOf(j)
				}
			}
		}
	}
}

// unsupportedESXi: an ESXi release without PVRDMA explains the host's
// other findings.
func (l hostLinks) unsupportedESXi() {
	v := l.idx["ESXI_VERSION_UNSUPPORTED"]
	if len(v) == 0 {
		return
	}
	for rule, is := range l.idx {
		if CauseWhy("ESXI_VERSION_UNSUPPORTED", rule) == "" {
			continue
		}
		for _, i := range is {
			if l.fs[i].CausedBy == nil {
				l.fs[i].CausedBy = l.causeOf(v[0])
			}
		}
	}
}

// settleCauses keeps only declared edges (never an invented cause), then
// makes severity consistent along the links (chains are at most three
// deep; iterate to a fixed point anyway).
func settleCauses(fs []Finding) {
	key := map[string]int{}
	for i, f := range fs {
		if f.Status == StatusFail {
			key[f.Key()] = i
		}
		if c := f.CausedBy; c != nil && (CauseWhy(c.RuleID, f.RuleID) == "" || c.Key() == f.Key()) {
			fs[i].CausedBy = nil
		}
	}
	for changed, n := true, 0; changed && n < 8; n++ {
		changed = false
		for i := range fs {
			c := fs[i].CausedBy
			if c == nil {
				continue
			}
			j, ok := key[c.Key()]
			if !ok {
				fs[i].CausedBy = nil
				continue
			}
			if fs[i].Severity.Rank() > fs[j].Severity.Rank() {
				fs[i].Severity = fs[j].Severity
				changed = true
			}
		}
	}
}

// anyHCA reports whether vsish shows one of the host's PVRDMA adapters
// bound to a physical HCA.
func anyHCA(h *facts.Host) bool {
	for _, d := range h.PVRDMADevices {
		if d.Props.Lookup("Physical HCA available").Line > 0 && d.PhysicalHCA != 0 {
			return true
		}
	}
	return false
}

// bindable reports whether the host has a device its PVRDMA adapters can
// bind to: Active, an uplink of the PVRDMA vDS, and with RoCE (no
// ROCE_NOT_SUPPORTED finding names it).
func bindable(hp *facts.HostPath, fs []Finding, noRoCE []int) bool {
	for _, d := range hp.Usable {
		ok := true
		for _, j := range noRoCE {
			if fs[j].Subject == d.Name {
				ok = false
			}
		}
		if ok {
			return true
		}
	}
	return false
}

// blockedPairBelow returns the PATH_MTU_BLOCKED finding (index into fs,
// -1 for none) of the host's blocked pair, measured from its data-path
// vmknic, with the lowest path MTU, when that path carries less than the
// adapter named subject needs: the pair that proved its path MTU.
func blockedPairBelow(h *facts.Host, hp *facts.HostPath, fs []Finding, blocked []int, subject string) int {
	need := 0
	for _, d := range h.PVRDMADevices {
		if vmLabel(d) == subject {
			need = d.ActiveMTU + 96
		}
	}
	if need == 0 || hp == nil || hp.DataVmknic == nil {
		return -1
	}
	best, at := 0, -1
	for i := range hp.Pairs {
		pp := &hp.Pairs[i]
		if !pp.Blocked() || pp.Vmknic != hp.DataVmknic.Name || pp.MTU >= need || (best > 0 && pp.MTU >= best) {
			continue
		}
		for _, j := range blocked {
			if fs[j].Subject == pairSubject(pp) {
				best, at = pp.MTU, j
			}
		}
	}
	return at
}

// linkSameHop nests the blocked paths whose likely hop is the same (a
// host's own link, or the links between two hosts, in either direction)
// under the first of them: one switch port that drops jumbo frames is one
// root cause, however many paths cross it.
func linkSameHop(paths *facts.DataPath, fs []Finding) {
	if paths == nil {
		return
	}
	idx := map[string]int{}
	for i, f := range fs {
		if f.Status == StatusFail && !f.Suppressed && f.RuleID == "PATH_MTU_BLOCKED" {
			idx[f.Host+"|"+f.Subject] = i
		}
	}
	if len(idx) < 2 {
		return
	}
	type member struct {
		i   int
		key string
	}
	groups := map[string][]member{}
	for _, pp := range paths.Pairs() {
		i, ok := idx[pp.From+"|"+pairSubject(pp)]
		if !ok {
			continue
		}
		hop := likelyHop(paths, pp).key
		groups[hop] = append(groups[hop], member{i, fs[i].Host + "|" + fs[i].Subject})
	}
	for _, ms := range groups {
		if len(ms) < 2 {
			continue
		}
		sort.Slice(ms, func(a, b int) bool { return ms[a].key < ms[b].key })
		root := ms[0].i
		for _, m := range ms[1:] {
			if fs[m.i].CausedBy == nil {
				fs[m.i].CausedBy = &Cause{RuleID: fs[root].RuleID, Host: fs[root].Host, Subject: fs[root].Subject}
			}
		}
	}
}

// linkVMCauses links one host's VM findings to their causes: an adapter
// whose RoCE version its host's device does not support explains its
// ROCE_VERSION_MISMATCH; a device PVRDMA uses without RoCE explains
// every adapter's protocol mismatch.
func linkVMCauses(fs []Finding, idx map[string][]int, hp *facts.HostPath, causeOf func(int) *Cause) {
	for _, i := range idx["ROCE_VERSION_MISMATCH"] {
		for _, j := range idx["VM_DEVICE_PROTOCOL_MISMATCH"] {
			if fs[j].Subject == fs[i].Subject {
				fs[i].CausedBy = causeOf(j)
			}
		}
	}
	// A device without RoCE explains the adapters' protocol mismatch only
	// when it is a device PVRDMA uses (VM_DEVICE_PROTOCOL_MISMATCH judges
	// the usable devices).
	for _, j := range idx["VM_DEVICE_PROTOCOL_MISMATCH"] {
		for _, n := range idx["ROCE_NOT_SUPPORTED"] {
			if fs[j].CausedBy == nil && hp != nil && usableDevice(hp, fs[n].Subject) {
				fs[j].CausedBy = causeOf(n)
			}
		}
	}
}

// usableDevice reports whether an RDMA device is one PVRDMA can use on the
// host (Active, paired with an uplink of the PVRDMA vDS).
func usableDevice(hp *facts.HostPath, name string) bool {
	for _, d := range hp.Usable {
		if d.Name == name {
			return true
		}
	}
	return false
}

// pairedUplink returns the paired uplink of an RDMA device ("" if unknown).
func pairedUplink(h *facts.Host, device string) string {
	for _, d := range h.RDMADevices {
		if d.Name == device {
			return d.PairedUplink
		}
	}
	return ""
}

// RootCauses returns the failing findings that no other finding causes.
func RootCauses(fs []Finding) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Status == StatusFail && f.CausedBy == nil {
			out = append(out, f)
		}
	}
	return out
}

// CauseOf is the cause a finding is to the findings it causes (its key,
// typed).
func CauseOf(f Finding) Cause { return causeOf(f) }

// Effects are failing findings by the cause they name (CausedBy), each
// list in the order of the findings indexed: built once per analysis, so
// that following a chain of causes costs no walk over the fleet.
type Effects map[Cause][]Finding

// IndexEffects indexes the failing findings of fs that name a cause.
func IndexEffects(fs []Finding) Effects {
	e := Effects{}
	for _, f := range fs {
		if f.Status == StatusFail && f.CausedBy != nil {
			e[*f.CausedBy] = append(e[*f.CausedBy], f)
		}
	}
	return e
}

// Consequences returns the findings caused by the finding with key, in
// order: a walk over fs (IndexEffects, when asked for many findings).
func Consequences(fs []Finding, key string) []Finding {
	var out []Finding
	for _, f := range fs {
		if f.Status == StatusFail && f.CausedBy != nil && f.CausedBy.Key() == key {
			out = append(out, f)
		}
	}
	return out
}

// ThereforeText is how a consequence reads under its cause: "and therefore
// <message>".
func ThereforeText(f Finding) string {
	m := strings.TrimSpace(f.Message)
	if m == "" {
		return ""
	}
	return "and therefore " + m
}
