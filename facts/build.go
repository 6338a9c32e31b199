package facts

import (
	"errors"
	"regexp"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Build assembles the facts of every host, in the order given.
func Build(results []hostio.HostResult) Fleet {
	f := Fleet{Hosts: make([]Host, 0, len(results))}
	for _, hr := range results {
		f.Hosts = append(f.Hosts, BuildHost(hr))
	}
	return f
}

// applier parses one capture's output into h; cmd is the capture's command
// line, to be set on every Ref.
type applier func(h *Host, text, cmd string) error

// list adapts a parser of a list output: it sets the command on every
// fact and appends them to the host field chosen by dst.
func list[T any](p func(string) ([]T, error), set func(v *T, cmd string), dst func(*Host) *[]T) applier {
	return func(h *Host, text, cmd string) error {
		v, err := p(text)
		if fatal(err) {
			return err
		}
		for i := range v {
			set(&v[i], cmd)
		}
		*dst(h) = append(*dst(h), v...)
		return err
	}
}

// fatal reports whether a parser error lost the whole output (a
// *parse.PartialError comes with facts that are good to use).
func fatal(err error) bool {
	_, partial := parse.Skipped(err)
	return err != nil && !partial
}

// appliers routes each command kind to its parser. An applier returns a
// *parse.PartialError after adding the facts that could be read.
var appliers = map[hostio.Kind]applier{
	hostio.KindSystemVersion: func(h *Host, text, cmd string) error {
		v, err := parse.SystemVersionGet(text)
		if fatal(err) {
			return err
		}
		v.Command = cmd
		h.Version = &v
		return err
	},
	hostio.KindRDMADeviceList: list(parse.RDMADeviceList,
		func(v *parse.RDMADevice, cmd string) { v.Command = cmd },
		func(h *Host) *[]parse.RDMADevice { return &h.RDMADevices }),
	hostio.KindRDMAProtocolList: list(parse.RDMAProtocolList,
		func(v *parse.RDMAProtocol, cmd string) { v.Command = cmd },
		func(h *Host) *[]parse.RDMAProtocol { return &h.RDMAProtocols }),
	hostio.KindRDMAVmknicList: list(parse.RDMAVmknicList,
		func(v *parse.RDMAVmknic, cmd string) { v.Command = cmd },
		func(h *Host) *[]parse.RDMAVmknic { return &h.RDMAVmknics }),
	hostio.KindRDMAStats: func(h *Host, text, cmd string) error {
		v, err := parse.RDMAStatsGet(text)
		if fatal(err) {
			return err
		}
		setRecordCommand(&v.Record, cmd)
		if v.Device == "" {
			if m := reDeviceArg.FindStringSubmatch(cmd); m != nil {
				v.Device = m[1]
			}
		}
		h.RDMAStats = append(h.RDMAStats, v)
		return err
	},
	hostio.KindVMProcessList: list(parse.VMProcessList,
		func(v *parse.VMProcess, cmd string) { v.Command = cmd },
		func(h *Host) *[]parse.VMProcess { return &h.VMs }),
	hostio.KindPVRDMADeviceLs: list(parse.VsishLs,
		func(v *parse.VsishEntry, cmd string) { v.Command = cmd },
		func(h *Host) *[]parse.VsishEntry { return &h.PVRDMAListing }),
	hostio.KindPVRDMAProperties: func(h *Host, text, cmd string) error {
		v, err := parse.PVRDMAProperties(text)
		if fatal(err) {
			return err
		}
		v.Command = cmd
		setRecordCommand(&v.Props, cmd)
		if m := rePVRDMAPath.FindStringSubmatch(cmd); m != nil {
			v.WorldID, v.Index = m[1], m[2]
		}
		h.PVRDMADevices = append(h.PVRDMADevices, v)
		return err
	},
	hostio.KindIPInterfaceList: list(parse.IPInterfaceList,
		func(v *parse.Vmknic, cmd string) { v.Command = cmd; setRecordCommand(&v.Record, cmd) },
		func(h *Host) *[]parse.Vmknic { return &h.Vmknics }),
	hostio.KindIPv4Get: list(parse.IPv4Get,
		func(v *parse.IPv4Interface, cmd string) { v.Command = cmd },
		func(h *Host) *[]parse.IPv4Interface { return &h.IPv4 }),
	hostio.KindNICList: list(parse.NICList,
		func(v *parse.NIC, cmd string) { v.Command = cmd },
		func(h *Host) *[]parse.NIC { return &h.NICs }),
	hostio.KindNICGet: func(h *Host, text, cmd string) error {
		v, err := parse.NICGet(text)
		if fatal(err) {
			return err
		}
		v.Command = cmd
		setRecordCommand(&v.Record, cmd)
		h.NICDetails = append(h.NICDetails, v)
		return err
	},
	hostio.KindDCBStatus: func(h *Host, text, cmd string) error {
		v, err := parse.DCBStatusGet(text)
		if fatal(err) {
			return err
		}
		v.Command = cmd
		setRecordCommand(&v.Record, cmd)
		if v.Nic == "" {
			if m := reNicArg.FindStringSubmatch(cmd); m != nil {
				v.Nic = m[1]
			}
		}
		h.DCB = append(h.DCB, v)
		return err
	},
	hostio.KindDVSList: list(parse.DVSList,
		func(v *parse.DVSwitch, cmd string) { v.Command = cmd; setRecordCommand(&v.Record, cmd) },
		func(h *Host) *[]parse.DVSwitch { return &h.DVSwitches }),
	hostio.KindStandardSwitchList: list(parse.StandardSwitchList,
		func(v *parse.StandardSwitch, cmd string) { v.Command = cmd; setRecordCommand(&v.Record, cmd) },
		func(h *Host) *[]parse.StandardSwitch { return &h.StandardSwitches }),
	hostio.KindPVRDMAVmknicOpt: func(h *Host, text, cmd string) error {
		v, err := parse.AdvancedSettingList(text)
		if fatal(err) {
			return err
		}
		v.Command = cmd
		setRecordCommand(&v.Record, cmd)
		h.PVRDMAVmknic = &v
		return err
	},
	hostio.KindFirewallRulesets: list(parse.FirewallRulesetList,
		func(v *parse.FirewallRuleset, cmd string) { v.Command = cmd },
		func(h *Host) *[]parse.FirewallRuleset { return &h.Rulesets }),
	hostio.KindVmkping: func(h *Host, text, cmd string) error {
		v, err := parse.Vmkping(text)
		if fatal(err) {
			return err
		}
		v.Command = cmd
		h.Pings = append(h.Pings, v)
		return err
	},
	hostio.KindFirewallGlobal: func(h *Host, text, cmd string) error {
		v, err := parse.FirewallGet(text)
		if err != nil {
			return err
		}
		v.Command = cmd
		setRecordCommand(&v.Record, cmd)
		h.Firewall = &v
		return nil
	},
	hostio.KindFirewallRules: list(parse.FirewallRuleList,
		func(v *parse.FirewallRule, cmd string) { v.Command = cmd },
		func(h *Host) *[]parse.FirewallRule { return &h.PVRDMARules }),
}

var (
	reDeviceArg = regexp.MustCompile(`-d\s+(vmrdma[0-9]+)`)
	reNicArg    = regexp.MustCompile(`-n\s+(vmnic[0-9]+)`)
)

// rePVRDMAPath takes the world ID and adapter index from the command path,
// which is authoritative over the block's own keys.
var rePVRDMAPath = regexp.MustCompile(`/pvrdmaDevices/([0-9]+)_([0-9]+)/properties\s*$`)

// setRecordCommand sets Command on a record's Ref, every field and every
// nested record.
func setRecordCommand(r *parse.Record, cmd string) {
	r.Command = cmd
	for k, f := range r.Fields {
		f.Command = cmd
		r.Fields[k] = f
	}
	for _, items := range r.Nested {
		for i := range items {
			setRecordCommand(&items[i], cmd)
		}
	}
}

// BuildHost parses every capture of one host. Each capture is recorded as a
// Source under its kind; collected captures go to their kind's parser, and
// an output that cannot be parsed becomes a ParseError (its facts are
// dropped, never half-filled).
func BuildHost(hr hostio.HostResult) Host {
	h := Host{
		Host:      hr.Host,
		Address:   hr.Address,
		Transport: hr.Transport,
		Status:    hr.Status,
		Reason:    hr.Reason,
		Notes:     append([]string(nil), hr.Notes...),
		Sources:   map[hostio.Kind][]Source{},
	}
	for _, c := range hr.Captures {
		kind := c.Kind
		if kind == "" {
			kind = collect.KindOf(c.Command)
		}
		src := Source{Command: c.Command, Status: c.Status, Error: c.Error, Filter: c.Filter}
		if c.OK() {
			apply, ok := appliers[kind]
			switch {
			case !ok:
				src.Error = "no parser"
			default:
				// Parse into a scratch host so a failed parse adds nothing.
				scratch := h
				err := apply(&scratch, c.Stdout, c.Command)
				if sk, partial := parse.Skipped(err); partial {
					h = scratch
					src.Parsed = true
					src.Skipped = sk
					err = nil
				}
				if err != nil {
					pe := ParseError{Command: c.Command, Message: err.Error()}
					var perr *parse.Error
					if errors.As(err, &perr) {
						pe.Line, pe.Message = perr.Line, perr.Msg
					}
					h.Errors = append(h.Errors, pe)
					src.Error = pe.String()
				} else if !src.Parsed {
					h = scratch
					src.Parsed = true
				}
			}
		}
		h.Sources[kind] = append(h.Sources[kind], src)
	}
	joinVMs(&h)
	resolveDVPorts(&h)
	return h
}

// joinVMs names each PVRDMA device after the VM whose World ID it carries.
func joinVMs(h *Host) {
	names := map[string]string{}
	for _, vm := range h.VMs {
		names[vm.WorldID] = vm.DisplayName
	}
	for i := range h.PVRDMADevices {
		if n, ok := names[h.PVRDMADevices[i].WorldID]; ok {
			h.PVRDMADevices[i].VMName = n
		}
	}
}
