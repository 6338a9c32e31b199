package cli

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// Over real SSH, the .vmx of every PVRDMA VM is read with one quoted cat:
// the VM named with quotes and $(...) is read as itself (the lab answers
// only the exact path, so a mangled line would fail), the VM named with a
// single quote is never asked for, and the host's note says why.
func TestVMXOverSSHHostileNames(t *testing.T) {
	sc := loadScenario(t, "vmconfig")
	l, a := scanLab(t, sc, lab.Options{}, collect.Options{})
	const read, refused = `gpu "lab" $(reboot) node`, "o'brien-node"
	var sent []string
	for _, c := range l.Stats("esx01").Commands {
		if strings.HasPrefix(c, "cat ") {
			sent = append(sent, c)
			if err := collect.CheckAllowed(c); err != nil {
				t.Errorf("sent a line outside the allowlist: %v", err)
			}
		}
	}
	if len(sent) != 9 {
		t.Errorf("esx01 got %d .vmx reads, want 9 (10 PVRDMA VMs, one refused): %q", len(sent), sent)
	}
	for _, c := range sent {
		if strings.Contains(c, refused) {
			t.Errorf("the refused path was sent: %q", c)
		}
	}
	h := a.Fleet.Hosts[0]
	if h.Host != "esx01" {
		t.Fatalf("first host %s", h.Host)
	}
	found := false
	for _, c := range h.VMConfigs {
		if c.Name == read {
			found = true
			if !strings.HasSuffix(c.ConfigFile, "/"+read+"/"+read+".vmx") || c.HWVersion != 19 || len(c.PVRDMA()) != 1 {
				t.Errorf("hostile VM's configuration %+v", c)
			}
		}
	}
	if !found {
		t.Errorf("the .vmx of %q was not read", read)
	}
	note := strings.Join(h.Notes, "\n")
	if !strings.Contains(note, `VM "o'brien-node"`) || !strings.Contains(note, "refusing .vmx path") {
		t.Errorf("notes %q", h.Notes)
	}
	for _, s := range h.Sources[catalog.KindVMX] {
		if !s.Parsed {
			t.Errorf("%s not parsed: %s", s.Command, s.Error)
		}
	}
	nev := 0
	for _, f := range a.Checks.Findings {
		if f.Subject == refused {
			if !strings.Contains(f.Message, "refusing .vmx path") {
				t.Errorf("%s on the refused VM: %s", f.RuleID, f.Message)
			}
			nev++
		}
	}
	if nev == 0 {
		t.Error("the VM whose .vmx was refused is reported nowhere")
	}
}
