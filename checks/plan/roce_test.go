package plan

import (
	"strings"
	"testing"
)

// The upgrade's check reads the update too: 7.0 GA (7.0.0) is below 7.0
// Update 1, so a runbook does not skip the upgrade it needs.
func TestUpgradeESXiCheckReadsTheUpdate(t *testing.T) {
	out := func(v string) string {
		return "   Product: VMware ESXi\n   Version: " + v + "\n   Build: Releasebuild-1\n"
	}
	for _, c := range []struct {
		want, have string
		holds      bool
	}{
		{"7.0 Update 1", "7.0.0", false}, {"7.0 Update 1", "7.0.1", true}, {"7.0 Update 1", "7.0.3", true}, {"7.0 Update 1", "8.0.0", true},
		{"7.0 Update 1", "6.7.0", false}, {"6.5", "6.5.0", true}, {"6.5", "6.0.0", false}, {"6.5", "8.0.3", true},
	} {
		r := UpgradeESXi{Version: c.want}.Reads("esx01")
		if got := r.Check.Holds(out(c.have)); got != c.holds {
			t.Errorf("%s on %s: holds %v, want %v", c.want, c.have, got, c.holds)
		}
	}
}

// A RoCE switch set back on is verified by the NIC's RDMA device.
func TestSetModuleParamsRoCEVerifiesTheDevice(t *testing.T) {
	a := SetModuleParams{Module: "bnxtnet", Set: []Setting{{Name: "disable_roce", Value: "0"}}, RoCE: "vmnic4"}
	r := a.Reads("esx01")
	list := "Name     Driver    State   MTU   Speed     Paired Uplink  Description\n" +
		"-------  --------  ------  ----  --------  -------------  -----------\n"
	var dev *Read
	for i := range r.Verify {
		if r.Verify[i].Command == "esxcli rdma device list" {
			dev = &r.Verify[i]
		}
	}
	if dev == nil {
		t.Fatalf("no device verify: %+v", r.Verify)
	}
	if dev.Holds(list) || dev.Holds(list+"vmrdma0  bnxtroce  Active  4096  100 Gbps  vmnic40        Broadcom\n") {
		t.Error("holds without vmnic4's device")
	}
	if !dev.Holds(list + "vmrdma0  bnxtroce  Active  4096  100 Gbps  vmnic4         Broadcom NetXtreme-E RoCE\n") {
		t.Error("does not hold with vmnic4's device")
	}
	if w := a.Words("esx01"); !strings.Contains(w.Text, "RoCE back on for vmnic4") {
		t.Errorf("words %q", w.Text)
	}
}
