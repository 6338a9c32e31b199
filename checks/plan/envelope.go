package plan

import "fmt"

// The actions of a plan's envelope, which the planner makes around the
// rules' actions: the VMs off (or migrated), maintenance mode, one reboot,
// out of maintenance mode, the VMs back on.

// PowerOffVMs shuts VMs down.
type PowerOffVMs struct {
	VMs []string `json:"vms,omitempty"`
}

const KindPowerOffVMs Kind = "power_off_vms"

var _ = register[PowerOffVMs]()

func (PowerOffVMs) Kind() Kind { return KindPowerOffVMs }
func (PowerOffVMs) About() string {
	return "shut the VMs down (guest shutdown)"
}

func (a PowerOffVMs) vmList() []string { return a.VMs }

func (a PowerOffVMs) Words(host string) Words {
	their := "their"
	if len(a.VMs) == 1 {
		their = "its"
	}
	return Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("Shut down %s on %s (%s RDMA jobs stop).", JoinNames(a.VMs), host, their),
		Command: "govc vm.power -s " + quoteAll(a.VMs, "VM_NAME")}
}

func (a PowerOffVMs) Reads(string) Reads {
	var m []Match
	for _, v := range a.VMs {
		m = append(m, Match{Record: v, Absent: true})
	}
	return Reads{Check: esxiRead("esxcli vm process list", "none of them listed", m...)}
}

func (PowerOffVMs) Unverified() string { return "the plan powers the VMs on again" }

// MigrateVMs moves running VMs to other hosts (vMotion).
type MigrateVMs struct {
	VMs []string `json:"vms,omitempty"`
}

const KindMigrateVMs Kind = "migrate_vms"

var _ = register[MigrateVMs]()

func (MigrateVMs) Kind() Kind { return KindMigrateVMs }
func (MigrateVMs) About() string {
	return "move the host's other running VMs away (vMotion) before maintenance mode"
}

func (a MigrateVMs) vmList() []string { return a.VMs }

func (a MigrateVMs) Words(host string) Words {
	return Words{On: "vcenter", Pause: true,
		Text: fmt.Sprintf("Migrate %s off %s (vMotion; with DRS fully automated, entering maintenance mode does it).", JoinNames(a.VMs), host)}
}

func (a MigrateVMs) Reads(string) Reads {
	var m []Match
	for _, v := range a.VMs {
		m = append(m, Match{Record: v, Absent: true})
	}
	return Reads{Check: esxiRead("esxcli vm process list", "none of them listed", m...)}
}

func (MigrateVMs) Unverified() string {
	return "DRS may move the VMs back once the host leaves maintenance mode"
}

// EnterMaintenance puts the host into maintenance mode.
type EnterMaintenance struct{}

const KindEnterMaintenance Kind = "enter_maintenance"

var _ = register[EnterMaintenance]()

func (EnterMaintenance) Kind() Kind { return KindEnterMaintenance }
func (EnterMaintenance) About() string {
	return "the host into maintenance mode"
}

func (EnterMaintenance) Words(host string) Words {
	return Words{On: "esxi", Text: fmt.Sprintf("Put %s in maintenance mode.", host), Command: "esxcli system maintenanceMode set -e true"}
}

func (EnterMaintenance) Reads(string) Reads {
	return Reads{Check: esxiRead("esxcli system maintenanceMode get", "Enabled", LineOf("Enabled"))}
}

func (EnterMaintenance) Unverified() string {
	return "the plan takes the host out of maintenance mode again"
}

// Reboot reboots the host (in maintenance mode). Pending: no step of the
// plan changes a driver before it; what loads is what was configured
// since the last boot (a module enabled, parameters set).
type Reboot struct {
	Pending bool `json:"pending,omitempty"`
}

const KindReboot Kind = "reboot"

var _ = register[Reboot]()

func (Reboot) Kind() Kind { return KindReboot }
func (Reboot) About() string {
	return "reboot the host (in maintenance mode)"
}

func (a Reboot) Words(host string) Words {
	text := fmt.Sprintf("Reboot %s: the driver changes above take effect at boot.", host)
	if a.Pending {
		text = fmt.Sprintf("Reboot %s: the driver configuration made since its last boot (shown by the findings this step resolves) takes effect at boot.", host)
	}
	return Words{On: "esxi", Pause: true, Text: text,
		Command: "esxcli system shutdown reboot -r 'pvrdma-doctor plan: RDMA driver changes'"}
}

func (Reboot) Reads(string) Reads { return Reads{} }

func (Reboot) Unverified() string { return "the steps whose changes load at the boot verify them" }

// ExitMaintenance takes the host out of maintenance mode.
type ExitMaintenance struct{}

const KindExitMaintenance Kind = "exit_maintenance"

var _ = register[ExitMaintenance]()

func (ExitMaintenance) Kind() Kind { return KindExitMaintenance }
func (ExitMaintenance) About() string {
	return "the host out of maintenance mode"
}

func (ExitMaintenance) Words(host string) Words {
	return Words{On: "esxi", Text: fmt.Sprintf("Take %s out of maintenance mode.", host), Command: "esxcli system maintenanceMode set -e false"}
}

func (ExitMaintenance) Reads(string) Reads {
	c := esxiRead("esxcli system maintenanceMode get", "Disabled", LineOf("Disabled"))
	return Reads{Check: c, Verify: reads(c)}
}

// PowerOnVMs powers VMs on; BindHCA are those whose PVRDMA adapter binds
// to the HCA at this power-on.
type PowerOnVMs struct {
	VMs     []string `json:"vms,omitempty"`
	BindHCA []string `json:"bind_hca,omitempty"`
}

const KindPowerOnVMs Kind = "power_on_vms"

var _ = register[PowerOnVMs]()

func (PowerOnVMs) Kind() Kind { return KindPowerOnVMs }
func (PowerOnVMs) About() string {
	return "power the VMs on; `bind_hca`: those whose PVRDMA adapter must bind to the HCA (Physical HCA available 1 in `vsish`)"
}

func (a PowerOnVMs) vmList() []string { return a.VMs }

func (a PowerOnVMs) Words(string) Words {
	w := Words{On: "vcenter", Pause: true, Text: fmt.Sprintf("Power on %s.", JoinNames(a.VMs)), Command: "govc vm.power -on " + quoteAll(a.VMs, "VM_NAME")}
	if len(a.BindHCA) > 0 {
		w.Text = fmt.Sprintf("Power on %s: a PVRDMA adapter binds to the HCA at power-on.", JoinNames(a.VMs))
	}
	return w
}

func (a PowerOnVMs) Reads(string) Reads {
	var m []Match
	for _, v := range a.VMs {
		m = append(m, Match{Record: v})
	}
	c := esxiRead("esxcli vm process list", "each of them listed", m...)
	r := Reads{Check: c, Verify: reads(c)}
	for _, v := range a.BindHCA {
		r.Verify = append(r.Verify, Read{Command: vsishProps, VM: v, On: "esxi", Expect: "Physical HCA available:1 for " + v,
			Match: []Match{LineOf("Physical HCA available:1")}})
	}
	return r
}
