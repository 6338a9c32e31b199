package plan

var current = "trust_state=2"

var _ = example(InstallNIC{Switch: "rdma-dvs"})
var _ = example(UpgradeESXi{Version: "7.0 Update 1"})
var _ = example(EnableModule{Module: "irdman", Family: "E810", Package: "irdman", NICs: []string{"vmnic4", "vmnic5"}})
var _ = example(SetModuleParams{Module: "nmlx5_core", Set: pfcSet, Current: &current, Family: "ConnectX-5", NIC: "vmnic5", NICs: []string{"vmnic5"}})
var _ = example(SetUplinks{Switch: "rdma-dvs", Uplinks: []string{"vmnic5"}})
var _ = example(NICUp{NIC: "vmnic5", Device: "vmrdma1"})
var _ = example(RepairLink{NIC: "vmnic5", Device: "vmrdma1"})
var _ = example(TagVmknic{Vmknic: "vmk1"})
var _ = example(SetVmknicIPv4{Vmknic: "vmk1"})
var _ = example(EnableRuleset{Ruleset: "pvrdma"})
var _ = example(RestoreRules{Ruleset: "pvrdma"})
var _ = example(AllowIP{Ruleset: "pvrdma", IPs: []string{"192.168.50.11"}})
var _ = example(SetVmknicMTU{Vmknic: "vmk1", MTU: 9000})
var _ = example(SetVDSMTU{Switch: "rdma-dvs", MTU: 9000})
var _ = example(SetSwitchMTU{MTU: 9216, Hosts: []string{"esx01", "esx02"}, Probe: "vmkping -I vmk1 -d -s 8972 -c 3 192.168.50.12"})
var _ = example(SetPause{NIC: "vmnic5"})
var _ = example(SetSwitchFlow{NIC: "vmnic5", Mode: "pfc", Priority: 3})
