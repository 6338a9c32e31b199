package vcenter

import (
	"strings"
	"testing"

	"github.com/vmware/govmomi/cli/esx"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// The keyvalue rendering of esxcli API responses (as a real host returns
// them: structure field names, lists, single structures) is read by the
// same parsers as esxcli's own output.
func TestRenderKeyValueParses(t *testing.T) {
	table := &esx.CommandInfoMethod{Hints: esx.CommandInfoHints{{Key: "formatter", Value: "table"}}}
	one := func(vals esx.Values) *esx.Response { return &esx.Response{Values: []esx.Values{vals}} }

	ver, err := parse.SystemVersionGet(RenderKeyValue(one(esx.Values{"Product": {"VMware ESXi"}, "Version": {"8.0.3"},
		"Build": {"Releasebuild-24022510"}, "Update": {"3"}, "Patch": {"0"}})))
	if err != nil || ver.Version != "8.0.3" || ver.Build != "Releasebuild-24022510" {
		t.Errorf("system version get: %v %+v", err, ver)
	}

	devs, err := parse.RDMADeviceList(RenderKeyValue(&esx.Response{Info: table, Values: []esx.Values{
		{"Name": {"vmrdma0"}, "Driver": {"nmlx5_rdma"}, "State": {"Active"}, "MTU": {"4096"}, "Speed": {"100 Gbps"}, "PairedUplink": {"vmnic4"}, "Description": {"MT28800 Family [ConnectX-5 Ex]"}},
		{"Name": {"vmrdma1"}, "Driver": {"nmlx5_rdma"}, "State": {"Down"}, "MTU": {"1024"}, "Speed": {"0"}, "PairedUplink": {"vmnic5"}, "Description": {"line\nbreak"}},
	}}))
	if err != nil || len(devs) != 2 || devs[0].PairedUplink != "vmnic4" || devs[0].MTU != 4096 || devs[1].State != "Down" || devs[1].Description != "line break" {
		t.Errorf("rdma device list: %v %+v", err, devs)
	}

	// A single table row is still a list.
	text := RenderKeyValue(&esx.Response{Info: table, Values: []esx.Values{{"Name": {"rdma-dvs"}, "VDSID": {"50 1a"}, "MTU": {"9000"}, "Uplinks": {"vmnic4", "vmnic5"}}}})
	if !strings.HasPrefix(text, "structure[0].") {
		t.Errorf("table of one row:\n%s", text)
	}
	dvs, err := parse.DVSList(text)
	if err != nil || len(dvs) != 1 || dvs[0].MTU != 9000 || strings.Join(dvs[0].Uplinks, ",") != "vmnic4,vmnic5" {
		t.Errorf("dvs list: %v %+v\n%s", err, dvs, text)
	}

	rules, err := parse.FirewallRuleList(RenderKeyValue(&esx.Response{Info: table, Values: []esx.Values{
		{"Ruleset": {"pvrdma"}, "Direction": {"Inbound"}, "Protocol": {"TCP"}, "PortType": {"Dst"}, "PortBegin": {"28250"}, "PortEnd": {"28761"}},
		{"Ruleset": {"pvrdma"}, "Direction": {"Outbound"}, "Protocol": {"TCP"}, "PortType": {"Dst"}, "PortBegin": {"28250"}, "PortEnd": {"28761"}},
	}}))
	if err != nil || len(rules) != 2 || rules[1].Direction != "Outbound" || rules[0].PortEnd != 28761 {
		t.Errorf("ruleset rule list: %v %+v", err, rules)
	}

	opt, err := parse.AdvancedSettingList(RenderKeyValue(one(esx.Values{"Path": {"/Net/PVRDMAVmknic"}, "Type": {"string"},
		"StringValue": {"vmk1"}, "IntValue": {"0"}, "DefaultStringValue": {""}, "Description": {"Vmknic for PVRDMA"}})))
	if err != nil || opt.StringValue != "vmk1" || opt.Path != "/Net/PVRDMAVmknic" {
		t.Errorf("advanced list: %v %+v", err, opt)
	}
	if got := RenderKeyValue(&esx.Response{String: "true"}); got != "true\n" {
		t.Errorf("simple value %q", got)
	}
}
