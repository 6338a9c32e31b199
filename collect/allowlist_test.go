package collect

import (
	"context"
	mrand "math/rand"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/quick"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// hostileFragments are things a compromised or odd host could print where
// stage 1 values are read.
var hostileFragments = []string{
	"vmrdma0", "vmnic4", "vmk1", "1001474360_0/", "12_3", "192.168.50.11", "defaultTcpipStack",
	";", "|", "&", "$(reboot)", "`id`", "\n", "\r", "\x00", "'", "\"", "\\", " ", "\t", "../", "/",
	"reboot", "esxcli system shutdown poweroff", "-x", "--", "*", "?", "vmrdma0;reboot", "vmnic4 -x",
	"vmk1 -S x", "999999999999999", "1_2_3", "vmrdma99999", "::1", "256.1.1.1", "1.2.3.4.5",
	"Name", "-----", "Paired Uplink", "Active", "4096", "vmnic4 && reboot", "vmk1\nvmk2",
}

func randomText(r *rand.Rand) string {
	var b strings.Builder
	for n := r.IntN(40); n > 0; n-- {
		if r.IntN(4) == 0 {
			b.WriteByte(byte(r.IntN(256)))
			continue
		}
		b.WriteString(hostileFragments[r.IntN(len(hostileFragments))])
		if r.IntN(3) == 0 {
			b.WriteString("  ")
		}
	}
	return b.String()
}

// realistic wraps hostile values into the tables the parsers read, so that
// they reach the planners rather than failing to parse.
func realisticOutputs(r *rand.Rand) map[hostio.Kind]string {
	v := func() string { return hostileFragments[r.IntN(len(hostileFragments))] + randomText(r)[:0] }
	pick := func() string {
		if r.IntN(2) == 0 {
			return v()
		}
		return strings.ReplaceAll(randomText(r), "\n", " ")
	}
	return map[hostio.Kind]string{
		catalog.KindPVRDMADeviceLs: pick() + "/\n" + pick() + "_" + pick() + "/\n1001_0/\n",
		catalog.KindRDMADeviceList: "Name     Driver      State   MTU   Speed     Paired Uplink  Description\n" +
			"-------  ----------  ------  ----  --------  -------------  -----------\n" +
			pick() + "  nmlx5_rdma  Active  4096  100 Gbps  " + pick() + "  x\n" +
			"vmrdma0  nmlx5_rdma  Active  4096  100 Gbps  vmnic4  x\n",
		catalog.KindPVRDMAVmknicOpt: "   Path: /Net/PVRDMAVmknic\n   Type: string\n   String Value: " + pick() + "\n",
		catalog.KindRDMAVmknicList:  "Device   Vmknic  Netstack\n-------  ------  ----------------\nvmrdma0  " + pick() + "  " + pick() + "\n",
		catalog.KindIPInterfaceList: "vmk1\n   Name: vmk1\n   Netstack Instance: " + pick() + "\n",
		catalog.KindVMProcessList: "vm\n   World ID: 1001\n   Display Name: x\n   Config File: /vmfs/volumes/ds/" +
			strings.ReplaceAll(pick(), "\n", " ") + "/" + strings.ReplaceAll(pick(), "\n", " ") + ".vmx\n",
		catalog.KindIPv4Get: "Name  IPv4 Address  IPv4 Netmask   IPv4 Broadcast  Address Type  Gateway  DHCP DNS\n" +
			"----  ------------  -------------  --------------  ------------  -------  --------\n" +
			pick() + "  " + pick() + "  255.255.255.0  192.168.50.255  STATIC  0.0.0.0  false\n",
	}
}

// Whatever hosts print, every command the collector plans (stage 2 from
// stage 1 output, stage 3 probes from peers' published addresses) passes
// the allowlist and carries no shell metacharacter.
func TestPlannedCommandsAlwaysAllowlisted(t *testing.T) {
	planned, vmx := 0, 0
	check := func(seed uint64) bool {
		r := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
		var hosts [][]hostio.Capture
		for h := 0; h < 3; h++ {
			var caps []hostio.Capture
			outs := realisticOutputs(r)
			for _, c := range stage1 {
				out, ok := outs[c.Kind]
				if !ok || r.IntN(5) == 0 {
					out = randomText(r)
				}
				caps = append(caps, hostio.Capture{Command: c.Line, Kind: c.Kind, Stdout: out, Status: hostio.StatusCollected})
			}
			hosts = append(hosts, caps)
		}
		names := []string{"a", "b", "c"}
		var targets []hostio.Target
		for _, n := range names {
			targets = append(targets, hostio.Target{Name: n})
		}
		board := newProbeBoard(targets, nil, true)
		var cmds []Command
		for i, caps := range hosts {
			s2, _ := planStage2(context.Background(), caps, DefaultMaxStage2)
			cmds = append(cmds, s2...)
			board.publish(names[i], probeSourceOf(caps))
		}
		for _, n := range names {
			pairs, _ := board.planFor(n, Options{ProbeMode: ProbesAll, ProbePeers: 3})
			for _, p := range pairs {
				// The configured size and every size a search can try.
				for _, size := range []int{ProbeSize(p.Src.MTU), StandardPayload, MinPayload, 1, MaxPayload} {
					for _, count := range []int{RTTPackets, 1} {
						if c, err := ProbeLine(p.Src, p.Dst.IP, size, count); err == nil {
							cmds = append(cmds, c)
						}
					}
				}
			}
		}
		for _, c := range cmds {
			planned++
			if err := CheckAllowed(c.Line); err != nil {
				t.Errorf("seed %d: planned a command outside the allowlist: %v", seed, err)
				return false
			}
			line := c.Line
			if c.Kind == catalog.KindVMX {
				// The one quoted argument: literal to the shell when it
				// holds no quote, backslash or control character.
				arg, ok := strings.CutPrefix(line, "cat '")
				arg, ok2 := strings.CutSuffix(arg, "'")
				if !ok || !ok2 || strings.ContainsAny(arg, "'\\\n\r\t\x00") || !strings.HasPrefix(arg, "/vmfs/volumes/") {
					t.Errorf("seed %d: suspicious .vmx line %q", seed, line)
					return false
				}
				vmx++
				line = "cat x"
			}
			if strings.ContainsAny(line, ";|&$`<>\\'\"(){}*?!#~\n\r\t") || catalog.KindOf(c.Line) != c.Kind {
				t.Errorf("seed %d: suspicious planned line %q (kind %s, KindOf %s)", seed, c.Line, c.Kind, catalog.KindOf(c.Line))
				return false
			}
		}
		return true
	}
	// A fixed seed: the counts below are about the generator, and must not
	// depend on the run's luck.
	if err := quick.Check(check, &quick.Config{MaxCount: 3000, Rand: mrand.New(mrand.NewSource(1))}); err != nil {
		t.Fatal(err)
	}
	if vmx < 50 {
		t.Errorf("only %d .vmx reads planned: the generator does not reach the .vmx planner", vmx)
	}
	if planned < 3000 {
		t.Errorf("only %d commands planned over all runs: the generator does not reach the planners", planned)
	}
}

// The collector itself refuses a non-allowlisted command and never passes
// it to the transport.
func TestCollectorNeverSendsNonAllowlisted(t *testing.T) {
	f := &fakeRunner{hosts: map[string]map[string]string{"esx01": hostOutputs("")}}
	conn, _ := f.Open(context.Background(), hostio.Target{Name: "esx01"})
	opts := Options{Runner: f}
	opts.defaults()
	h := &hostRun{opts: opts, conn: conn, target: hostio.Target{Name: "esx01"}, res: &hostio.HostResult{}, sem: make(chan struct{}, 1)}
	c := h.run(context.Background(), Command{Kind: catalog.KindNICGet, Line: "esxcli network nic get -n vmnic4; reboot", Stage: 2})
	if c.Status != hostio.StatusSkipped || !strings.Contains(c.Error, "allowlist") {
		t.Errorf("got %+v", c)
	}
	if len(f.sent) != 0 {
		t.Errorf("the transport received %q", f.sent)
	}
}

// Every stage 2/3 template shown by --dry-run matches a constructor's
// output and the allowlist.
func TestTemplatesMatchConstructors(t *testing.T) {
	kinds := map[hostio.Kind]bool{}
	for _, tp := range Templates() {
		kinds[tp.Kind] = true
		if err := CheckAllowed(tp.Example.Line); err != nil {
			t.Errorf("%s example: %v", tp.Kind, err)
		}
		if tp.Example.Kind != tp.Kind || tp.Example.Stage != tp.Stage || catalog.KindOf(tp.Example.Line) != tp.Kind {
			t.Errorf("%s: example %+v does not match the template", tp.Kind, tp.Example)
		}
		// The template's fixed words appear in the example, in order.
		rest := tp.Example.Line
		for _, w := range strings.Fields(tp.Line) {
			if strings.ContainsAny(w, "<>[]") {
				continue
			}
			i := strings.Index(rest, w)
			if i < 0 {
				t.Errorf("%s: template word %q not in example %q", tp.Kind, w, tp.Example.Line)
				break
			}
			rest = rest[i+len(w):]
		}
	}
	for _, k := range []hostio.Kind{catalog.KindPVRDMAProperties, catalog.KindRDMAStats, catalog.KindNICGet, catalog.KindDCBStatus, catalog.KindVmkping} {
		if !kinds[k] {
			t.Errorf("no template for %s", k)
		}
	}
}
