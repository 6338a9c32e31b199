package plan

var _ = example(PowerOffVMs{VMs: []string{"vm1", evil}})
var _ = example(MigrateVMs{VMs: []string{"vm2"}})
var _ = example(EnterMaintenance{})
var _ = example(Reboot{})
var _ = example(ExitMaintenance{})
var _ = example(PowerOnVMs{VMs: []string{"vm1", evil}, BindHCA: []string{"vm1"}})
