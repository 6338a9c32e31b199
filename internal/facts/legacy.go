package facts

import (
	"fmt"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// resolveDVPorts completes vmknics read from `esxcfg-vmknic -l`, which
// gives a vmknic on a distributed switch as a DVPort ID without the
// switch's name: with exactly one distributed switch on the host, that is
// the switch; otherwise the vmknic list is marked partly read for that
// vmknic, so that rules about its switch say "not evaluated" instead of
// taking it for a standard-switch vmknic.
func resolveDVPorts(h *Host) {
	for i := range h.Vmknics {
		v := &h.Vmknics[i]
		if v.VDSName != "" || v.VDSPort == "" || v.Portset != "" {
			continue
		}
		if len(h.DVSwitches) == 1 {
			v.VDSName = h.DVSwitches[0].Name
			continue
		}
		srcs := h.Sources[catalog.KindIPInterfaceList]
		for j := range srcs {
			if srcs[j].Command == v.Command && srcs[j].Parsed {
				srcs[j].Skipped = append(srcs[j].Skipped, parse.Skip{Line: v.Line, Text: v.Text,
					Reason: fmt.Sprintf("%s is on DVPort %s of a distributed switch this output does not name (%d distributed switches known)", v.Name, v.VDSPort, len(h.DVSwitches))})
			}
		}
	}
}
