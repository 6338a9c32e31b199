package facts

import (
	"errors"
	"reflect"
	"slices"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/parallel"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Build assembles the facts of every host, in the order given. Hosts are
// parsed on every CPU at once (each host's facts are its own captures'),
// then the fleet-wide model is derived.
func Build(results []hostio.HostResult) Fleet {
	f, _ := BuildUntil(results, Stop{})
	return f
}

// Stop is how an analysis is stopped between hosts (a first Ctrl-C).
type Stop struct {
	// Stop, once closed, stops the analysis at the next host: the hosts
	// not started yet are not analysed (NotAnalysed). Nil: never.
	Stop <-chan struct{}
	// BeforeHost, when set, is called as each host's analysis starts,
	// after Stop was found open (the tests hold an analysis there).
	BeforeHost func(host string)
}

func (s Stop) stopped() bool {
	if s.Stop == nil {
		return false
	}
	select {
	case <-s.Stop:
		return true
	default:
		return false
	}
}

// NotAnalysedReason is the reason given for a host whose analysis the
// interrupt stopped before it started.
const NotAnalysedReason = "not analysed: the analysis was interrupted before this host"

// NotAnalysed is hr as a host that was not analysed: no captures, not
// collected, with NotAnalysedReason (the report counts it as not
// collected, so the run is incomplete).
func NotAnalysed(hr hostio.HostResult) hostio.HostResult {
	return hostio.HostResult{Host: hr.Host, Role: hr.Role, Address: hr.Address, Transport: hr.Transport,
		Status: hostio.StatusNotCollected, Reason: NotAnalysedReason, Notes: hr.Notes}
}

// BuildUntil is Build stopped between hosts by s: each host not started
// when s.Stop closed is built from NotAnalysed(its result) and marked in
// skipped (nil when every host was analysed).
func BuildUntil(results []hostio.HostResult, s Stop) (f Fleet, skipped []bool) {
	hosts := make([]Host, len(results))
	guests := make([]Guest, len(results))
	var skip []bool
	if s.Stop != nil {
		skip = make([]bool, len(results))
	}
	parallel.For(len(results), 4, func(i int) {
		hr := results[i]
		if s.stopped() {
			skip[i] = true
			hr = NotAnalysed(hr)
		} else if s.BeforeHost != nil {
			s.BeforeHost(hr.Host)
		}
		if hr.Role == hostio.RoleGuest {
			guests[i] = BuildGuest(hr)
			return
		}
		hosts[i] = BuildHost(hr)
	})
	if slices.Contains(skip, true) {
		skipped = skip
	}
	f = Fleet{Hosts: make([]Host, 0, len(results))}
	for i, hr := range results {
		if hr.Role == hostio.RoleGuest {
			f.Guests = append(f.Guests, guests[i])
			continue
		}
		f.Hosts = append(f.Hosts, hosts[i])
	}
	f.path = newDataPath(&f)
	f.LinkGuests()
	return f, skipped
}

// BuildHost parses every capture of one host. Each capture is recorded as a
// Source under its kind; collected captures go to their kind's parser, and
// an output that cannot be parsed becomes a ParseError (its facts are
// dropped, never half-filled).
func BuildHost(hr hostio.HostResult) Host {
	h := Host{Host: hr.Host, Collection: CollectionOf(hr), Sources: map[hostio.Kind][]Source{}}
	for _, c := range hr.Captures {
		kind, src := sourceOf(c)
		if c.OK() {
			spec, ok := catalog.Lookup(kind)
			switch {
			case catalog.GuestKind(kind) || kind == catalog.KindGuestBWClient || kind == catalog.KindGuestBWServer:
				// A pasted session or folder that mixes a guest's commands
				// into an ESXi host's: its facts are a guest's.
				src.Error = "a Linux guest's command, not an ESXi host's"
			case !ok || spec.Parser.Parse == nil || !spec.Parser.Fills(&h.HostFacts):
				src.Error = "no parser"
			case spec.IsAbsent(c):
				src.Parsed = true // the host has no subject for it: none, read
			default:
				// A failed parse adds nothing; a partial one what it read.
				err := spec.Parser.Fill(&h.HostFacts, c.Stdout, c.Command)
				if sk, partial := parse.Skipped(err); partial {
					src.Skipped = sk
					err = nil
				}
				if err != nil {
					pe := parseErrorOf(c.Command, err)
					h.Errors = append(h.Errors, pe)
					src.Error = pe.String()
				} else {
					src.Parsed = true
				}
				if c.Round > 0 && kind == catalog.KindVmkping && len(h.Pings) > 0 {
					h.Pings[len(h.Pings)-1].Round = c.Round
				}
			}
		}
		h.Sources[kind] = append(h.Sources[kind], src)
	}
	fillFromVCenter(&h)
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

// Fact is the Host field a catalogue spec fills (a list, or a pointer to
// a single fact), for readers that walk facts by command kind (diff).
func (h *Host) Fact(spec *catalog.Spec) reflect.Value {
	v, _ := spec.Parser.Field(&h.HostFacts)
	return v
}

// Read tells whether some output filling the same field as spec was parsed
// on this host: an empty list then means "none", not "not collected".
func (h *Host) Read(spec *catalog.Spec) bool {
	for kind, srcs := range h.Sources {
		other, ok := catalog.Lookup(kind)
		if !ok || !catalog.SameField(spec.Parser, other.Parser, &h.HostFacts) {
			continue
		}
		for _, s := range srcs {
			if s.Parsed {
				return true
			}
		}
	}
	return false
}

// parseErrorOf is the ParseError of an output a parser could not read.
func parseErrorOf(command string, err error) ParseError {
	pe := ParseError{Command: command, Message: err.Error()}
	var perr *parse.Error
	if errors.As(err, &perr) {
		pe.Line, pe.Message = perr.Line, perr.Msg
	}
	return pe
}

// sourceOf is a capture's kind (from its command line when the capture
// does not say) and the Source it is recorded as.
func sourceOf(c hostio.Capture) (hostio.Kind, Source) {
	kind := c.Kind
	if kind == "" {
		kind = catalog.KindOf(c.Command)
	}
	return kind, Source{Command: c.Command, Status: c.Status, Error: c.Error, Cause: c.Cause, Filter: c.Filter}
}
