package parse

import "testing"

// A long value the terminal wrapped where a space fell at the break
// continues on a line indented by that one space: it is the rest of the
// value, not a line outside any record (issue 23).
func TestOneSpaceContinuationJoinsTheValue(t *testing.T) {
	text := "vcsa-01\n   World ID: 2101759\n   Display Name: vcsa-01\n" +
		"   Config File: /vmfs/volumes/66148e8f-bec2a28c-bec2-b8cef6a1c201/VMware vCenter\n" +
		" Server Appliance/VMware vCenter Server Appliance.vmx\n\n" +
		"hpc-node01\n   World ID: 2100788\n   Display Name: hpc-node01\n" +
		"   Config File: /vmfs/volumes/66148e8f-bec2a28c-bec2-b8cef6a1c201/hpc-node01/hpc-node01.vmx\n"
	vms, err := VMProcessList(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(vms) != 2 || vms[0].ConfigFile != "/vmfs/volumes/66148e8f-bec2a28c-bec2-b8cef6a1c201/VMware vCenter Server Appliance/VMware vCenter Server Appliance.vmx" ||
		vms[1].ConfigFile != "/vmfs/volumes/66148e8f-bec2a28c-bec2-b8cef6a1c201/hpc-node01/hpc-node01.vmx" {
		t.Errorf("%+v", vms)
	}
}
