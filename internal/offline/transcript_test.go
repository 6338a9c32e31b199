package offline

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// sampleBody reads a real sample (../parse/testdata) without its "#@" header.
func sampleBody(t testing.TB, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("../../parse/testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if i := strings.Index(s, "#@ ---\n"); i >= 0 {
		s = s[i+len("#@ ---\n"):]
	}
	return s
}

// transcriptSamples are the real samples whose command is (a form of) one of
// pvrdma-doctor's, with the typed spellings to try and the facts they feed.
var transcriptSamples = []struct {
	file     string
	spelling []string
	facts    func(h *facts.Host) any
}{
	{"esxcfg_nics_l__intel_mfd_esxi_icen_bnxtnet.txt", []string{"esxcfg-nics -l", "esxcli network nic list"}, func(h *facts.Host) any { return h.NICs }},
	{"esxcli_formatter_keyvalue_network_nic_list__warlock_dell_ixgben_igbn_i40en_esxi8.txt", []string{"esxcli --formatter=keyvalue network nic list", "localcli --formatter keyvalue network nic list", "esxcli -s esx-sample -u root --formatter=keyvalue network nic list"}, func(h *facts.Host) any { return h.NICs }},
	{"esxcli_formatter_xml_network_nic_get__warlock_ixgben_esxi8.txt", []string{"esxcli --formatter=xml network nic get -n vmnic0", "esxcli --formatter=xml network nic get --nic-name=vmnic0", "esxcli --formatter xml network nic get --nic-name vmnic0"}, func(h *facts.Host) any { return h.NICDetails }},
	{"esxcli_formatter_xml_network_nic_list__warlock_dell_esxi8.txt", []string{"esxcli --formatter=xml network nic list", "esxcli --server=esx-sample --formatter=xml network nic list"}, func(h *facts.Host) any { return h.NICs }},
	{"esxcli_network_firewall_ruleset_list__elatov_grep_custom_esxi65u1.txt", []string{"esxcli network firewall ruleset list | grep cust"}, func(h *facts.Host) any { return h.Rulesets }},
	{"esxcli_network_ip_interface_ipv4_get__blog_vmk0_recreate.txt", []string{"esxcli network ip interface ipv4 get", "esxcli network ip interface ipv4 get -i vmk0", "esxcli network ip interface ipv4 get --interface-name=vmk0"}, func(h *facts.Host) any { return h.IPv4 }},
	{"esxcli_network_ip_interface_ipv4_get__cactus_esxi670_vmk1.txt", []string{"esxcli network ip interface ipv4 get", "localcli network ip interface ipv4 get"}, func(h *facts.Host) any { return h.IPv4 }},
	{"esxcli_network_ip_interface_list__blog_vmk0_recreate_vss.txt", []string{"esxcli network ip interface list"}, func(h *facts.Host) any { return h.Vmknics }},
	{"esxcli_network_nic_get__intel_mfd_igbn_esxi7.txt", []string{"esxcli network nic get -n vmnic0", "esxcli network nic get --nic-name vmnic0"}, func(h *facts.Host) any { return h.NICDetails }},
	{"esxcli_network_nic_list__blog_vmk0_recreate_ixgben_igbn.txt", []string{"esxcli network nic list"}, func(h *facts.Host) any { return h.NICs }},
	{"esxcli_network_nic_list__cactus_esxi670_ntg3.txt", []string{"esxcli network nic list", "esxcli --formatter=csv network nic list"}, func(h *facts.Host) any { return h.NICs }},
	{"esxcli_network_vswitch_standard_list__cactus_esxi670_2switches.txt", []string{"esxcli network vswitch standard list"}, func(h *facts.Host) any { return h.StandardSwitches }},
	{"esxcli_hardware_pci_list__cn_blog_x540_ixgbe_lsi_passthru.txt", []string{"esxcli hardware pci list", "localcli hardware pci list"}, func(h *facts.Host) any { return h.PCIDevices }},
	{"esxcli_system_version_get__cactus_esxi670.txt", []string{"esxcli system version get", "localcli system version get"}, func(h *facts.Host) any { return h.Version }},
	{"esxcli_vm_process_list__blog_esxi80u3_extend_vmfs.txt", []string{"esxcli vm process list"}, func(h *facts.Host) any { return h.VMs }},
	{"esxcli_vm_process_list__cactus_esxi670_2vms.txt", []string{"esxcli vm process list", "esxcli --debug vm process list"}, func(h *facts.Host) any { return h.VMs }},
	{"vmkping__blog_vmk0_default_size_success.txt", []string{"vmkping -I vmk0 192.168.1.22"}, func(h *facts.Host) any { return h.Pings }},
	{"vmkping__vsan_doc_s1472_d_success.txt", []string{"vmkping -I vmk2 172.32.0.3 -s 1472 -d", "vmkping -d -s 1472 -I vmk2 172.32.0.3"}, func(h *facts.Host) any { return h.Pings }},
}

// asTranscript makes a pasted session of one output: its own prompt line
// when it has one, else a prompt with the typed command.
func asTranscript(body, typed string) string {
	first, rest, _ := strings.Cut(body, "\n")
	if p := parse.StripPrompt(first); p != strings.TrimSpace(first) {
		return "[root@esx-sample:~] " + typed + "\n" + rest
	}
	return "[root@esx-sample:~] " + typed + "\n" + body + "[root@esx-sample:~] exit\n"
}

// TestSamplesAnalyzeAsTranscript: every real sample, pasted as a
// transcript under each spelling of its command, gives the facts its parser
// gives, without a parse error.
func TestSamplesAnalyzeAsTranscript(t *testing.T) {
	for _, s := range transcriptSamples {
		body := sampleBody(t, s.file)
		for _, typed := range s.spelling {
			t.Run(s.file+"/"+typed, func(t *testing.T) {
				text := asTranscript(body, typed)
				if strings.Contains(typed, "csv") {
					// The CSV form of the same facts.
					nics, err := parse.NICList(body)
					if err != nil {
						t.Fatal(err)
					}
					var b strings.Builder
					b.WriteString("Name,PCIDevice,Driver,AdminStatus,LinkStatus,Speed,Duplex,MACAddress,MTU,Description,\n")
					for _, n := range nics {
						b.WriteString(strings.Join([]string{n.Name, n.PCIDevice, n.Driver, n.AdminStatus, n.LinkStatus, strconv.Itoa(n.SpeedMbps), n.Duplex, n.MAC, strconv.Itoa(n.MTU), n.Description}, ",") + ",\n")
					}
					text = "[root@esx-sample:~] " + typed + "\n" + b.String()
				}
				in, err := FromTranscript(text)
				if err != nil {
					t.Fatal(err)
				}
				if len(in.Results) != 1 || in.Results[0].Host != "esx-sample" {
					t.Fatalf("hosts: %+v", in.Results)
				}
				fl := facts.Build(in.Results)
				h := &fl.Hosts[0]
				if len(h.Errors) > 0 {
					t.Fatalf("parse errors: %v", h.Errors)
				}
				spec, ok := collect.ParserFor(s.spelling[0])
				if !ok {
					t.Fatalf("no parser for %q", s.spelling[0])
				}
				want, err := spec.Parser.Parse(body)
				if err != nil {
					t.Fatal(err)
				}
				got := parse.Signature(s.facts(h))
				if w := parse.Signature(want); !strings.Contains("["+got+"]", strings.Trim(w, "[]")) {
					t.Fatalf("facts\n got %s\nwant %s", got, w)
				}
			})
		}
	}
}

// TestSamplesOtherCommandsPassedOver: samples of commands pvrdma-doctor does
// not read make no host and no parse error, and the transcript says so.
func TestSamplesOtherCommandsPassedOver(t *testing.T) {
	for _, f := range []string{
		"esxcli_network_firewall_ruleset_rule_list__elatov_custom_firewall_esxi65u1.txt",
		"esxcli_network_vswitch_standard_portgroup_list__cactus_esxi670.txt",
		"esxcli_system_settings_advanced_list_o__elatov_TcpipDefLROEnabled_esxi60.txt",
		"vsish_ls__intel_mfd_i40en_rxsecqueues.txt",
	} {
		body := sampleBody(t, f)
		text := asTranscript(body, "esxcli hardware cpu list")
		if strings.HasPrefix(f, "vsish") {
			text = "[root@esx-sample:~] vsish -e ls /net/pNics/vmnic0/rxqueues/queues/0/rss/rxSecQueues\n" + body
		}
		// With one command of ours after it, the host exists and lists the
		// others as passed over.
		text += "[root@esx-sample:~] esxcli system version get\n   Product: VMware ESXi\n   Version: 6.7.0\n"
		in, err := FromTranscript(text)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		fl := facts.Build(in.Results)
		if len(in.Results) != 1 || len(fl.Hosts[0].Errors) > 0 || fl.Hosts[0].Version == nil || len(in.Read[0].Other) == 0 {
			t.Fatalf("%s: results %+v errors %v read %+v", f, in.Results, fl.Hosts[0].Errors, in.Read)
		}
	}
	// The NSX-T notes: two "ping ++netstack" runs, the second "Message too long".
	in, err := FromTranscript(sampleBody(t, "vmkping__nsxt_homelab_netstack_vxlan_s1500_ok_s1600_fail.txt"))
	if err != nil {
		t.Fatal(err)
	}
	fl := facts.Build(in.Results)
	h := fl.Hosts[0]
	if h.Host != "ESXI-HW-G3" || len(h.Pings) != 2 || h.Pings[0].Payload != 1500 || !h.Pings[1].MessageTooLong {
		t.Fatalf("pings %+v", h.Pings)
	}
	c, _ := in.Results[0].Find("vmkping -I vmk10 -S vxlan -c 3 -d -s 1600 10.44.44.59")
	if c.Kind != catalog.KindVmkping {
		t.Errorf("ping ++netstack not read as the catalogue probe: %+v", in.Results[0].Captures)
	}
}

// messy is a pasted multi-host session as admins paste them: prompts of
// several shapes, a row shifted off its dash columns, a wrapped path, an
// elision, a title that differs from the display name, a bad value, other
// spellings, a legacy tool and a ping of a host name with no output.
const messy = `Last login: Tue Nov 24 05:00:00 2026 from 10.0.0.5
$ ssh root@esx01 esxcli network ip interface ipv4 get
Name  IPv4 Address  IPv4 Netmask   IPv4 Broadcast  Address Type  Gateway  DHCP DNS
----  ------------  -------------  --------------  ------------  -------  --------
vmk0  10.0.0.11     255.255.255.0  10.0.0.255      STATIC        10.0.0.1    false
vmk2  172.32.0.4  255.255.255.0  172.32.0.255  STATIC  0.0.0.0 false
[root@esx01:~] esxcli vm process list
DC
   World ID: 67890
   Process ID: 0
   VMX Cartel ID: 67889
   UUID: 42 31 0d 66 62 8c b0 5d-46 6f 24 42 52 c6 95 8f
   Display Name: Camp-DC
   Config File: /vmfs/volumes/5bc7459f-967eeb48-b3f7-20677cd9a16c/Camp-DC/Camp-D
C.vmx

<<truncated>>

web01
   World ID: 67999
   Display Name: web01
   Config File: /vmfs/volumes/5bc7459f-967eeb48-b3f7-20677cd9a16c/web01/web01.vmx
[root@esx01:~] esxcli network ip interface list
vmk0
   Name: vmk0
   MTU: 1500
   Enabled: maybe

vmk2
   Name: vmk2
   Enabled: true
   Portset: vSwitch1
   Netstack Instance: defaultTcpipStack
   MTU: 9000
[root@esx02:/vmfs/volumes/ds1] localcli network firewall ruleset list --ruleset-id=pvrdma
Name    Enabled
------  -------
pvrdma     true
[root@esx02:~] ping esx01
[root@esx02:~] esxcfg-vmknic -l
Interface  Port Group/DVPort/Opaque Network        IP Family IP Address                              Netmask         Broadcast       MAC Address       MTU     TSO MSS   Enabled Type                NetStack
vmk1       17                                      IPv4      192.168.10.12                           255.255.255.0   192.168.10.255  00:50:56:61:11:23 9000    65535     true    STATIC              defaultTcpipStack
[root@esx02:~] exit
`

func TestMessyMultiHostTranscript(t *testing.T) {
	in, err := FromTranscript(messy)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Results) != 2 || in.Results[0].Host != "esx01" || in.Results[1].Host != "esx02" {
		t.Fatalf("hosts: %+v", in.Results)
	}
	fl := facts.Build(in.Results)
	e1, e2 := fl.Hosts[0], fl.Hosts[1]
	// The shifted row keeps vmk2's address.
	if len(e1.IPv4) != 2 || e1.IPv4[1].Name != "vmk2" || e1.IPv4[1].Address != "172.32.0.4" || e1.IPv4[1].Gateway != "0.0.0.0" {
		t.Errorf("ipv4: %+v", e1.IPv4)
	}
	// Display name, not title; the wrapped path joined; the elision noted.
	if len(e1.VMs) != 2 || e1.VMs[0].DisplayName != "Camp-DC" || e1.VMs[0].Title != "DC" ||
		e1.VMs[0].ConfigFile != "/vmfs/volumes/5bc7459f-967eeb48-b3f7-20677cd9a16c/Camp-DC/Camp-DC.vmx" {
		t.Errorf("vms: %+v", e1.VMs)
	}
	src := e1.Sources[catalog.KindVMProcessList][0]
	if !src.Parsed || len(src.Skipped) != 1 || src.Skipped[0].Line != 10 {
		t.Errorf("vm list source: %+v", src)
	}
	// One bad value costs its vmknic only; the kind is then not evaluated.
	if len(e1.Vmknics) != 1 || e1.Vmknics[0].Name != "vmk2" {
		t.Errorf("vmknics: %+v", e1.Vmknics)
	}
	if ok, why := e1.Available(catalog.KindIPInterfaceList); ok || !strings.Contains(why, "partly readable") || !strings.Contains(why, "line 1") {
		t.Errorf("available: %v %s", ok, why)
	}
	// esx02: the filtered firewall form covers pvrdma; esxcfg-vmknic feeds
	// vmknics and IPv4; ping of a host name is passed over, quietly.
	if len(e2.Rulesets) != 1 || !e2.Rulesets[0].Enabled {
		t.Errorf("rulesets: %+v", e2.Rulesets)
	}
	if ok, _ := e2.Covers(catalog.KindFirewallRulesets, "pvrdma"); !ok {
		t.Error("ruleset list -r pvrdma does not cover pvrdma")
	}
	if ok, _ := e2.Covers(catalog.KindFirewallRulesets, "sshServer"); ok {
		t.Error("ruleset list -r pvrdma covers sshServer")
	}
	if len(e2.Vmknics) != 1 || e2.Vmknics[0].MTU != 9000 || len(e2.IPv4) != 1 || e2.IPv4[0].Address != "192.168.10.12" {
		t.Errorf("esxcfg-vmknic: %+v %+v", e2.Vmknics, e2.IPv4)
	}
	if len(in.Ignored) != 0 || len(in.Read[1].Other) != 2 || in.Read[1].Other[0].Typed != "ping esx01" || in.Read[1].Other[0].Line != 39 {
		t.Errorf("passed over: %+v %+v", in.Ignored, in.Read[1].Other)
	}
	// Stage-1 kinds fed by other spellings are not reported missing.
	for _, c := range in.Results[1].Captures {
		if c.Kind == catalog.KindIPInterfaceList && c.Status != hostio.StatusCollected {
			t.Errorf("ip interface list reported missing although esxcfg-vmknic -l was read: %+v", c)
		}
	}
}

func TestTranscriptHosts(t *testing.T) {
	// No host anywhere: one host.
	in, err := FromTranscript("~ # esxcli system version get\n   Product: VMware ESXi\n   Version: 7.0.3\n~ # vmkping -I vmk1 -d -s 8972 10.0.0.2\nPING 10.0.0.2 (10.0.0.2): 8972 data bytes\n")
	if err != nil || len(in.Results) != 1 || in.Results[0].Host != DefaultTranscriptHost {
		t.Fatalf("%v %+v", err, in.Results)
	}
	// A bare prompt after a named one, and after "ssh root@HOST": that host.
	text := "[root@esx01:~] esxcli system version get\n   Product: VMware ESXi\n   Version: 7.0.3\n" +
		"# esxcli vm process list\nvm1\n   World ID: 1\n" +
		"$ ssh root@esx02\n~ # esxcli system version get\n   Product: VMware ESXi\n   Version: 8.0.3\n" +
		"> esxcli --server esx03 --username root system version get\n   Product: VMware ESXi\n   Version: 6.7.0\n"
	in, err = FromTranscript(text)
	if err != nil {
		t.Fatal(err)
	}
	fl := facts.Build(in.Results)
	got := map[string]string{}
	for _, h := range fl.Hosts {
		if h.Version != nil {
			got[h.Host] = h.Version.Version
		}
	}
	if len(fl.Hosts) != 3 || got["esx01"] != "7.0.3" || got["esx02"] != "8.0.3" || got["esx03"] != "6.7.0" || len(fl.Hosts[0].VMs) != 1 {
		t.Fatalf("hosts %v, %+v", got, fl.Hosts)
	}
	// No prompts, only echoed commands, inside Markdown fences (a ticket).
	in, err = FromTranscript("Here is what I ran:\n```\nesxcli system version get\n   Product: VMware ESXi\n   Version: 8.0.2\n```\n```\nesxcli vm process list\nesxcli vm process list\n   World ID: 5\n   Display Name: esxcli vm process list\n```\n")
	if err != nil {
		t.Fatal(err)
	}
	fl = facts.Build(in.Results)
	if h := fl.Hosts[0]; h.Version == nil || h.Version.Version != "8.0.2" || len(h.VMs) != 1 || h.VMs[0].DisplayName != "esxcli vm process list" || len(h.Errors) > 0 {
		t.Fatalf("echoed commands: %+v %+v %v", h.Version, h.VMs, h.Errors)
	}
	// Only commands that are not ours: an error naming none of them as a host.
	if _, err := FromTranscript("[root@esx02:~] ping esx01\n[root@esx02:~] uptime\n up 3 days\n"); err == nil {
		t.Fatal("want an error for a transcript without pvrdma-doctor commands")
	}
}

func TestSavedOutputsOtherNames(t *testing.T) {
	dir := t.TempDir()
	host := filepath.Join(dir, "esx07")
	os.MkdirAll(host, 0o755)
	ver := "   Product: VMware ESXi\n   Version: 8.0.3\n"
	os.WriteFile(filepath.Join(host, "localcli_system_version_get.txt"), []byte(ver), 0o644)
	os.WriteFile(filepath.Join(host, "nics.txt"), []byte("[root@esx07:~] esxcfg-nics -l\n"+sampleBody(t, "esxcfg_nics_l__intel_mfd_esxi_icen_bnxtnet.txt")), 0o644)
	os.WriteFile(filepath.Join(host, "notes.txt"), []byte("call the vendor\n"), 0o644)
	in, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	fl := facts.Build(in.Results)
	h := fl.Hosts[0]
	if h.Version == nil || h.Version.Version != "8.0.3" || len(h.NICs) != 16 || len(h.Errors) > 0 {
		t.Fatalf("%+v %+v", h.Version, h.Errors)
	}
	if len(in.Ignored) != 1 || !strings.Contains(in.Ignored[0], "notes.txt") {
		t.Errorf("ignored %v", in.Ignored)
	}
}

// BenchmarkFromTranscript10MB reads a 10 MB pasted session into host
// results (split, recognize every command, assign hosts).
func BenchmarkFromTranscript10MB(b *testing.B) {
	block := messy + "[root@esx03:~] esxcli --formatter=xml network nic list\n" + sampleBody(b, "esxcli_formatter_xml_network_nic_list__warlock_dell_esxi8.txt")
	text := strings.Repeat(block, 10<<20/len(block)+1)
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		in, err := FromTranscript(text)
		if err != nil || len(in.Results) != 3 {
			b.Fatal(err)
		}
	}
}

// A transcript read with other spellings, filtered forms and a legacy
// tool survives a bundle round trip (and redaction) with the same facts.
func TestMessyTranscriptBundleRoundTrip(t *testing.T) {
	in, err := FromTranscript(messy + "[root@esx02:~] esxcli network firewall ruleset list | grep -e pvrdma -e esx02\npvrdma  true\n")
	if err != nil {
		t.Fatal(err)
	}
	want := facts.Build(in.Results)
	b, _ := writeBytes(t, in.Results, false)
	back := loadBytes(t, b)
	got := facts.Build(back.Results)
	for i := range want.Hosts {
		w, g := want.Hosts[i], got.Hosts[i]
		if parse.Signature(w.IPv4) != parse.Signature(g.IPv4) || parse.Signature(w.Vmknics) != parse.Signature(g.Vmknics) ||
			parse.Signature(w.VMs) != parse.Signature(g.VMs) || parse.Signature(w.Rulesets) != parse.Signature(g.Rulesets) {
			t.Errorf("%s: facts changed through the bundle", w.Host)
		}
		if ok1, why1 := w.Available(catalog.KindIPInterfaceList); true {
			if ok2, why2 := g.Available(catalog.KindIPInterfaceList); ok1 != ok2 || why1 != why2 {
				t.Errorf("%s: availability changed: %q -> %q", w.Host, why1, why2)
			}
		}
	}
	// Redacted: the filter naming a host is redacted like the rest.
	rb, _ := writeBytes(t, in.Results, true)
	filtered := 0
	for _, hr := range loadBytes(t, rb).Results {
		for _, c := range hr.Captures {
			if c.Filter != "" {
				filtered++
			}
			if strings.Contains(c.Filter+c.Command+c.Stdout, "esx02") {
				t.Errorf("host name left in a redacted capture: %+v", c)
			}
		}
	}
	if filtered == 0 {
		t.Error("no filtered capture in the redacted bundle")
	}
}

// A command that failed on the host (an older release without the rdma
// namespace, a missing legacy tool) is a failed command with its message,
// not an unreadable output.
func TestTranscriptFailedCommands(t *testing.T) {
	in, err := FromTranscript("[root@esx60:~] esxcli rdma device list\nError: Unknown command or namespace rdma device list\n" +
		"[root@esx60:~] esxcfg-vmknic -l\n-sh: esxcfg-vmknic: not found\n" +
		"[root@esx60:~] esxcli system version get\n   Product: VMware ESXi\n   Version: 6.0.0\n")
	if err != nil {
		t.Fatal(err)
	}
	fl := facts.Build(in.Results)
	h := fl.Hosts[0]
	if len(h.Errors) != 0 || h.Version == nil {
		t.Fatalf("errors %v version %+v", h.Errors, h.Version)
	}
	ok, why := h.Available(catalog.KindRDMADeviceList)
	if ok || !strings.Contains(why, "failed") || !strings.Contains(why, "Unknown command or namespace") {
		t.Errorf("rdma device list: %v %s", ok, why)
	}
}
