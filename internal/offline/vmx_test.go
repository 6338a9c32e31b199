package offline

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// A .vmx pasted in a session (`cat PATH`, the path bare or quoted, with
// spaces) feeds the VM configuration facts like the scan's own read; a
// cat of anything else is passed over.
func TestTranscriptVMX(t *testing.T) {
	body := sampleBody(t, "vmx__intel_mfd_esxi_base_vmx_hw13.txt")
	for _, typed := range []string{
		"cat /vmfs/volumes/5bc7459f-967eeb48/Base_R91/Base_R91.vmx",
		`cat "/vmfs/volumes/5bc7459f-967eeb48/Base R91/Base R91.vmx"`,
		`cat '/vmfs/volumes/5bc7459f-967eeb48/Base R91/Base R91.vmx'`,
	} {
		text := "[root@esx-sample:~] esxcli system version get\n   Product: VMware ESXi\n   Version: 6.7.0\n" +
			"[root@esx-sample:~] " + typed + "\n" + body +
			"[root@esx-sample:~] cat /etc/passwd\nroot:x:0:0:root:/:/bin/sh\n"
		in, err := FromTranscript(text)
		if err != nil {
			t.Fatalf("%s: %v", typed, err)
		}
		fl := facts.Build(in.Results)
		h := fl.Hosts[0]
		if len(h.Errors) > 0 || len(h.VMConfigs) != 1 {
			t.Fatalf("%s: errors %v, %d VM configurations", typed, h.Errors, len(h.VMConfigs))
		}
		c := h.VMConfigs[0]
		if c.Name != "Base_R91" || c.HWVersion != 13 || !c.MemLockedToMax || c.Source != "vmx" || c.RefOf("HWVersion").Line == 0 {
			t.Errorf("%s: %+v", typed, c)
		}
		for _, hc := range in.Results[0].Captures {
			if hc.Kind == catalog.KindVMX && hc.Command[:5] != "cat '" {
				t.Errorf("%s: recorded as %q", typed, hc.Command)
			}
		}
	}
}
