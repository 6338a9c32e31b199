package plan

const vmx = "cat '/vmfs/volumes/ds1/vm1/vm1.vmx'"

var _ = example(VMMemoryPin{VM: evil, Config: vmx})
var _ = example(VMUpgradeHardware{VM: evil, Version: "19", Config: vmx})
var _ = example(VMSetGuestOS{VM: evil, Value: "ubuntu64Guest", Config: vmx})
var _ = example(VMReplaceAdapter{VM: evil, Adapter: "ethernet1", Device: "ethernet-0", Portgroup: "pvrdma-pg", Config: vmx})
var _ = example(VMSetNetwork{VM: evil, Switch: "rdma-dvs", Adapter: "ethernet1", Device: "ethernet-0", Portgroup: "pvrdma-pg", Config: vmx})
var _ = example(VMConnectAdapter{VM: evil, Adapter: "ethernet1", Device: "ethernet-0", Config: vmx})
var _ = example(VMSetProtocol{VM: evil, Adapter: "ethernet1", Value: "2", Config: vmx})
var _ = example(VMSetFirmware{VM: evil, Value: "efi", Config: vmx})
var _ = example(VMSetExtraConfig{VM: evil, Set: []Setting{{"pciPassthru.use64bitMMIO", "TRUE"}, {"vrdma1.nativeEndpointSupport", "FALSE"}}, Config: vmx})
var _ = example(VMRemoveDevice{VM: evil, Device: "0000:3b:00.0", Config: vmx})
