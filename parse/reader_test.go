package parse

import (
	"reflect"
	"strings"
	"testing"
)

func TestCleanPromptsAndCRLF(t *testing.T) {
	in := "\r\n[root@esx01:~] esxcli rdma device list\r\nName  X\r\n----  -\r\nvmrdma0  1\r\n[root@esx01:~] \r\n"
	ls := clean(in, false)
	if len(ls) != 3 || ls[0].no != 3 || ls[0].text != "Name  X" || ls[2].text != "vmrdma0  1" {
		t.Fatalf("clean = %+v", ls)
	}
	for _, p := range []string{"~ # esxcli vm process list", "# esxcli network nic list", "[root@vc1] esxcli vm process list", "root@esx:~# vsish -e ls /", "/tmp # ls"} {
		if !isPrompt(p) {
			t.Errorf("not a prompt: %q", p)
		}
	}
	for _, p := range []string{"# comment here", "vmnic0  Up", "   Name: vmk0", "sched.mem.pin = \"TRUE\""} {
		if isPrompt(p) {
			t.Errorf("prompt: %q", p)
		}
	}
	// An echoed command without a prompt is dropped.
	ls = clean("esxcli system version get\n   Product: VMware ESXi\n", false)
	if len(ls) != 1 || ls[0].no != 2 {
		t.Fatalf("echo not dropped: %+v", ls)
	}
	// ...but a VM titled like a command stays a title in a record list.
	ls = clean("esxcli vm process list\n   World ID: 1\n", true)
	if len(ls) != 2 {
		t.Fatalf("title dropped: %+v", ls)
	}
}

func TestReadTableDashColumns(t *testing.T) {
	// Right-aligned numbers and header, empty cells, header with spaces,
	// last column as rest of line, trailing spaces, dash run of the last
	// column shorter than its values.
	in := "Name     Paired Uplink    MTU  Description\n" +
		"-------  -------------  -----  -----------\n" +
		"vmrdma0  vmnic4          4096  MT28800 Family [ConnectX-5 Ex]   \n" +
		"vmrdma1                  1024  \n" +
		"\n"
	tb := parsed(t, ReadTable, in)
	if !reflect.DeepEqual(tb.Header, []string{"Name", "Paired Uplink", "MTU", "Description"}) {
		t.Fatalf("header %q", tb.Header)
	}
	if len(tb.Rows) != 2 {
		t.Fatalf("rows %d", len(tb.Rows))
	}
	r0, r1 := tb.Rows[0], tb.Rows[1]
	eq(t, "desc", r0.Cells["Description"], "MT28800 Family [ConnectX-5 Ex]")
	eq(t, "mtu", r0.Cells["MTU"], "4096")
	eq(t, "line", r0.Line, 3)
	eq(t, "uplink empty", r1.Cells["Paired Uplink"], "")
	eq(t, "mtu1", r1.Cells["MTU"], "1024")
	eq(t, "desc1", r1.Cells["Description"], "")
	eq(t, "text", r1.Text, "vmrdma1                  1024  ")
}

func TestReadTableFallbackAndErrors(t *testing.T) {
	// Dash runs shorter than the values (pasted copy): fall back to runs of spaces.
	in := "Name  Driver  State\n----  ----  -----\nvmrdma10  nmlx5_rdma  Active\n"
	tb, err := ReadTable(in)
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "name", tb.Rows[0].Cells["Name"], "vmrdma10")
	eq(t, "driver", tb.Rows[0].Cells["Driver"], "nmlx5_rdma")
	eq(t, "state", tb.Rows[0].Cells["State"], "Active")
	// A row that fits neither way is an error at its line.
	_, err = ReadTable("Name  Driver  State\n----  ------  -----\nvmrdma10 x\n")
	wantParseError(t, err, 3)
	// No dash line.
	_, err = ReadTable("Name  Driver\nvmrdma0  x\n")
	wantParseError(t, err, 2)
	// Empty and header-only tables are no rows.
	for _, in := range []string{"", "\n\n", "Name  Driver\n----  ------\n"} {
		tb, err := ReadTable(in)
		if err != nil || len(tb.Rows) != 0 {
			t.Errorf("%q: %v %v", in, tb.Rows, err)
		}
	}
}

func TestReadRecordsNested(t *testing.T) {
	in := "[root@esx01:~] esxcli network vswitch dvs vmware list\r\n" +
		"DSwitch-RDMA\r\n" +
		"   Name: DSwitch-RDMA\r\n" +
		"   Uplinks: vmnic5, vmnic4 \r\n" +
		"   DVPort:\r\n" +
		"         Client: vmnic4\r\n" +
		"         Port ID: 0\r\n" +
		"         \r\n" +
		"         Client: vmk1\r\n" +
		"         Port ID: 12\r\n" +
		"\r\n" +
		"   VMware Branded: true\r\n" +
		"\r\n" +
		"Name: with colon\r\n" +
		"   Name: other\r\n"
	recs := parsed(t, ReadRecords, in)
	if len(recs) != 2 {
		t.Fatalf("records: %d", len(recs))
	}
	r := recs[0]
	eq(t, "title", r.Title, "DSwitch-RDMA")
	eq(t, "uplinks", r.Get("Uplinks"), "vmnic5, vmnic4")
	eq(t, "branded", r.Get("VMware Branded"), "true")
	eq(t, "uplinks line", r.RefOf("Uplinks").Line, 4)
	ports := r.Nested["DVPort"]
	if len(ports) != 2 || ports[0].Get("Client") != "vmnic4" || ports[1].Get("Port ID") != "12" || ports[1].RefOf("Client").Line != 9 {
		t.Fatalf("DVPort = %+v", ports)
	}
	if !reflect.DeepEqual(r.Keys(), []string{"Name", "Uplinks", "DVPort", "VMware Branded"}) {
		t.Errorf("keys %q", r.Keys())
	}
	eq(t, "title looking like a key", recs[1].Title, "Name: with colon")
	eq(t, "title line", recs[1].Line, 14)
}

func TestReadRecordsErrors(t *testing.T) {
	// An indented non-key line continues the value before it.
	recs, err := ReadRecords("vm1\n   Config File: /vmfs/volumes/ds/a\n   b/c.vmx\n")
	if err != nil || len(recs) != 1 || recs[0].Get("Config File") != "/vmfs/volumes/ds/ab/c.vmx" {
		t.Fatalf("continuation: %+v %v", recs, err)
	}
	_, err = ReadRecords("   World ID: 1\nvm\n")
	wantParseError(t, err, 1)
	// A title without keys is skipped; the next record is kept.
	recs, err = ReadRecords("vm1\n\nvm2\n   World ID: 1\n")
	if sk, ok := Skipped(err); !ok || len(sk) != 1 || sk[0].Line != 1 || len(recs) != 1 || recs[0].Title != "vm2" {
		t.Fatalf("title without keys: %+v %v", recs, err)
	}
	recs, err = ReadRecords("\n\n")
	if err != nil || recs != nil {
		t.Fatalf("empty: %v %v", recs, err)
	}
}

func TestReadStructure(t *testing.T) {
	r, err := ReadStructure("   Path: /Net/PVRDMAVmknic\n   String Value: \n   Default String Value:\n   Description: x: y\n")
	if err != nil {
		t.Fatal(err)
	}
	eq(t, "sv", r.Get("String Value"), "")
	eq(t, "desc", r.Get("Description"), "x: y")
	if !r.Has("Default String Value") {
		t.Error("missing empty key")
	}
	// Column 0 right after a value is its terminal-wrapped rest.
	r, err = ReadStructure("   Path: /Net/PVRDMA\nVmknic\n   Type: string\n")
	if err != nil || r.Get("Path") != "/Net/PVRDMAVmknic" || r.Get("Type") != "string" {
		t.Fatalf("wrapped value: %+v %v", r, err)
	}
	r, err = ReadStructure("   Path: x\n   Type: string\n\nnot a key\n")
	if sk, ok := Skipped(err); !ok || len(sk) != 1 || sk[0].Line != 4 || r.Get("Type") != "string" {
		t.Fatalf("line after the structure: %+v %v", r, err)
	}
	_, err = ReadStructure("")
	wantParseError(t, err, 0)
}

func TestErrorFormat(t *testing.T) {
	eq(t, "msg", (&Error{Line: 7, Msg: "expected x"}).Error(), "line 7: expected x")
	eq(t, "msg0", (&Error{Msg: "empty"}).Error(), "empty")
	if !strings.Contains(errorf(3, "a %d", 1).Error(), "line 3: a 1") {
		t.Error("errorf")
	}
}
