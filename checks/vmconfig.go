package checks

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The VM and GPU rules read each VM's configuration from every source that
// gave one (facts.Host.VMConfigs: its .vmx over SSH, vCenter), joined by
// BIOS UUID, else by name. Where two sources disagree on a value a rule
// reads, the finding says so and names both.

// vmView is one VM of a host as the VM rules see it.
type vmView struct {
	Name string
	// Configs are its configurations, .vmx first.
	Configs []parse.VMConfig
	// Proc is the VM's process when it runs on the host (nil otherwise).
	Proc *parse.VMProcess
	// PVRDMARunning: the vsish listing shows a PVRDMA adapter of it.
	PVRDMARunning bool
	// Why says why no configuration was read (Configs empty).
	Why string
}

// pvrdma reports whether the VM has a PVRDMA adapter by any source.
func (v vmView) pvrdma() bool {
	if v.PVRDMARunning {
		return true
	}
	for _, c := range v.Configs {
		if len(c.PVRDMA()) > 0 {
			return true
		}
	}
	return false
}

// passthrough reports whether any source lists a passthrough device.
func (v vmView) passthrough() bool {
	for _, c := range v.Configs {
		if len(c.Passthrough) > 0 {
			return true
		}
	}
	return false
}

// worldID is the VM's world ID when it runs on the host ("" otherwise).
func (v vmView) worldID() string {
	if v.Proc != nil {
		return v.Proc.WorldID
	}
	return ""
}

// normUUID makes "42 1c 6e 8b-..." and "421c6e8b-..." comparable.
func normUUID(s string) string {
	return strings.Map(func(r rune) rune {
		if r == ' ' || r == '-' {
			return -1
		}
		return r
	}, strings.ToLower(strings.TrimSpace(s)))
}

// vmViews returns the host's VMs that have a configuration or a running
// PVRDMA adapter, in the order of their first appearance (configurations,
// then `esxcli vm process list`).
func vmViews(h *facts.Host) []vmView {
	var out []vmView
	byUUID, byName := map[string]int{}, map[string]int{}
	// join finds the view of a configuration: same BIOS UUID, else (when
	// either lacks one) same name.
	join := func(c parse.VMConfig) int {
		if u := normUUID(c.UUID); u != "" {
			if i, ok := byUUID[u]; ok {
				return i
			}
		}
		if i, ok := byName[c.Name]; ok && c.Name != "" {
			if u, ou := normUUID(c.UUID), normUUID(out[i].Configs[0].UUID); u == "" || ou == "" {
				return i
			}
		}
		return -1
	}
	for _, c := range h.VMConfigs {
		i := join(c)
		if i < 0 {
			i = len(out)
			out = append(out, vmView{Name: c.Name})
		}
		out[i].Configs = append(out[i].Configs, c)
		if u := normUUID(c.UUID); u != "" {
			if _, ok := byUUID[u]; !ok {
				byUUID[u] = i
			}
		}
		if _, ok := byName[c.Name]; !ok && c.Name != "" {
			byName[c.Name] = i
		}
	}
	byFile := map[string]int{}
	for i := range out {
		sort.SliceStable(out[i].Configs, func(a, b int) bool {
			return out[i].Configs[a].Source == "vmx" && out[i].Configs[b].Source != "vmx"
		})
		for _, c := range out[i].Configs {
			if c.ConfigFile != "" {
				byFile[c.ConfigFile] = i
			}
		}
	}
	worlds := map[string]bool{}
	for _, e := range h.PVRDMAListing {
		if wid, _, ok := e.DeviceID(); ok {
			worlds[wid] = true
		}
	}
	for _, d := range h.PVRDMADevices {
		worlds[d.WorldID] = true
	}
	for pi := range h.VMs {
		p := &h.VMs[pi]
		idx, ok := byUUID[normUUID(p.UUID)]
		if !ok || normUUID(p.UUID) == "" {
			idx, ok = byFile[p.ConfigFile]
		}
		if !ok || p.ConfigFile == "" && normUUID(p.UUID) == "" {
			idx, ok = byName[p.DisplayName]
			ok = ok && out[idx].Proc == nil
		}
		if ok {
			out[idx].Proc = p
			out[idx].PVRDMARunning = worlds[p.WorldID]
			continue
		}
		if worlds[p.WorldID] {
			out = append(out, vmView{Name: p.DisplayName, Proc: p, PVRDMARunning: true, Why: vmxMissing(h, p)})
		}
	}
	for i := range out {
		out[i].Name = viewName(out[i])
	}
	return out
}

// viewName names a VM whose configuration gives no display name (a .vmx
// cut short) by what else identifies it, so that two such VMs are never
// one subject: the running VM's name, the .vmx file, the BIOS UUID.
func viewName(v vmView) string {
	if v.Name != "" {
		return v.Name
	}
	if v.Proc != nil && v.Proc.DisplayName != "" {
		return v.Proc.DisplayName
	}
	for _, c := range v.Configs {
		if c.ConfigFile != "" {
			return "the VM of " + c.ConfigFile
		}
	}
	for _, c := range v.Configs {
		if c.UUID != "" {
			return "the VM with BIOS UUID " + c.UUID
		}
	}
	return "a VM without a name"
}

// vmxMissing says why a running PVRDMA VM's .vmx was not read.
func vmxMissing(h *facts.Host, p *parse.VMProcess) string {
	c, err := catalog.VMXCommand(p.ConfigFile)
	if err != nil {
		return fmt.Sprintf("its .vmx was not read: %v", err)
	}
	for _, s := range h.Sources[catalog.KindVMX] {
		if s.Command != c.Line {
			continue
		}
		return "its .vmx could not be read: " + s.Failure()
	}
	for _, n := range h.Notes {
		if strings.Contains(n, "cap of") {
			return "its .vmx was not read: " + n
		}
	}
	return "its .vmx was not read (`" + c.Line + "` was not run: a scan or bundle from before .vmx reading, or an input without it)"
}

// sourceName names a configuration's source in a message.
func sourceName(c parse.VMConfig) string {
	switch c.Source {
	case "vmx":
		return "the .vmx"
	case "vcenter":
		return "vCenter"
	}
	return c.Source
}

// disagreement says, when the VM's sources give different values for what
// a rule reads, what each says ("" when they agree or only one says).
// value returns the value as shown, ok=false when the source does not
// carry it.
func disagreement(v vmView, what string, value func(c parse.VMConfig) (string, bool)) string {
	var parts []string
	seen := map[string]bool{}
	for _, c := range v.Configs {
		s, ok := value(c)
		if !ok {
			continue
		}
		seen[s] = true
		parts = append(parts, fmt.Sprintf("%s says %s", sourceName(c), s))
	}
	if len(seen) < 2 {
		return ""
	}
	return fmt.Sprintf("; the sources disagree on %s: %s", what, strings.Join(parts, ", "))
}

// cfgEv is the evidence of a configuration value: the line it was read
// from, or the configuration's own reference with a note.
func cfgEv(host string, c parse.VMConfig, field, note string) Evidence {
	r, ok := c.Refs[field]
	if !ok {
		for k, rr := range c.Refs {
			if strings.EqualFold(k, field) {
				r, ok = rr, true
			}
		}
	}
	if !ok {
		// The value is absent: the whole configuration is the evidence.
		cmd := c.Command
		if cmd == "" {
			cmd = c.ConfigFile
		}
		if c.Source == "vcenter" && note != "" {
			// The note names the .vmx key; vCenter did not report the
			// property: the VM's line is the evidence.
			return Evidence{Host: host, Command: cmd, Line: c.Line, Text: c.Text, Property: "name = " + c.Name, Note: "vCenter does not report it"}
		}
		return Evidence{Host: host, Command: cmd, Note: note}
	}
	e := Ev(host, r)
	if e.Command == "" {
		e.Command = c.ConfigFile
	}
	return e
}

// adapterEv is cfgEv for an adapter's field.
func adapterEv(host string, c parse.VMConfig, a parse.VMAdapter, field, note string) Evidence {
	r := a.RefOf(field)
	e := Ev(host, r)
	if e.Command == "" {
		e.Command = c.ConfigFile
	}
	if _, ok := a.Refs[field]; !ok {
		e.Note = note
	}
	return e
}

// govcVM names a VM in a govc command (-vm takes its inventory name).
func govcVM(name string) string { return shellArg(name, "VM_NAME") }

// vmSettingsSubject is the VM a VM or GPU finding's subject names:
// "db01 (ethernet1)" -> "db01".
func vmSettingsSubject(s string) string {
	if i := strings.LastIndex(s, " ("); i > 0 && strings.HasSuffix(s, ")") {
		inner := s[i+2 : len(s)-1]
		if strings.HasPrefix(inner, "ethernet") || parse.NormalizePCIAddress(inner) != inner || rePCIAddr.MatchString(inner) {
			return s[:i]
		}
	}
	return vmOfSubject(s)
}

var rePCIAddr = regexp.MustCompile(`^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$`)

// adapterSubject names a VM's adapter.
func adapterSubject(vm string, a parse.VMAdapter) string { return fmt.Sprintf("%s (%s)", vm, a.Label) }
