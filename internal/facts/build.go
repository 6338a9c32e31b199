package facts

import (
	"errors"
	"reflect"
	"sync"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Build assembles the facts of every host, in the order given.
func Build(results []hostio.HostResult) Fleet {
	f := Fleet{Hosts: make([]Host, 0, len(results))}
	for _, hr := range results {
		if hr.Role == hostio.RoleGuest {
			f.Guests = append(f.Guests, BuildGuest(hr))
			continue
		}
		f.Hosts = append(f.Hosts, BuildHost(hr))
	}
	f.path = newDataPath(&f)
	f.LinkGuests()
	return f
}

// apply parses one capture's output with its catalogue spec's parser and
// sets the spec's fact on h (a list is appended to, a single fact
// replaced), every fact stamped with the capture's command line. It
// returns a *parse.PartialError after adding the facts that could be read.
func apply(spec *catalog.Spec, h *Host, text, cmd string) error {
	return applyTo(spec, reflect.ValueOf(h).Elem(), text, cmd)
}

// applyTo is apply on any facts struct (Host, Guest) holding spec's Fact.
func applyTo(spec *catalog.Spec, dst reflect.Value, text, cmd string) error {
	v, err := spec.Parser.Parse(text)
	if v == nil {
		return err
	}
	v = spec.Parser.Stamp(v, cmd)
	field := dst.FieldByIndex(factFieldOf(dst.Type(), spec))
	val := reflect.ValueOf(v)
	switch {
	case field.Kind() == reflect.Pointer:
		p := reflect.New(field.Type().Elem())
		p.Elem().Set(val)
		field.Set(p)
	case val.Kind() == reflect.Slice:
		if val.Len() > 0 {
			field.Set(reflect.AppendSlice(field, val))
		}
	default:
		field.Set(reflect.Append(field, val))
	}
	return err
}

// factFields caches the index of each kind's fact in Host.
var factFields sync.Map // hostio.Kind -> []int

// factField returns the index of the Host field a spec's Fact names. The
// catalogue's test checks that every spec names a field of the right type.
func factField(spec *catalog.Spec) []int { return factFieldOf(reflect.TypeFor[Host](), spec) }

// factFieldOf is factField in a facts struct of type t (kinds are unique
// across the host and guest catalogues, so the cache is by kind).
func factFieldOf(t reflect.Type, spec *catalog.Spec) []int {
	if ix, ok := factFields.Load(spec.Kind); ok {
		return ix.([]int)
	}
	f, ok := t.FieldByName(spec.Fact)
	if !ok {
		panic("facts: catalogue kind " + string(spec.Kind) + " names no " + t.Name() + " field " + spec.Fact)
	}
	factFields.Store(spec.Kind, f.Index)
	return f.Index
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
			case !ok || spec.Parser.Parse == nil:
				src.Error = "no parser"
			case catalog.GuestKind(kind) || kind == hostio.KindGuestBWClient || kind == hostio.KindGuestBWServer:
				// A pasted session or folder that mixes a guest's commands
				// into an ESXi host's: its facts are a guest's.
				src.Error = "a Linux guest's command, not an ESXi host's"
			default:
				// Parse into a scratch host so a failed parse adds nothing.
				scratch := h
				err := apply(spec, &scratch, c.Stdout, c.Command)
				if sk, partial := parse.Skipped(err); partial {
					h = scratch
					src.Parsed = true
					src.Skipped = sk
					err = nil
				}
				if err != nil {
					pe := parseErrorOf(c.Command, err)
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
	return reflect.ValueOf(h).Elem().FieldByIndex(factField(spec))
}

// Read tells whether some output filling the same field as spec was parsed
// on this host: an empty list then means "none", not "not collected".
func (h *Host) Read(spec *catalog.Spec) bool {
	ix := factField(spec)
	for kind, srcs := range h.Sources {
		other, ok := catalog.Lookup(kind)
		if !ok || other.Fact == "" || !equalIndex(factField(other), ix) {
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

func equalIndex(a, b []int) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
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
	return kind, Source{Command: c.Command, Status: c.Status, Error: c.Error, Filter: c.Filter}
}
