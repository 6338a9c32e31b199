package redact

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

func TestRedactTextFormats(t *testing.T) {
	r := NewRedactor()
	r.Learn([]hostio.HostResult{{Host: "esx01.corp.example.com:2222", Captures: []hostio.Capture{{
		Kind: catalog.KindVMProcessList, Status: hostio.StatusCollected,
		Stdout: "hpc-node01\n   World ID: 1\n   Display Name: hpc-node01\n\nvmk1\n   World ID: 2\n   Display Name: vmk1\n",
	}}}})
	cases := []struct{ in, want string }{
		{"esx01.corp.example.com:2222", "host-001:2222"},
		{"esx01 and esx01x and xesx01", "host-001 and esx01x and xesx01"},
		{"Client: hpc-node01.eth1", "Client: vm-0001.eth1"},
		{"Client: vmk1", "Client: vmk1"}, // a VM named like a vmknic is left alone
		{"vmk1  192.168.50.11  255.255.255.0  192.168.50.255  STATIC  0.0.0.0", "vmk1  198.18.50.11  255.255.255.0  198.18.50.255  STATIC  0.0.0.0"},
		{"PING 192.168.50.12 (192.168.50.12): 8972", "PING 198.18.50.12 (198.18.50.12): 8972"},
		{"gw 10.10.0.1, lo 127.0.0.1", "gw 198.19.0.1, lo 127.0.0.1"},
		{"Version: 4.23.0.66-1vmw.803.0.0.24022510", "Version: 4.23.0.66-1vmw.803.0.0.24022510"},
		{"MAC Address: B8:CE:F6:1C:01:10", "MAC Address: 02:00:00:00:00:01"},
		{"mac b8:ce:f6:1c:01:10 again", "mac 02:00:00:00:00:01 again"},
		{"UUID: 42 3e d7 86 fb 2d 5d 5e-db c6 90 f1 87 e5 ad 96", "UUID: 00 00 00 00 00 00 00 00-00 00 00 00 00 00 00 01"},
		{"uuid.bios = \"423ed786-fb2d-5d5e-dbc6-90f187e5ad96\"", "uuid.bios = \"00000000-0000-0000-0000-000000000001\""},
		{"Config File: /vmfs/volumes/663cda3d-e8fee44e-e8fe-b8cef6a1c201/hpc-node01/hpc-node01.vmx",
			"Config File: /vmfs/volumes/00000000-00000000-0000-000000000002/vm-0001/vm-0001.vmx"},
		{"/vmfs/volumes/Local DS 1/my dir/x.vmx", "/vmfs/volumes/datastore-01/path-0001/path-0002.vmx"},
		{"addr fe80::250:56ff:fe6e:121 and 2a01:4f8::1:2", "addr fe80::db8:1 and 2001:db8:0:2::2"},
		{"time 12:34:56 pci 0000:3b:00.0", "time 12:34:56 pci 0000:3b:00.0"},
	}
	for _, c := range cases {
		if got := r.Text(c.in); got != c.want {
			t.Errorf("Text(%q)\n got  %q\n want %q", c.in, got, c.want)
		}
	}
	tm := r.TokenMap()
	found := false
	for _, s := range tm.NotRedacted {
		if s.Value == "vmk1" {
			found = true
		}
	}
	if !found {
		t.Errorf("vmk1 not listed as not redacted: %+v", tm.NotRedacted)
	}
	// Seeding a new redactor with the map reproduces the same tokens and
	// continues the counters.
	r2 := NewRedactor()
	if err := r2.Seed(&tm); err != nil {
		t.Fatal(err)
	}
	if got := r2.Text("esx01 192.168.50.99 b8:ce:f6:1c:01:10 9a:00:00:00:00:09"); got != "host-001 198.18.50.99 02:00:00:00:00:01 02:00:00:00:00:02" {
		t.Errorf("seeded: %q", got)
	}
	if got := r2.Text("7.7.7.7"); !strings.HasPrefix(got, "240.0.") {
		t.Errorf("third /16 after two seeded ones: %q", got)
	}
}
