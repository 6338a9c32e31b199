package plan

var _ = example(GuestSetMTU{MTU: 9000, MAC: "00:50:56:aa:bb:cc", Netdev: "ens224"})
var _ = example(GuestReloadDriver{Device: "vmw_pvrdma0", MTU: 4096, Port: true})
var _ = example(GuestLoadDriver{Device: "vmw_pvrdma0"})
var _ = example(GuestPersistOrder{})
var _ = example(GuestInstallRDMA{Value: "apt"})
var _ = example(GuestReplaceMOFED{Value: "jammy"})
var _ = example(GuestInstallModule{Version: "5.15.0-91-generic"})
var _ = example(GuestUpgradeKernel{Version: "4.14"})
var _ = example(GuestSetIPv4{Netdev: "ens224"})
var _ = example(GuestLinkUp{Netdev: "ens224"})
