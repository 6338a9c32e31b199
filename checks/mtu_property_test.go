package checks

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// MTUStatements are the path MTUs the findings of a run state, by the
// path they state it for: a measured pair ("esx01|vmk1 -> esx02", from
// PATH_MTU_BLOCKED) or a host's PVRDMA data path ("esx01|data path", from
// ACTIVE_MTU_ABOVE_PATH, LOW_MTU and MTU_MISMATCH). Each value is the
// largest frame the finding says the path carries.
type mtuStatement struct {
	rule string
	mtu  int
}

var (
	reCarriesPair = regexp.MustCompile(`carries (?:at least )?([0-9]+)-byte frames`)
	reCarriesHost = regexp.MustCompile(`(?:data path carries (?:only |at least )?|data path MTU is )([0-9]+)`)
	reVmknicSet   = regexp.MustCompile(`esxcli network ip interface set -i \S+ -m ([0-9]+)`)
)

func mtuStatements(fs []Finding) map[string][]mtuStatement {
	out := map[string][]mtuStatement{}
	for _, f := range fs {
		if f.Status != StatusFail {
			continue
		}
		var re *regexp.Regexp
		key := f.Host + "|data path"
		switch f.RuleID {
		case "PATH_MTU_BLOCKED":
			re, key = reCarriesPair, f.Host+"|"+f.Subject
		case "ACTIVE_MTU_ABOVE_PATH", "LOW_MTU", "MTU_MISMATCH":
			re = reCarriesHost
		default:
			continue
		}
		if m := re.FindStringSubmatch(f.Message); m != nil {
			n, _ := strconv.Atoi(m[1])
			out[key] = append(out[key], mtuStatement{f.RuleID, n})
		}
	}
	return out
}

// checkOneMTUPerPath fails when two findings state different MTUs for one
// path, or when a host's data path MTU is not what its own blocked pairs
// from the data vmknic (vmk1 here) prove (their smallest).
func checkOneMTUPerPath(fs []Finding) []string {
	var errs []string
	st := mtuStatements(fs)
	pairMin := map[string]int{}
	for key, ss := range st {
		for _, s := range ss[1:] {
			if s.mtu != ss[0].mtu {
				errs = append(errs, fmt.Sprintf("%s: %s says %d, %s says %d", key, ss[0].rule, ss[0].mtu, s.rule, s.mtu))
			}
		}
		if host, subject, _ := strings.Cut(key, "|"); strings.HasPrefix(subject, "vmk1 -> ") {
			if m, ok := pairMin[host]; !ok || ss[0].mtu < m {
				pairMin[host] = ss[0].mtu
			}
		}
	}
	// Both directions of a pair cross the same links: one path, one MTU.
	both := map[string][]string{}
	for key, ss := range st {
		host, subject, _ := strings.Cut(key, "|")
		if _, to, ok := strings.Cut(subject, " -> "); ok {
			k := min(host, to) + "<->" + max(host, to)
			both[k] = append(both[k], fmt.Sprintf("%s %d", key, ss[0].mtu))
		}
	}
	for k, vs := range both {
		if len(vs) == 2 && strings.Fields(vs[0])[len(strings.Fields(vs[0]))-1] != strings.Fields(vs[1])[len(strings.Fields(vs[1]))-1] {
			errs = append(errs, fmt.Sprintf("%s: the two directions state %s and %s", k, vs[0], vs[1]))
		}
	}
	for host, m := range pairMin {
		for _, s := range st[host+"|data path"] {
			if s.rule != "MTU_MISMATCH" && s.mtu != m {
				errs = append(errs, fmt.Sprintf("%s: %s states a data path MTU of %d, its blocked pairs prove %d", host, s.rule, s.mtu, m))
			}
		}
	}
	return errs
}

// randomMTUFleet is two hosts whose physical path carries frames of at
// most pathMTU bytes, probed as a scan and an admin do: the scan's two
// sizes (1472, 8972), sometimes a search around the path MTU, sometimes
// an admin's saved `vmkping -d -s 9000`; each probe's outcome is what
// ESXi does: a frame above the vmknic's MTU is refused by the sending
// host, one above the path's is lost, the others get replies.
func randomMTUFleet(r *rand.Rand) ([]facts.Host, int, int) {
	pathMTU := []int{1500, 4000, 8982, 9000, 1500 + r.IntN(7500)}[r.IntN(5)]
	vmkMTU := []int{1500, 9000, 9000}[r.IntN(3)]
	active := []int{1024, 2048, 4096}[r.IntN(3)]
	hosts := two(func(a, b *facts.Host) {
		for _, x := range []struct {
			h    *facts.Host
			peer string
		}{{a, "192.168.50.12"}, {b, "192.168.50.11"}} {
			h := x.h
			h.Vmknics[1].MTU = vmkMTU
			h.Vmknics[1].Record = rec(cmdIfList, "Name", "vmk1", "VDS Name", "rdma-dvs", "MTU", strconv.Itoa(vmkMTU))
			setProp(h, "Active MTU", strconv.Itoa(active))
			probe := func(count, payload int) {
				frame := payload + 28
				switch {
				case frame > vmkMTU:
					addProbe(h, x.peer, count, payload, "refused")
				case frame > pathMTU:
					addProbe(h, x.peer, count, payload, "lost")
				default:
					addProbe(h, x.peer, count, payload, "ok")
				}
			}
			probe(3, 1472)
			probe(3, 8972)
			if r.IntN(2) == 0 {
				for _, f := range []int{pathMTU, pathMTU + 1, 1500 + r.IntN(7500)} {
					if f-28 != 1472 && f-28 != 8972 && f <= 9000 {
						probe(1, f-28)
					}
				}
			}
			if r.IntN(3) == 0 {
				probe(3, 9000)
			}
		}
	})()
	return hosts, pathMTU, active
}

// One data-path MTU fact per host pair: over random probe sets (the
// scan's, a search's, an admin's), no two findings state different MTUs
// for the same path, no finding claims the path carries more than it
// does, no adapter whose frames fit the measured path is told they are
// dropped, and no step proposes a vmknic MTU above 9000.
func TestOneMTUPerPathOnRandomHosts(t *testing.T) {
	both := 0 // runs where a pair and its host's data path both state an MTU
	for seed := uint64(1); seed <= 300; seed++ {
		r := rand.New(rand.NewPCG(seed, 40))
		hosts, pathMTU, active := randomMTUFleet(r)
		res := Run(&facts.Fleet{Hosts: hosts})
		errs := checkOneMTUPerPath(res.Findings)
		st := mtuStatements(res.Findings)
		if len(st["esx01|vmk1 -> esx02"]) > 0 && len(st["esx01|data path"]) > 0 {
			both++
		}
		for key, ss := range st {
			for _, s := range ss {
				if s.rule != "MTU_MISMATCH" && s.mtu > pathMTU {
					errs = append(errs, fmt.Sprintf("%s: %s says the path carries %d, it carries %d", key, s.rule, s.mtu, pathMTU))
				}
			}
		}
		for _, f := range res.Findings {
			if f.Status != StatusFail {
				continue
			}
			for _, m := range reVmknicSet.FindAllStringSubmatch(f.Fix, -1) {
				if n, _ := strconv.Atoi(m[1]); n > facts.MaxVmknicMTU {
					errs = append(errs, fmt.Sprintf("%s proposes vmknic MTU %d", f.RuleID, n))
				}
			}
			if f.RuleID == "ACTIVE_MTU_ABOVE_PATH" && active+96 <= pathMTU && strings.Contains(f.Message, "are dropped") {
				errs = append(errs, fmt.Sprintf("ACTIVE_MTU_ABOVE_PATH says RDMA MTU %d's frames are dropped on a %d-byte path: %s", active, pathMTU, f.Message))
			}
		}
		if len(errs) > 0 {
			t.Fatalf("seed %d (path %d, active %d):\n  %s", seed, pathMTU, active, strings.Join(errs, "\n  "))
		}
	}
	if both < 20 {
		t.Errorf("only %d of 300 runs stated a pair's and its host's MTU: the property was hardly tested", both)
	}
}
