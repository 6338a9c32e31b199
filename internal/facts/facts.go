// Package facts assembles the typed facts of each host from its captures:
// it routes every capture to its parser (package parse), records parse
// errors, and remembers which inputs are missing and why, so that checks can
// say "not evaluated" instead of passing silently.
package facts

import (
	"fmt"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Fleet is the facts of every host of one scan or bundle.
type Fleet struct {
	Hosts []Host `json:"hosts"`
	// Guests are the Linux guests scanned (scan --guests), each tied to
	// its host-side PVRDMA adapters by MAC (guest.go).
	Guests []Guest `json:"guests,omitempty"`
	// path is the data-path model Build derives (see DataPath).
	path *DataPath
}

// Host is everything known about one ESXi host.
type Host struct {
	Host string `json:"host"`
	Collection
	catalog.HostFacts

	// Sources lists, per command kind, every capture that fed this host.
	Sources map[hostio.Kind][]Source `json:"sources"`
	// Errors are outputs that could not be parsed.
	Errors []ParseError `json:"parse_errors,omitempty"`
}

// Collection is how one host or guest was collected, as its
// hostio.HostResult says: the address dialled, the transport, the outcome
// with its reason, and the transport's remarks. Host, Guest and the
// report's host entries embed it (the JSON keeps its fields flat).
type Collection struct {
	Address   string        `json:"address,omitempty"`
	Transport string        `json:"transport,omitempty"`
	Status    hostio.Status `json:"status"`
	Reason    string        `json:"reason,omitempty"`
	Notes     []string      `json:"notes,omitempty"`
}

// CollectionOf is the collection of a host result (its notes copied).
func CollectionOf(hr hostio.HostResult) Collection {
	return Collection{
		Address:   hr.Address,
		Transport: hr.Transport,
		Status:    hr.Status,
		Reason:    hr.Reason,
		Notes:     append([]string(nil), hr.Notes...),
	}
}

// Source is one capture as seen by the facts builder.
type Source struct {
	Command string        `json:"command"`
	Status  hostio.Status `json:"status"`
	Error   string        `json:"error,omitempty"`
	// Cause is the capture's (hostio.Cause): why it holds no output when
	// that is not the command's own failure.
	Cause hostio.Cause `json:"cause,omitempty"`
	// Parsed is true when the output was collected and parsed (wholly, or
	// partly when Skipped lists what could not be read).
	Parsed bool `json:"parsed"`
	// Skipped lists the blocks, rows and lines of the output that could not
	// be read (or that its author elided): the facts read are kept, but
	// checks that need this command are not evaluated on an incomplete
	// picture.
	Skipped []parse.Skip `json:"skipped,omitempty"`
	// Filter is what a filtered form of the command covers (see
	// hostio.Capture.Filter); empty when the output is complete.
	Filter string `json:"filter,omitempty"`
}

// filterAware are the kinds whose rules ask Covers before concluding from
// an item's absence; a filtered output of any other kind does not make its
// kind available.
var filterAware = map[hostio.Kind]bool{catalog.KindIPv4Get: true, catalog.KindFirewallRulesets: true}

// Covers reports whether the outputs of kind cover item: an unfiltered
// output covers everything, a filtered one (`ipv4 get -i vmk1`, `ruleset
// list -r pvrdma`) only the items it names. why says what was shown
// instead, for a "not evaluated" finding.
func (h *Host) Covers(kind hostio.Kind, item string) (ok bool, why string) {
	var shown []string
	for _, s := range h.Sources[kind] {
		if !s.Parsed {
			continue
		}
		if s.Filter == "" {
			return true, ""
		}
		for _, f := range strings.Fields(s.Filter) {
			if f == item {
				return true, ""
			}
		}
		shown = append(shown, "`"+s.Command+"`")
	}
	if len(shown) == 0 {
		return true, ""
	}
	return false, fmt.Sprintf("only %s was read, which does not show %s", strings.Join(shown, ", "), item)
}

// State is the source's status in words ("failed", "timed out").
func (s Source) State() string { return strings.ReplaceAll(string(s.Status), "_", " ") }

// Failure says in one line why a source gave no facts: "`CMD` failed
// (ERROR)", "`CMD` timed out (ERROR)", or for output that was collected
// "`CMD` output could not be parsed (ERROR)". Every "not evaluated"
// reason about one capture is built here.
func (s Source) Failure() string {
	if s.Status == hostio.StatusCollected {
		return fmt.Sprintf("`%s` output could not be parsed (%s)", s.Command, s.Error)
	}
	msg := fmt.Sprintf("`%s` %s", s.Command, s.State())
	if s.Error != "" {
		msg += " (" + s.Error + ")"
	}
	return msg
}

// Partial reports whether some of the output was skipped.
func (s Source) Partial() bool { return len(s.Skipped) > 0 }

// SkippedSummary says in one line which lines of the output were skipped.
func (s Source) SkippedSummary() string {
	var lines []string
	for i, sk := range s.Skipped {
		if i == 3 {
			lines = append(lines, fmt.Sprintf("and %d more", len(s.Skipped)-3))
			break
		}
		lines = append(lines, sk.String())
	}
	return strings.Join(lines, "; ")
}

// ParseError is an output that could not be understood.
type ParseError struct {
	Command string `json:"command"`
	Line    int    `json:"line"`
	Message string `json:"message"`
}

func (e ParseError) String() string {
	if e.Line > 0 {
		return fmt.Sprintf("%s: line %d: %s", e.Command, e.Line, e.Message)
	}
	return fmt.Sprintf("%s: %s", e.Command, e.Message)
}

// Available reports whether every given kind was collected and parsed on
// this host. When it was not, why says which input is missing and why, in a
// form fit for a "not evaluated" finding.
func (h *Host) Available(kinds ...hostio.Kind) (ok bool, why string) {
	if h.Status == hostio.StatusNotCollected {
		return false, "host not collected: " + h.Reason
	}
	var missing []string
	for _, k := range kinds {
		srcs := h.Sources[k]
		if len(srcs) == 0 {
			missing = append(missing, "`"+catalog.Describe(k)+"` was not run")
			continue
		}
		for _, s := range srcs {
			if s.Parsed && s.Filter != "" && !filterAware[k] {
				missing = append(missing, fmt.Sprintf("only the filtered `%s` was read (it shows %s, not everything)", s.Command, s.Filter))
				continue
			}
			if s.Parsed && s.Partial() {
				missing = append(missing, fmt.Sprintf("`%s` output only partly readable (%s)", s.Command, s.SkippedSummary()))
				continue
			}
			if s.Parsed {
				continue
			}
			missing = append(missing, s.Failure())
		}
	}
	if len(missing) > 0 {
		return false, strings.Join(missing, "; ")
	}
	return true, ""
}

// NMLX5 reports whether uplink nic is driven by NVIDIA's (Mellanox's)
// nmlx5 driver (ConnectX-4 and later), whose module parameters set PFC:
// as its family (nicfamily.go) or its paired RDMA device (nmlx5_rdma)
// says.
func (h *Host) NMLX5(nic string) bool { return h.PFCModule(nic) == "nmlx5_core" }

// PFCModule is the LAN driver module whose pfctx/pfcrx parameters set PFC
// on uplink nic (nmlx5_core for ConnectX-4 and later, nmlx4_en for
// ConnectX-3), "" when its driver has no such parameters.
func (h *Host) PFCModule(nic string) string {
	if f := h.FamilyOf(nic); f.PFCParams {
		return f.LANDriver
	}
	for _, d := range h.RDMADevices {
		if d.PairedUplink == nic && strings.HasPrefix(d.Driver, "nmlx5") {
			return "nmlx5_core"
		}
	}
	return ""
}
