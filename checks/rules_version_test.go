package checks

import (
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

func TestRuleESXiVersion(t *testing.T) {
	runCases(t, "ESXI_VERSION_UNSUPPORTED", []ruleCase{
		{name: "fires on 6.0", hosts: one(func(h *facts.Host) {
			h.Version.Version = "6.0.0"
			h.Version.Ref = ref(cmdVersion, 2, "   Version: 6.0.0")
		}), want: []want{{"esx01", "esx01", StatusFail, Critical, "runs ESXi 6.0.0", "Version: 6.0.0"}}, exact: true},
		{name: "passes on 6.5", hosts: one(func(h *facts.Host) { h.Version.Version = "6.5.0" }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusPass}}, exact: true},
		{name: "not evaluated", hosts: one(func(h *facts.Host) { missing(h, cmdVersion); h.Version = nil }),
			want: []want{{host: "esx01", subject: "esx01", status: StatusNotEvaluated, msg: "esxcli system version get"}}, exact: true},
	})
}
