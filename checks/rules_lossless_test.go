package checks

import (
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

func TestRulePFCDisabled(t *testing.T) {
	pfcOff := func(h *facts.Host) {
		h.DCB[0].PFCEnabled = false
		h.DCB[0].PFCPriorities = []int{}
		h.DCB[0].Record = rec(cmdDCB4, "Nic Name", "vmnic4", "PFC Enabled", "false", "PFC Configuration", "0 0 0 0 0 0 0 0")
	}
	runCases(t, "PFC_DISABLED", []ruleCase{
		// Sources disagree (warning; critical if drops seen): warning...
		{name: "fires (warning)", hosts: one(pfcOff),
			want: []want{{"esx01", "vmnic4", StatusFail, Warning, "PFC is disabled and global pause is off", "PFC Enabled: false"}}, exact: true},
		// ...critical when the RDMA device counts errors.
		{name: "fires (critical with errors)", hosts: one(func(h *facts.Host) {
			pfcOff(h)
			h.RDMAStats[0].Counters["Error packets received"] = 48213
			h.RDMAStats[0].Record = rec(cmdStats0, "Packets received", "100", "Error packets received", "48213")
		}), want: []want{{"esx01", "vmnic4", StatusFail, Critical, "vmrdma0 already counts errors (Error packets received)", "Error packets received: 48213"}}, exact: true},
		{name: "passes with global pause", hosts: one(func(h *facts.Host) {
			pfcOff(h)
			h.NICDetails[0].PauseRX, h.NICDetails[0].PauseTX = true, true
		}), want: []want{{host: "esx01", subject: "vmnic4", status: StatusPass}}, exact: true},
		{name: "passes with PFC", hosts: one(nil), want: []want{{host: "esx01", subject: "vmnic4", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) {
			missing(h, cmdDCB4)
			h.DCB = nil
		}), want: []want{{host: "esx01", subject: "vmnic4", status: StatusNotEvaluated, msg: cmdDCB4}}, exact: true},
	})
	h := goodHost("esx01", "192.168.50.11")
	pfcOff(&h)
	got := runRule(t, "PFC_DISABLED", h)
	if len(got) != 1 || !strings.Contains(got[0].Fix, "esxcli network nic pauseParams set -n vmnic4 -r true -t true") ||
		!strings.Contains(got[0].Fix, "-m nmlx5_core") {
		t.Errorf("fix should name vmnic4 and the nmlx5 parameters: %+v", got)
	}
}

func TestRuleRDMAErrors(t *testing.T) {
	runCases(t, "RDMA_ERRORS", []ruleCase{
		{name: "fires and names the counters", hosts: one(func(h *facts.Host) {
			h.RDMAStats[0].Counters["Error packets received"] = 48213
			h.RDMAStats[0].Counters["Queue pairs in ERR state"] = 2
			h.RDMAStats[0].Record = rec(cmdStats0, "Packets received", "100", "Error packets received", "48213", "Queue pairs in ERR state", "2")
		}), want: []want{{"esx01", "vmrdma0", StatusFail, Warning, "Error packets received 48213, Queue pairs in ERR state 2", "Error packets received: 48213"}}, exact: true},
		{name: "passes", hosts: one(nil), want: []want{{host: "esx01", subject: "vmrdma0", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdStats0); h.RDMAStats = nil }),
			want: []want{{host: "esx01", subject: "vmrdma0", status: StatusNotEvaluated, msg: cmdStats0}}, exact: true},
	})
}
