package collect

import "github.com/pvrdma-doctor/pvrdma-doctor/hostio"

// Template is a stage 2 or 3 command as a pattern with placeholders: what
// `scan --dry-run` shows for the commands whose arguments come from the
// host's own stage 1 output (or its peers' addresses). Every value is
// validated by the command's constructor before it can reach a line.
type Template struct {
	Kind  hostio.Kind `json:"kind"`
	Stage int         `json:"stage"`
	Line  string      `json:"template"`
	// When says for what each instance is run.
	When string `json:"when"`
	// Example is the command for sample values, built by the constructor.
	Example Command `json:"example"`
}

// Templates returns the stage 2 and 3 command patterns, in run order.
func Templates() []Template {
	must := func(c Command, err error) Command {
		if err != nil {
			panic(err)
		}
		return c
	}
	return []Template{
		{hostio.KindPVRDMAProperties, 2, "vsish -e cat " + PVRDMADevicesDir + "<worldID>_<index>/properties",
			"for each PVRDMA adapter listed by `vsish -e ls " + PVRDMADevicesDir + "` (<worldID>, <index>: digits)",
			must(PVRDMAProperties("1001474360", "0"))},
		{hostio.KindRDMAStats, 2, "esxcli rdma device stats get -d <vmrdmaN>",
			"for each RDMA device listed by `esxcli rdma device list`",
			must(RDMAStats("vmrdma0"))},
		{hostio.KindNICGet, 2, "esxcli network nic get -n <vmnicN>",
			"for each uplink paired with an RDMA device",
			must(NICGet("vmnic4"))},
		{hostio.KindDCBStatus, 2, "esxcli network nic dcb status get -n <vmnicN>",
			"for each uplink paired with an RDMA device",
			must(DCBStatus("vmnic4"))},
		{hostio.KindVmkping, 3, "vmkping -I <vmkN> [-S <netstack>] -c 3 -d -s <8972|1472> <peer IPv4>",
			"from the PVRDMA vmknic to the PVRDMA vmknic of the next peers (unless --no-probes)",
			must(Vmkping("vmk1", "", "192.168.50.12", 8972))},
	}
}

// Describe names a kind for people: the stage 1 command line, or the stage
// 2/3 template ("esxcli rdma device stats get -d <vmrdmaN>").
func Describe(k hostio.Kind) string {
	for _, c := range stage1 {
		if c.Kind == k {
			return c.Line
		}
	}
	for _, t := range Templates() {
		if t.Kind == k {
			return t.Line
		}
	}
	return string(k)
}
