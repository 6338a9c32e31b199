package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// A host that prints more distinct identifiers than the token map holds
// cannot grow it without bound: the outputs that do not fit are withheld
// (never kept half redacted), the others are redacted as usual.
func TestTokenMapIsBounded(t *testing.T) {
	var macs strings.Builder
	for i := range 5000 {
		fmt.Fprintf(&macs, "nic%d 00:50:56:%02x:%02x:%02x\n", i, i>>16&0xff, i>>8&0xff, i&0xff)
	}
	var vms strings.Builder
	for i := range 200 {
		fmt.Fprintf(&vms, "secret-vm-%03d\n   World ID: %d\n   Display Name: secret-vm-%03d\n\n", i, 1000+i, i)
	}
	cap := func(cmd, kind, out string) hostio.Capture {
		return hostio.Capture{Command: cmd, Kind: hostio.Kind(kind), Stdout: out, Status: hostio.StatusCollected}
	}
	in := []hostio.HostResult{
		{Host: "esx-small", Status: hostio.StatusCollected, Captures: []hostio.Capture{cap("esxcli network nic list", string(catalog.KindNICList), "vmnic0 00:50:56:aa:bb:cc 10.1.2.3\n")}},
		{Host: "esx-flood", Status: hostio.StatusCollected, Captures: []hostio.Capture{
			cap("esxcli network nic list", string(catalog.KindNICList), macs.String()),
			cap("esxcli system version get", string(catalog.KindSystemVersion), "Version: 8.0.2 on 10.1.2.3\n")}},
	}
	vmHost := hostio.HostResult{Host: "esx-vms", Status: hostio.StatusCollected, Captures: []hostio.Capture{
		cap("esxcli vm process list", string(catalog.KindVMProcessList), vms.String()),
		cap("esxcli system version get", string(catalog.KindSystemVersion), "Version: 8.0.2\n")}}
	r := NewRedactor()
	r.MaxTokens = 100
	r.Learn(in)
	out := r.Results(in)
	if len(r.order) > r.MaxTokens {
		t.Errorf("%d tokens, bound %d", len(r.order), r.MaxTokens)
	}
	small, flood := out[0], out[1]
	if c := small.Captures[0]; c.Status != hostio.StatusCollected || strings.Contains(c.Stdout, "00:50:56") || !strings.Contains(c.Stdout, "02:00:00") {
		t.Errorf("small host: %s %q", c.Status, c.Stdout)
	}
	if c := flood.Captures[0]; c.Status != hostio.StatusFailed || c.Stdout != "" || !strings.Contains(c.Error, "withheld from the redacted bundle") {
		t.Errorf("flooding capture kept: %s %q (%d bytes)", c.Status, c.Error, len(c.Stdout))
	}
	if c := flood.Captures[1]; c.Status != hostio.StatusCollected || !strings.Contains(c.Stdout, "Version: 8.0.2 on 198.18.") {
		t.Errorf("the flooding host's other output: %s %q", c.Status, c.Stdout)
	}
	if flood.Status != hostio.StatusPartial || !strings.Contains(strings.Join(flood.Notes, " "), "1 outputs withheld") {
		t.Errorf("flooding host: %s, notes %q", flood.Status, flood.Notes)
	}
	// Not all of its VM names fit: none of its outputs is kept.
	r = NewRedactor()
	r.MaxTokens = 100
	in = append(in, vmHost)
	r.Learn(in)
	out = r.Results(in)
	for _, c := range out[2].Captures {
		if c.Stdout != "" || c.Status != hostio.StatusFailed {
			t.Errorf("%s of a host with unlearned names kept: %q", c.Command, c.Stdout)
		}
	}
	for _, hr := range out {
		for _, c := range hr.Captures {
			if strings.Contains(c.Stdout, "secret-vm") || strings.Contains(c.Stdout, "00:50:56") {
				t.Fatalf("%s %s leaks: %.200q", hr.Host, c.Command, c.Stdout)
			}
		}
	}
}
