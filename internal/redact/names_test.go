package redact

import (
	"fmt"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func TestReplaceNamesWholeWordsLongestFirst(t *testing.T) {
	r := NewRedactor()
	for name, tok := range map[string]string{
		"esx01":             "host-001",
		"vm 1":              "vm-0001",
		"vm 10":             "vm-0002",
		"web":               "vm-0003",
		"web (old)":         "vm-0004",
		`"quoted" vm`:       "vm-0005",
		"evil\"; $(halt) #": "vm-0006",
		"ünï-vm":            "vm-0007",
	} {
		r.addNameToken("vm", name, tok)
	}
	for in, want := range map[string]string{
		"Display Name: vm 10":                "Display Name: vm-0002",
		"Display Name: vm 1":                 "Display Name: vm-0001",
		"vm 1x stays":                        "vm 1x stays",
		"esx01.lab.local esx01_old esx01":    "host-001.lab.local esx01_old host-001",
		"web (old) and web":                  "vm-0004 and vm-0003",
		"webserver":                          "webserver",
		`name "quoted" vm here`:              "name vm-0005 here",
		"x evil\"; $(halt) # y":              "x vm-0006 y",
		"/vmfs/volumes/ds/ünï-vm/ünï-vm.vmx": "/vmfs/volumes/ds/vm-0007/vm-0007.vmx",
		"aünï-vm":                            "aünï-vm",
	} {
		if got := r.replaceNames(in); got != want {
			t.Errorf("replaceNames(%q) = %q, want %q", in, got, want)
		}
	}
}

// BenchmarkRedactFleet redacts the captures of a fleet with thousands of
// learned names: the cost must follow the text, not the number of names.
func BenchmarkRedactFleet(b *testing.B) {
	r := NewRedactor()
	var text strings.Builder
	for i := range 3000 {
		r.addNameToken("vm", fmt.Sprintf("hpc-node%04d", i), fmt.Sprintf("vm-%04d", i))
		fmt.Fprintf(&text, "hpc-node%04d\n   World ID: %d\n   Display Name: hpc-node%04d\n   Config File: /vmfs/volumes/ds/hpc-node%04d/hpc-node%04d.vmx\n\n", i, 2100000+i, i, i, i)
	}
	s := text.String()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		r.replaceNames(s)
	}
}

// A host name in capitals or lower case (DNS names are case-insensitive:
// a prompt or a log may write ESX-PROD-17) gets the host's token.
func TestHostNameCaseSpellings(t *testing.T) {
	r := NewRedactor()
	r.Learn([]hostio.HostResult{{Host: "Esx-Prod-17.Corp.Example"}})
	for _, s := range []string{"Esx-Prod-17.Corp.Example", "esx-prod-17.corp.example", "ESX-PROD-17.CORP.EXAMPLE", "Esx-Prod-17", "esx-prod-17", "ESX-PROD-17"} {
		if out := r.Text("[root@" + s + ":~]"); out != "[root@host-001:~]" {
			t.Errorf("%s -> %q", s, out)
		}
	}
}
