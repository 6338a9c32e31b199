package cli

import (
	"fmt"
	"net"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// scan --vcenter --guests-from-vcenter against the lab: the simulated
// vCenter reports each lab guest's address through VMware Tools
// (guest.net); the scan finds the guests there, reaches each at its own
// address on --guest-port (host keys checked), and reports the PVRDMA VM
// vCenter knows no address of as not scanned.
func TestScanGuestsFromVCenter(t *testing.T) {
	l, dir := startScanLab(t, "mixed", lab.Options{})
	kh := labKnownHosts(t, l, dir)
	writeGuestsFile(t, l, dir, kh) // their known_hosts entries
	url, thumb := startVCenterGuests(t, "mixed", l.Guests())
	env := map[string]string{"PD_PW": testPassword, "VC_PW": vcPassword}
	port := strconv.Itoa(l.GuestPort())
	code, out, errOut := runVCenterScan(t, dir, env, "--hosts-file", filepath.Join(dir, "hosts"), "--known-hosts", kh,
		"--password-env", "PD_PW", "--vcenter", url, "--vcenter-password-env", "VC_PW",
		"--vcenter-thumbprint", thumb, "--cluster", "pvrdma-demo",
		"--guests-from-vcenter", "--guest-port", port, "-o", "json")
	if code != ExitCritical {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	r := decodeReport(t, out)
	if len(r.Guests) != len(l.Guests()) || r.Summary.Guests != len(l.Guests()) {
		t.Fatalf("%d guests scanned, want the lab's %d; notes %q", len(r.Guests), len(l.Guests()), r.Notes)
	}
	byName := map[string]string{}
	for _, g := range r.Guests {
		byName[g.Host] = g.Address
		if g.Status != hostio.StatusCollected {
			t.Errorf("guest %s: %s %s", g.Host, g.Status, g.Reason)
		}
	}
	for _, g := range l.Guests() {
		// Reached at the address vCenter gave (the lab's), on --guest-port.
		if byName[g.Name] != g.Addr {
			t.Errorf("guest %s scanned at %q, served at %s", g.Name, byName[g.Name], g.Addr)
		}
		if h, p, _ := net.SplitHostPort(g.Addr); !strings.HasPrefix(h, "127.0.1.") || p != port {
			t.Errorf("lab guest %s at %s: not an address of its own on the shared port", g.Name, g.Addr)
		}
		st := l.Stats(g.Name)
		if st.Handshakes != 1 || len(st.Commands) < len(collect.GuestStage1()) {
			t.Errorf("%s: %d handshakes, %d commands", g.Name, st.Handshakes, len(st.Commands))
		}
		for _, c := range st.Commands {
			if collect.CheckGuestAllowed(c) != nil {
				t.Errorf("%s: %q is not on the guest allowlist", g.Name, c)
			}
		}
	}
	// The guests are tied to their host-side adapters as with --guests.
	var found []string
	for _, f := range r.Findings {
		if strings.HasPrefix(f.RuleID, "GUEST_") && f.Status == "fail" {
			found = append(found, f.RuleID+" "+f.Host)
		}
	}
	for _, want := range []string{"GUEST_PORT_DOWN hpc-node01", "GUEST_NETDEV_MTU_LIMITS_RDMA_MTU hpc-node03",
		"GUEST_MOFED_CONFLICT hpc-node04", "GUEST_NO_PVRDMA_DEVICE hpc-node05"} {
		if !slices.Contains(found, want) {
			t.Errorf("%s not found; guest findings %v", want, found)
		}
	}
	notes := strings.Join(r.Notes, "\n")
	for _, want := range []string{
		fmt.Sprintf("guests from vCenter: %d guests of 8 PVRDMA VMs with a VMware Tools address (SSH port %s)", len(l.Guests()), port),
		"not scanned: hpc-node08 (on esx05): no guest address known (VMware Tools not running?)",
	} {
		if !strings.Contains(notes, want) {
			t.Errorf("notes lack %q:\n%s", want, notes)
		}
	}
}

// Guest discovery needs --vcenter; --guest-port only applies to it.
func TestGuestsFromVCenterFlags(t *testing.T) {
	run := func(args ...string) (int, string, string) {
		return runCLI(t, "", append([]string{"scan"}, args...)...)
	}
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--hosts", "esx01", "--guests-from-vcenter"}, "--guests-from-vcenter needs --vcenter"},
		{[]string{"--hosts", "esx01", "--guest-port", "2222"}, "--guest-port is the port of guests discovered"},
		{[]string{"--vcenter", "vc01", "--guests-from-vcenter", "--guest-port", "70000"}, "the port must be 1 to 65535"},
	} {
		code, _, errOut := run(append(c.args, "--dry-run")...)
		if code != ExitUsage || !strings.Contains(errOut, c.want) {
			t.Errorf("%v: exit %d, %q", c.args, code, errOut)
		}
	}
	code, out, errOut := run("--vcenter", "vc01", "--guests-from-vcenter", "--guest-port", "2222", "--dry-run")
	if code != 0 || !strings.Contains(out, "Guests from vCenter: every powered-on PVRDMA VM") ||
		!strings.Contains(out, "guest GUEST-LISTED-BY-VCENTER (root@GUEST-LISTED-BY-VCENTER:2222)") ||
		!strings.Contains(out, "guest.net") || !strings.Contains(out, "ibv_devinfo -v") {
		t.Errorf("dry run: exit %d\n%s\n%s", code, out, errOut)
	}
}

// Addresses come from inside the VM (VMware Tools): only an IP address
// becomes a target, dialled as such; anything else is refused with the
// reason in the report's notes, and never reaches a command line.
func TestHostileGuestAddresses(t *testing.T) {
	on := true
	vm := func(name, ip string, nics ...parse.VCenterGuestNIC) parse.VCenterVM {
		return parse.VCenterVM{Name: name, PowerState: "poweredOn", GuestIP: ip, ToolsStatus: "guestToolsRunning", GuestHostName: "host name; reboot",
			Adapters: []parse.VCenterAdapter{{Label: "Network adapter 1", Type: "vmxnet3", MAC: "00:50:56:00:00:01"},
				{Label: "Network adapter 2", Type: "vrdma", MAC: "00:50:56:00:00:02"}},
			GuestNet: nics}
	}
	mgmt := func(ips ...string) parse.VCenterGuestNIC {
		return parse.VCenterGuestNIC{MAC: "00:50:56:00:00:01", IPs: ips, Connected: &on}
	}
	data := func(ips ...string) parse.VCenterGuestNIC {
		return parse.VCenterGuestNIC{MAC: "00:50:56:00:00:02", IPs: ips, Connected: &on}
	}
	doc := parse.VCenterVMDoc{Host: "esx01", VMs: []parse.VCenterVM{
		vm("shell", "", mgmt("127.0.0.9; rm -rf /", "$(reboot)", "`id`")),
		vm("zone", "fe80::1%ens192", mgmt("fe80::250:56ff:fe00:1%ens192", "fe80::1")),
		vm("names", "evil host", mgmt("evil host", "hpc-node01.example.com", "127.0.0.10/24", "[127.0.0.11]:22")),
		vm("multicast", "0.0.0.0", mgmt("224.0.0.1", "::")),
		vm("v6", "", mgmt("fd00::7", "127.0.0.12")),         // IPv4 preferred
		vm("only-v6", "", mgmt("fd00::8")),                  // else IPv6
		vm("rdma-only", "127.0.0.13", data("192.168.50.9")), // not the PVRDMA NIC's address: guest.ipAddress
		vm("data-only", "", data("192.168.50.10")),          // the PVRDMA address is never dialled
		vm("mapped", "", mgmt("::ffff:127.0.0.14")),         // IPv4-mapped: dialled as IPv4
		vm("bad name\"; reboot", "", mgmt("127.0.0.15")),    // named by its address
		// An address of the PVRDMA adapter is never dialled, however it
		// is reported (issue 24.5): as guest.ipAddress, on another NIC,
		// in another form.
		vm("ip-is-rdma", "127.0.0.17", data("127.0.0.17")),
		vm("mgmt-shares", "", mgmt("127.0.0.18", "127.0.0.19"), data("127.0.0.18")),
		vm("mapped-rdma", "127.0.0.20", data("::ffff:127.0.0.20")),
		{Name: "off", PowerState: "poweredOff", Adapters: []parse.VCenterAdapter{{Type: "vrdma", MAC: "00:50:56:00:00:03"}}},
		{Name: "plain", PowerState: "poweredOn", GuestIP: "127.0.0.16", Adapters: []parse.VCenterAdapter{{Type: "vmxnet3"}}},
	}}
	caps := map[string][]hostio.Capture{"esx01": {{Host: "esx01", Command: "vcenter vm config", Kind: catalog.KindVCenterVMs,
		Status: hostio.StatusCollected, Stdout: parse.RenderVCenterVMs(doc)}}}
	targets, notes := vcenter.GuestTargets(vcenter.DiscoverGuests(caps), 22, []hostio.Target{{Name: "esx01"}})
	got := map[string]string{}
	for _, tg := range targets {
		if tg.Role != hostio.RoleGuest {
			t.Errorf("%s: role %q", tg.Name, tg.Role)
		}
		got[tg.Name] = tg.Addr
		// Every target is a bare IP and port, and its name a plain name
		// or that IP.
		h, p, err := net.SplitHostPort(tg.Addr)
		if err != nil || p != "22" || net.ParseIP(h) == nil || strings.ContainsAny(tg.Name+tg.Addr, " ;$`'\"%/|&()") {
			t.Errorf("unsafe target %+v", tg)
		}
		// And it passes the scan's own target check.
		if _, err := parseTarget(tg.Name); err != nil {
			t.Errorf("target name %q: %v", tg.Name, err)
		}
	}
	want := map[string]string{"v6": "127.0.0.12:22", "only-v6": "[fd00::8]:22", "rdma-only": "127.0.0.13:22",
		"mapped": "127.0.0.14:22", "127.0.0.15": "127.0.0.15:22", "mgmt-shares": "127.0.0.19:22"}
	if len(got) != len(want) {
		t.Errorf("targets %v, want %v", got, want)
	}
	for k, v := range want {
		if got[k] != v {
			t.Errorf("%s: %q, want %q", k, got[k], v)
		}
	}
	all := strings.Join(notes, "\n")
	for _, w := range []string{
		`not scanned: shell (on esx01): no usable guest address ("127.0.0.9; rm -rf /" is not an IP address; "$(reboot)" is not an IP address; "` + "`id`" + `" is not an IP address)`,
		`not scanned: zone (on esx01): no usable guest address (`, "fe80::1 is link-local",
		`"evil host" is not an IP address`, `"127.0.0.10/24" is not an IP address`,
		"224.0.0.1 cannot be dialled", "not scanned: data-only (on esx01): no guest address known (VMware Tools not running?)",
		"not scanned: off (on esx01): powered off",
		"guests from vCenter: 6 guests of 14 PVRDMA VMs",
		"not scanned: ip-is-rdma (on esx01): no usable guest address (127.0.0.17 belongs to a PVRDMA adapter of the VM)",
		"not scanned: mapped-rdma (on esx01): no usable guest address (127.0.0.20 belongs to a PVRDMA adapter of the VM)",
	} {
		if !strings.Contains(all, w) {
			t.Errorf("notes lack %q:\n%s", w, all)
		}
	}
	if strings.Contains(all, "plain") {
		t.Errorf("a VM without a PVRDMA adapter is reported:\n%s", all)
	}
}

// lab serve prints a --guests-from-vcenter command that works as printed:
// the guests are found through the simulated vCenter, their host keys
// are in the written known_hosts.
func TestLabServeGuestsFromVCenter(t *testing.T) {
	dir := t.TempDir()
	serve := serveLab(t, "--scenario", "mixed", "--out-dir", dir, "--password", "Lab-Passw0rd")
	text := serve.Text
	pw := regexp.MustCompile(`export VC_PASSWORD=(\S+)`).FindStringSubmatch(text)
	cmd := regexp.MustCompile(`(pvrdma-doctor scan .*\\\n.*\\\n.*--guests-from-vcenter --guest-port \d+)\n`).FindStringSubmatch(text)
	if pw == nil || cmd == nil {
		t.Fatalf("no guest discovery command in:\n%s", text)
	}
	code, sout, serr := runPrinted(cmd[1], dir, map[string]string{"PVRDMA_DOCTOR_PASSWORD": "Lab-Passw0rd", "VC_PASSWORD": pw[1]})
	if code != ExitCritical {
		t.Fatalf("printed command: exit %d\n%s", code, serr)
	}
	r := decodeReport(t, sout)
	if len(r.Guests) != 7 {
		t.Errorf("%d guests scanned; notes %q", len(r.Guests), r.Notes)
	}
	for _, g := range r.Guests {
		if g.Status != hostio.StatusCollected {
			t.Errorf("guest %s: %s %s", g.Host, g.Status, g.Reason)
		}
	}
	serve.stop(t, "lab serve did not stop on context cancel")
}
