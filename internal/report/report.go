// Package report turns a scan's results into the documents people act on:
// a versioned JSON document and human-readable text (more formats in
// their own files). It only formats: no collection, no parsing, no rules.
package report

// The report goldens (testdata) are regenerated with make generate, which names each golden it changes
// (go test in local directory mode shows what the tests print).
//go:generate go test -count=1 -run ^TestGolden -update

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// SchemaVersion of the JSON report; documented in docs/report-schema.md.
// Bump the minor for added fields, the major for anything that breaks readers.
const SchemaVersion = "2.2"

// Report is everything a run produced, ready to render.
type Report struct {
	SchemaVersion string    `json:"schema_version"`
	Tool          Tool      `json:"tool"`
	GeneratedAt   time.Time `json:"generated_at"`
	// Source says where the data came from: "scan", "demo (scenario mixed)", "bundle FILE".
	Source     string              `json:"source"`
	Verdict    string              `json:"verdict"`
	Summary    Summary             `json:"summary"`
	Hosts      []Host              `json:"hosts"`
	Findings   []checks.Finding    `json:"findings"`
	Suppressed []checks.Finding    `json:"suppressed,omitempty"`
	Passed     []checks.Finding    `json:"passed,omitempty"`
	Notes      []string            `json:"notes,omitempty"`
	Rules      map[string]RuleMeta `json:"rules"`
	// Plans is one ordered fix plan per host with findings at warning or
	// above (since 1.2).
	Plans []checks.Plan `json:"plans"`
	// Paths is the measured path matrix (every probed ordered pair of
	// hosts), when the run probed.
	Paths *Paths `json:"paths,omitempty"`
	// Guests are the scanned Linux guests (scan --guests), each with its
	// PVRDMA adapters beside their host side (guests.go).
	Guests []Host `json:"guests,omitempty"`
	// Groups are the root causes grouped by problem: the same rule,
	// cause and fix on several subjects is one group (groups.go; since 1.4).
	Groups []Group `json:"groups"`
	// CollectionFailures sum up what could not be collected, one entry per
	// cause (collection.go; since 1.4).
	CollectionFailures []FailureCause `json:"collection_failures,omitempty"`
	// Topology is each host's PVRDMA data path as the reports and the TUI
	// draw it (topology.go; since 1.4).
	Topology []Topology `json:"topology,omitempty"`
	// Readiness is every host checked against the seeds' host setup,
	// whether or not it runs PVRDMA VMs (readiness.go; since 2.2).
	Readiness *checks.Readiness `json:"readiness,omitempty"`
	// InternalErrors are the panics the engine recovered (a rule, a
	// host's cause links or fix plan): the run is incomplete (since 1.4).
	InternalErrors []checks.InternalError `json:"internal_errors,omitempty"`

	// idx indexes Findings and Groups once they are final (account), for
	// the lookups every format makes per finding (index.go).
	idx *reportIndex
}

// Tool identifies the producer.
type Tool struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

// RuleMeta is what a reader needs about each rule that produced a finding.
type RuleMeta struct {
	Title string   `json:"title"`
	Why   string   `json:"why"`
	Docs  []string `json:"docs,omitempty"`
}

// Summary counts.
type Summary struct {
	Hosts int `json:"hosts"`
	// Guests counts the scanned Linux guests.
	Guests            int `json:"guests,omitempty"`
	HostsCollected    int `json:"hosts_collected"`
	HostsPartial      int `json:"hosts_partial"`
	HostsNotCollected int `json:"hosts_not_collected"`
	// The guests' statuses, as the hosts' (since 1.4).
	GuestsCollected    int `json:"guests_collected,omitempty"`
	GuestsPartial      int `json:"guests_partial,omitempty"`
	GuestsNotCollected int `json:"guests_not_collected,omitempty"`
	Critical           int `json:"critical"`
	Warning            int `json:"warning"`
	Info               int `json:"info"`
	NotEvaluated       int `json:"not_evaluated"`
	Passed             int `json:"passed"`
	Suppressed         int `json:"suppressed"`
	// CollectionFailed counts COLLECTION_FAILED findings, which make a scan
	// incomplete but are not PVRDMA problems: Critical, Warning and Info
	// leave them out, exactly as the verdict does (since 1.2).
	CollectionFailed int `json:"collection_failed"`
	// RootCauses counts the problems no other finding causes, by severity;
	// Consequences the problems that follow from one of them (since 1.2).
	RootCauses   SeverityCounts `json:"root_causes"`
	Consequences int            `json:"consequences"`
	// Problems counts the groups of root causes (Report.Groups) by
	// severity: what the verdict counts (since 1.4).
	Problems SeverityCounts `json:"problems"`
	// HostsVCenterOnly counts the partial hosts SSH did not reach, of
	// which only vCenter's data was read (since 1.4).
	HostsVCenterOnly int `json:"hosts_vcenter_only"`
	// EntriesWithProblems counts the hosts and the guests with a problem
	// at warning or above (since 1.4).
	HostsWithProblems  int `json:"hosts_with_problems"`
	GuestsWithProblems int `json:"guests_with_problems"`
}

// SeverityCounts counts findings by severity.
type SeverityCounts struct {
	Critical int `json:"critical"`
	Warning  int `json:"warning"`
	Info     int `json:"info"`
}

// Host is one host's collection status and finding counts.
type Host struct {
	Host string `json:"host"`
	facts.Collection
	Version string `json:"esxi_version,omitempty"`
	// NumRDMADevices and NumPVRDMAVMs are nil when unknown: the listing
	// they count (`esxcli rdma device list`, the vsish PVRDMA device
	// listing) was not collected or not parsed. Read them with
	// RDMADeviceCount and PVRDMAVMCount.
	NumRDMADevices *int `json:"rdma_devices"`
	NumPVRDMAVMs   *int `json:"pvrdma_vms"`
	Critical       int  `json:"critical"`
	Warning        int  `json:"warning"`
	Info           int  `json:"info"`
	NotEvaluated   int  `json:"not_evaluated"`
	// CollectionFailed, RootCauses and Consequences as in Summary (since 1.2).
	CollectionFailed int            `json:"collection_failed"`
	RootCauses       SeverityCounts `json:"root_causes"`
	Consequences     int            `json:"consequences"`
	// Problems counts the groups among its root causes (since 1.4).
	Problems SeverityCounts `json:"problems"`
	// PlanSteps is how many steps its fix plan has; NotReady whether it
	// is not set up for PVRDMA (HOST_NOT_READY). Its verdict says both.
	PlanSteps int  `json:"-"`
	NotReady  bool `json:"-"`
	// CollectionDetail is what could not be collected, in a few words
	// ("unknown host key ssh-ed25519 SHA256:...", "SSH refused; vCenter's
	// data only"); Reason keeps the whole message (since 1.4).
	CollectionDetail string `json:"collection_detail,omitempty"`
	// DurationMS is the host's own time (from when a concurrency slot
	// was free); QueueMS the wait for that slot (since 1.4).
	DurationMS int64           `json:"duration_ms"`
	QueueMS    int64           `json:"queue_ms,omitempty"`
	Commands   []CommandStatus `json:"commands"`
	Verdict    string          `json:"verdict"`
	// Role is "guest" for an entry of Report.Guests.
	Role string `json:"role,omitempty"`
	// Adapters are the PVRDMA adapters whose guest was scanned, host side
	// and guest side together.
	Adapters []AdapterPair `json:"adapters,omitempty"`
	// Bandwidth are a guest's results of the opt-in bandwidth test.
	Bandwidth []BandwidthLine `json:"bandwidth,omitempty"`
	// Stacks are the driver stacks of the NICs PVRDMA uses or could use
	// (the PVRDMA vDS's uplinks): family, driver and firmware versions,
	// RDMA driver, its version and state, RDMA device (since 2.0, issue 28).
	Stacks []facts.Stack `json:"stacks,omitempty"`
}

// StackText says a driver stack in one line: "vmnic4 ConnectX-5:
// nmlx5_core 4.23.0.66, firmware 16.35.3502; nmlx5_rdma 4.23.0.66 loaded;
// vmrdma0 Active".
func StackText(s facts.Stack) string {
	name := s.NIC
	if s.Family != "" {
		name += " " + s.Family
	}
	lan := orDash(s.Driver, "driver unknown", "")
	if v := shortVersion(s.Version); v != "" {
		lan += " " + v
	}
	if s.Firmware != "" {
		lan += ", firmware " + s.Firmware
	}
	if s.ENS {
		lan += ", ENS mode"
	}
	parts := []string{lan}
	if s.RDMADriver != "" && s.RDMADriver != s.Driver {
		rd := s.RDMADriver
		if v := shortVersion(s.RDMAVersion); v != "" {
			rd += " " + v
		}
		if s.RDMAState != "" && s.RDMAState != "not read" {
			rd += " " + s.RDMAState
		}
		parts = append(parts, rd)
	}
	if s.Device != "" {
		parts = append(parts, s.Device+" "+orDash(s.DeviceState, "state unknown", ""))
	} else {
		parts = append(parts, "no RDMA device")
	}
	return name + ": " + strings.Join(parts, "; ")
}

// shortVersion is a VIB or driver version without its build suffix
// ("4.23.0.66-1vmw.803.0.0.24022510" -> "4.23.0.66").
func shortVersion(v string) string {
	v, _, _ = strings.Cut(strings.TrimSpace(v), "-")
	return v
}

// RDMADeviceCount is the number of RDMA devices the host lists; known is
// false when `esxcli rdma device list` was not collected or not parsed.
func (h *Host) RDMADeviceCount() (n int, known bool) {
	if h.NumRDMADevices == nil {
		return 0, false
	}
	return *h.NumRDMADevices, true
}

// PVRDMAVMCount is the number of VMs with a PVRDMA adapter; known is false
// when the vsish PVRDMA device listing was not collected or not parsed.
func (h *Host) PVRDMAVMCount() (n int, known bool) {
	if h.NumPVRDMAVMs == nil {
		return 0, false
	}
	return *h.NumPVRDMAVMs, true
}

// countText renders a count or "<many> unknown": "1 RDMA device",
// "0 RDMA devices", "RDMA devices unknown".
func countText(n int, known bool, one, many string) string {
	if !known {
		return many + " unknown"
	}
	return plural(n, one, many)
}

func (h Host) rdmaDevicesText() string {
	n, ok := h.RDMADeviceCount()
	return countText(n, ok, "RDMA device", "RDMA devices")
}

func (h Host) pvrdmaVMsText() string {
	n, ok := h.PVRDMAVMCount()
	return countText(n, ok, "PVRDMA VM", "PVRDMA VMs")
}

// cellCount renders a count for a table cell: the number or "unknown".
func cellCount(n int, known bool) string {
	if !known {
		return "unknown"
	}
	return fmt.Sprint(n)
}

// CommandStatus is one command's collection outcome.
type CommandStatus struct {
	Command    string        `json:"command"`
	Status     hostio.Status `json:"status"`
	ExitCode   int           `json:"exit_code"`
	DurationMS int64         `json:"duration_ms"`
	Error      string        `json:"error,omitempty"`
	// Cause says why the command holds no output when that is not the
	// command's own failure (hostio.Cause: not in the input, host not
	// reached, needs SSH, ...).
	Cause hostio.Cause `json:"cause,omitempty"`
	// Transport is how the command was collected when not over the
	// host's own transport ("vcenter", "vsphere-api").
	Transport string `json:"transport,omitempty"`
}

// Meta describes the run.
type Meta struct {
	Source  string
	Version string
	Now     time.Time
	Notes   []string
}

// Build assembles a report.
func Build(results []hostio.HostResult, fleet *facts.Fleet, res checks.Result, suppressed []checks.Finding, meta Meta) *Report {
	r := &Report{
		SchemaVersion: SchemaVersion,
		Tool:          Tool{Name: "pvrdma-doctor", Version: meta.Version},
		GeneratedAt:   meta.Now.UTC(),
		Source:        meta.Source,
		Findings:      nonNil(res.Findings),
		Passed:        res.Passed,
		Suppressed:    suppressed,
		Notes:         append([]string(nil), meta.Notes...),
		Rules:         map[string]RuleMeta{},
	}
	byHost := map[string]*facts.Host{}
	for i := range fleet.Hosts {
		byHost[fleet.Hosts[i].Host] = &fleet.Hosts[i]
	}
	for _, hr := range results {
		h := Host{Host: hr.Host, Collection: facts.CollectionOf(hr), DurationMS: hr.Duration.Milliseconds(), QueueMS: hr.QueueWait.Milliseconds()}
		for _, c := range hr.Captures {
			h.Commands = append(h.Commands, CommandStatus{Command: c.Command, Status: c.Status, ExitCode: c.ExitCode,
				DurationMS: c.Duration.Milliseconds(), Error: c.Error, Cause: c.Cause, Transport: c.Transport})
		}
		if fh := byHost[hr.Host]; fh != nil {
			h.Stacks = fh.Stacks(fleet.DataPath().For(fh))
			if fh.Version != nil {
				h.Version = strings.TrimSpace(fh.Version.Version + " " + fh.Version.Build)
			}
			if ok, _ := fh.Available(catalog.KindRDMADeviceList); ok {
				n := len(fh.RDMADevices)
				h.NumRDMADevices = &n
			}
			if ok, _ := fh.Available(catalog.KindPVRDMADeviceLs); ok {
				n := countVMs(fh)
				h.NumPVRDMAVMs = &n
			} else if ok, _ := fh.Available(catalog.KindVCenterVMs); ok {
				// vsish was not read, but vCenter lists the host's VMs:
				// count its powered-on PVRDMA VMs, as the rules do,
				// rather than say "unknown" beside findings about them.
				n := len(fh.VCenterPVRDMAVMs(true))
				h.NumPVRDMAVMs = &n
			}
		}
		r.Hosts = append(r.Hosts, h)
	}
	addGuests(r, results, fleet)
	for _, f := range r.Findings {
		if rule, ok := checks.Lookup(f.RuleID); ok {
			r.Rules[f.RuleID] = RuleMeta{Title: rule.Title, Why: rule.Why, Docs: rule.Docs}
		}
	}
	r.Findings = causeOrder(r.Findings)
	r.Paths = BuildPaths(fleet)
	r.Topology = BuildTopology(fleet, r.Findings)
	if len(fleet.Hosts) > 0 {
		var ie *checks.InternalError
		if r.Readiness, ie = checks.ReadinessChecked(fleet); ie != nil {
			r.InternalErrors = append(r.InternalErrors, *ie)
		}
	}
	var planErrs []checks.InternalError
	r.Plans, planErrs = checks.PlansChecked(fleet, r.Findings)
	r.InternalErrors = append(append(append([]checks.InternalError(nil), res.Errors...), planErrs...), r.InternalErrors...)
	for _, ie := range r.InternalErrors {
		if ie.Where != checks.InRule { // a rule's shows as its "not evaluated" finding
			r.Notes = append(r.Notes, ie.Message)
		}
	}
	if r.Plans == nil {
		r.Plans = []checks.Plan{}
	}
	account(r)
	return r
}

// account computes every count and every verdict word of the report in
// one place (summary, groups, collection failures, host, guest and fleet
// verdicts): every format prints these, none counts again.
func account(r *Report) {
	r.idx = nil
	plainFaults(r)
	summarize(r)
	r.Groups = buildGroups(r)
	r.idx = newReportIndex(r)
	r.CollectionFailures = collectionFailures(r)
	s := &r.Summary
	s.Problems = SeverityCounts{}
	for _, g := range r.Groups {
		s.Problems.add(g.Severity)
	}
	for _, list := range [][]Host{r.Hosts, r.Guests} {
		for i := range list {
			h := &list[i]
			h.Problems = hostGroups(r, h.Host)
			if h.Critical+h.Warning > 0 {
				if h.Role == hostio.RoleGuest {
					s.GuestsWithProblems++
				} else {
					s.HostsWithProblems++
				}
			}
		}
	}
	steps := map[string]int{}
	notReady := map[string]bool{}
	for _, p := range r.Plans {
		steps[p.Host] += len(p.Steps)
	}
	for _, f := range r.Findings {
		if f.Status == checks.StatusFail && f.RuleID == hostNotReady {
			notReady[f.Host] = true
		}
	}
	for i := range r.Hosts {
		h := &r.Hosts[i]
		if h.Status == hostio.StatusPartial && strings.HasSuffix(h.Reason, vcenterOnly) {
			s.HostsVCenterOnly++
		}
		h.PlanSteps, h.NotReady = steps[h.Host], notReady[h.Host]
		h.Verdict = hostVerdict(h)
	}
	for i := range r.Guests {
		r.Guests[i].PlanSteps = steps[r.Guests[i].Host]
		r.Guests[i].Verdict = guestVerdict(&r.Guests[i], r.Findings)
	}
	r.Verdict = fleetVerdict(r)
}

// hostNotReady is the rule that says a host is not set up for PVRDMA.
const hostNotReady = "HOST_NOT_READY"

// vcenterOnly ends the reason of a host SSH did not reach whose vCenter
// data was read (collect).
const vcenterOnly = "; only the data read from vCenter is used"

func nonNil(f []checks.Finding) []checks.Finding {
	if f == nil {
		return []checks.Finding{}
	}
	return f
}

func countVMs(h *facts.Host) int {
	seen := map[string]bool{}
	for _, d := range h.PVRDMADevices {
		seen[d.WorldID] = true
	}
	for _, e := range h.PVRDMAListing {
		wid, _, _ := e.DeviceID()
		seen[wid] = true
	}
	return len(seen)
}

// Headline is the count a host's (or guest's) verdict says and every
// format shows beside it (the TUI's columns, JUnit's properties): its
// problems, the distinct root causes, by severity.
func (h Host) Headline() SeverityCounts {
	if h.Problems == (SeverityCounts{}) {
		return h.RootCauses // groups are the fleet's; a host always counts its own root causes
	}
	return h.Problems
}

// Total is the number of problems of all severities.
func (c SeverityCounts) Total() int { return c.Critical + c.Warning + c.Info }

// hostVerdict is a host's (or guest's) verdict: its word and the counts
// behind it. The word follows from its findings and plan and never
// contradicts them: BROKEN with a critical finding, DEGRADED with a
// warning, NOT READY when it is not set up for PVRDMA (HOST_NOT_READY),
// and an OK beside a fix plan says the plan is there.
func hostVerdict(h *Host) string {
	rc := h.RootCauses
	problems := h.Headline()
	var v string
	switch {
	case h.Status == hostio.StatusNotCollected:
		return "NOT CHECKED: " + h.Reason
	case h.Critical > 0:
		v = "BROKEN: " + rootCounts(problems, rc, h.Consequences)
	case h.Warning > 0:
		v = "DEGRADED: " + rootCounts(problems, rc, h.Consequences)
	case h.Status == hostio.StatusPartial || h.CollectionFailed > 0:
		reason := h.Reason
		if reason == "" {
			reason = "some commands could not be collected"
		}
		return "INCOMPLETE: " + reason
	case h.NotReady:
		v = "NOT READY for PVRDMA: " + rootCounts(problems, rc, h.Consequences)
	case h.Info > 0:
		v = "OK: " + rootCounts(problems, rc, h.Consequences)
	case h.NotEvaluated > 0:
		v = "OK so far"
	default:
		v = "OK"
	}
	if h.NotEvaluated > 0 && h.Critical+h.Warning == 0 {
		sep := ", "
		if v == "OK so far" {
			sep = ": "
		}
		v += sep + plural(h.NotEvaluated, "check", "checks") + " not evaluated"
	}
	if h.PlanSteps > 0 && h.Critical+h.Warning == 0 {
		v += "; fix plan: " + plural(h.PlanSteps, "step", "steps")
	}
	return v
}

func counts(c, w, i int) string {
	var parts []string
	if c > 0 {
		parts = append(parts, plural(c, "critical", "critical"))
	}
	if w > 0 {
		parts = append(parts, plural(w, "warning", "warnings"))
	}
	if i > 0 {
		parts = append(parts, plural(i, "info", "info"))
	}
	if len(parts) == 0 {
		return "no findings"
	}
	return strings.Join(parts, ", ")
}

func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return fmt.Sprintf("%d %s", n, many)
}

// VerdictClass is the fleet verdict's class: "broken", "degraded",
// "incomplete", "nothing_checked" or "healthy" (what colours it).
func (r *Report) VerdictClass() string {
	s := r.Summary
	switch {
	case s.HostsCollected+s.HostsPartial+s.GuestsCollected+s.GuestsPartial == 0:
		return "nothing_checked"
	case s.Passed == 0 && s.NotEvaluated > 0 && s.Critical+s.Warning == 0:
		// Hosts answered, but nothing they said could be checked (all
		// garbage): never "healthy".
		return "nothing_checked"
	case s.Critical > 0:
		return "broken"
	case s.Warning > 0:
		return "degraded"
	case r.Incomplete():
		return "incomplete"
	}
	return "healthy"
}

// Level is how bad the fleet verdict or a host's line is, which colours
// it: the CSS class in HTML, a terminal colour in text (ansi), a style in
// the TUI.
type Level string

const (
	LevelCritical Level = "critical"
	LevelWarning  Level = "warning"
	LevelOK       Level = "ok"
)

// VerdictLevel is the fleet verdict's level: critical when broken or
// nothing could be checked, warning when degraded or incomplete.
func (r *Report) VerdictLevel() Level {
	switch r.VerdictClass() {
	case "broken", "nothing_checked":
		return LevelCritical
	case "degraded", "incomplete":
		return LevelWarning
	}
	return LevelOK
}

// level is a host's (or guest's) level: critical when broken or not
// collected, warning when degraded or partial.
func (h Host) level() Level {
	switch {
	case h.Status == hostio.StatusNotCollected || h.Critical > 0:
		return LevelCritical
	case h.Warning > 0 || h.Status == hostio.StatusPartial || h.NotReady:
		return LevelWarning
	}
	return LevelOK
}

// ansi is the terminal colour of a level: red, yellow or green.
func (l Level) ansi() string {
	switch l {
	case LevelCritical:
		return "31"
	case LevelWarning:
		return "33"
	}
	return "32"
}

func fleetVerdict(r *Report) string {
	s := r.Summary
	if r.VerdictClass() == "nothing_checked" {
		if s.HostsCollected+s.HostsPartial > 0 {
			return fmt.Sprintf("NOTHING CHECKED: %s, but no check could be evaluated on what they returned (%s not evaluated, 0 passed)",
				collectionSummary(s), plural(s.NotEvaluated, "check", "checks"))
		}
		return fmt.Sprintf("NOTHING CHECKED: 0 of %s could be collected, the scan is INCOMPLETE", plural(s.Hosts, "host", "hosts"))
	}
	var b strings.Builder
	switch r.VerdictClass() {
	case "broken":
		b.WriteString("PVRDMA is BROKEN: ")
	case "degraded":
		b.WriteString("PVRDMA is DEGRADED: ")
	case "incomplete":
		b.WriteString("No problem found, but the scan is INCOMPLETE: ")
	default:
		b.WriteString("PVRDMA looks HEALTHY: ")
	}
	b.WriteString(rootCounts(s.Problems, s.RootCauses, s.Consequences))
	if s.Critical+s.Warning > 0 {
		var on []string
		if s.HostsWithProblems > 0 || s.GuestsWithProblems == 0 {
			on = append(on, plural(s.HostsWithProblems, "host", "hosts"))
		}
		if s.GuestsWithProblems > 0 {
			on = append(on, plural(s.GuestsWithProblems, "guest", "guests"))
		}
		fmt.Fprintf(&b, " on %s", strings.Join(on, " and "))
	}
	notReady := 0
	for _, h := range r.Hosts {
		if h.NotReady && h.Critical+h.Warning == 0 {
			notReady++
		}
	}
	if notReady > 0 {
		// Hosts PVRDMA would not work on yet, whatever runs today.
		fmt.Fprintf(&b, "; %s not ready for PVRDMA", plural(notReady, "host", "hosts"))
	}
	b.WriteString("; ")
	b.WriteString(collectionSummary(s))
	if s.NotEvaluated > 0 {
		fmt.Fprintf(&b, ", %s not evaluated", plural(s.NotEvaluated, "check", "checks"))
	}
	return b.String()
}

// collectionSummary says how many hosts were collected, in the terms of
// the JSON summary: "5 of 5 hosts collected", or "3 of 5 hosts reached (1
// partially collected), 1 through vCenter only, 1 not collected". A host
// SSH did not reach is never counted as reached, whatever vCenter said
// about it.
func collectionSummary(s Summary) string {
	if s.HostsPartial+s.HostsNotCollected == 0 {
		return fmt.Sprintf("%d of %s collected", s.HostsCollected, plural(s.Hosts, "host", "hosts"))
	}
	partial := s.HostsPartial - s.HostsVCenterOnly
	out := fmt.Sprintf("%d of %s reached", s.HostsCollected+partial, plural(s.Hosts, "host", "hosts"))
	if partial > 0 {
		out += fmt.Sprintf(" (%d partially collected)", partial)
	}
	if s.HostsVCenterOnly > 0 {
		out += fmt.Sprintf(", %d through vCenter only", s.HostsVCenterOnly)
	}
	if s.HostsNotCollected > 0 {
		out += fmt.Sprintf(", %d not collected", s.HostsNotCollected)
	}
	return out
}

// Incomplete reports whether some host, guest or command was not
// collected, or part of the analysis failed (InternalErrors).
func (r *Report) Incomplete() bool {
	s := r.Summary
	return s.HostsNotCollected+s.HostsPartial+s.GuestsNotCollected+s.GuestsPartial > 0 || len(r.InternalErrors) > 0
}

// HostNames returns the hosts in report order.
func (r *Report) HostNames() []string {
	out := make([]string, len(r.Hosts))
	for i, h := range r.Hosts {
		out[i] = h.Host
	}
	return out
}

// FindingsBySeverity groups failing findings by severity, most severe first.
func (r *Report) FindingsBySeverity() map[checks.Severity][]checks.Finding {
	m := map[checks.Severity][]checks.Finding{}
	for _, f := range r.Findings {
		if f.Status == checks.StatusFail {
			m[f.Severity] = append(m[f.Severity], f)
		}
	}
	for _, fs := range m {
		sort.SliceStable(fs, func(i, j int) bool { return fs[i].Host < fs[j].Host })
	}
	return m
}

// plainFaults says every vSphere fault the report quotes in words
// (hostio.PlainFaults): SOAP XML reaches no format, JSON included.
func plainFaults(r *Report) {
	for _, list := range [][]Host{r.Hosts, r.Guests} {
		for i := range list {
			h := &list[i]
			h.Reason = hostio.PlainFaults(h.Reason)
			for j := range h.Notes {
				h.Notes[j] = hostio.PlainFaults(h.Notes[j])
			}
			for j := range h.Commands {
				h.Commands[j].Error = hostio.PlainFaults(h.Commands[j].Error)
			}
		}
	}
	for _, fs := range [][]checks.Finding{r.Findings, r.Suppressed} {
		for i := range fs {
			f := &fs[i]
			f.Message = hostio.PlainFaults(f.Message)
			for j := range f.Evidence {
				f.Evidence[j].Note = hostio.PlainFaults(f.Evidence[j].Note)
			}
		}
	}
}
