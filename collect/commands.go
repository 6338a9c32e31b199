package collect

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Command is one validated, allowlisted command line.
type Command = hostio.Command

// PVRDMADevicesDir is where vsish lists the PVRDMA backends of running VMs.
const PVRDMADevicesDir = catalog.PVRDMADevicesDir

// stage1 are the fixed commands of the catalogue, in run order.
var stage1 = stage1Of(catalog.Specs())

// stage1Of returns the fixed commands of a catalogue, in run order.
func stage1Of(specs []*catalog.Spec) []Command {
	var out []Command
	for _, s := range specs {
		if s.Stage == 1 {
			c, err := s.Command()
			if err != nil {
				panic(err)
			}
			out = append(out, c)
		}
	}
	return out
}

// Stage1 returns the fixed commands every host runs first.
func Stage1() []Command { return append([]Command(nil), stage1...) }

// build makes one instance of a catalogue command; every value is
// validated against its argument's pattern.
func build(k hostio.Kind, args ...string) (Command, error) {
	s, ok := catalog.Lookup(k)
	if !ok {
		return Command{}, fmt.Errorf("no catalogue command of kind %s", k)
	}
	return s.Command(args...)
}

// PVRDMAProperties reads the backend properties of a VM's PVRDMA adapter.
func PVRDMAProperties(worldID, index string) (Command, error) {
	return build(catalog.KindPVRDMAProperties, worldID, index)
}

// RDMAStats reads the counters of one RDMA device.
func RDMAStats(device string) (Command, error) { return build(catalog.KindRDMAStats, device) }

// NICGet reads the details (driver, pause parameters) of one uplink.
func NICGet(vmnic string) (Command, error) { return build(catalog.KindNICGet, vmnic) }

// DCBStatus reads the DCB/PFC state of one uplink.
func DCBStatus(vmnic string) (Command, error) { return build(catalog.KindDCBStatus, vmnic) }

// Vmkping probes the path from a vmknic to a peer address with the
// don't-fragment bit set and the given ICMP payload size.
func Vmkping(vmknic string, netstack string, peer string, payload int) (Command, error) {
	return build(catalog.KindVmkping, vmknic, netstack, strconv.Itoa(payload), peer)
}

// ErrNotAllowed is returned for any command line outside the allowlist.
type ErrNotAllowed struct{ Line string }

func (e *ErrNotAllowed) Error() string {
	return fmt.Sprintf("command %q is not on the read-only allowlist; refusing to send it", e.Line)
}

// CheckAllowed returns an error unless line is exactly an instance of a
// catalogue command (the allowlist: each spec's pattern, anchored). It is
// checked again at send time by every transport.
func CheckAllowed(line string) error {
	// A command whose argument is single-quoted (the .vmx path) is checked
	// against its own anchored pattern only: between the quotes it admits
	// no quote, backslash or control character, so the shell reads the
	// argument literally; outside them it is the fixed text of the spec.
	for _, s := range catalog.Specs() {
		if s.Quoted && len(line) <= catalog.MaxVMXPath+len(s.Line) && s.Allowed(line) {
			return nil
		}
	}
	if strings.ContainsAny(line, "\n\r\x00;|&$`<>\\'\"(){}*?!#~") {
		return &ErrNotAllowed{line}
	}
	for _, s := range catalog.Specs() {
		if s.Allowed(line) {
			return nil
		}
	}
	return &ErrNotAllowed{line}
}
