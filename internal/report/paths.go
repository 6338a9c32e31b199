package report

import (
	"fmt"
	"io"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// Paths is the measured path matrix of a run: every ordered pair of hosts
// the probes measured (report JSON "paths", the HTML matrix, `paths`).
type Paths struct {
	// Hosts are the hosts of the matrix, sorted (rows: from, columns: to).
	Hosts []string `json:"hosts"`
	// FleetMinMTU is the smallest path MTU measured between two hosts (0:
	// none reachable), and MinPair the pair it was measured on.
	FleetMinMTU int    `json:"fleet_min_mtu"`
	MinPair     string `json:"fleet_min_pair,omitempty"`
	// NotFabric says which probes did not cross the RDMA fabric (a vmknic
	// off the PVRDMA vDS, such as vmk0 on vSwitch0 in VMware's guides) and
	// that what they measured is not the RDMA fabric's path MTU ("" when
	// every pair crossed it).
	NotFabric string `json:"not_fabric,omitempty"`
	Pairs     []Pair `json:"pairs"`

	index map[[2]string]int // (from, to) -> index in Pairs, made on first use
}

// MatrixMaxHosts is the most hosts a matrix is drawn for in text and HTML
// (a wider one is unreadable: the pairs that are not ok are listed instead).
const MatrixMaxHosts = 40

// Pair is one measured ordered pair.
type Pair struct {
	From   string `json:"from"`
	To     string `json:"to"` // the host owning Target ("" when none of the run does)
	Vmknic string `json:"vmknic,omitempty"`
	Target string `json:"target"`
	// Status is ok, blocked (carries less than configured: frames lost on
	// the way), refused (the sender's own vmknic MTU refused the larger
	// sizes), unreachable (no size got a reply) or lossy (some packets of
	// the configured size lost).
	Status string `json:"status"`
	// ConfiguredMTU is the frame the path is configured for, PathMTU the
	// largest that got a reply (payload + 28; 0: none), Exact whether the
	// next size up was lost (measured, not bounded).
	ConfiguredMTU int  `json:"configured_mtu"`
	PathMTU       int  `json:"path_mtu"`
	Exact         bool `json:"exact"`
	// Rounds is how many rounds of tries the path MTU search took (0: the
	// configured size passed; each round waits at most once for a lost
	// reply).
	Rounds int `json:"rounds"`
	// RDMAMTU is the largest RoCE MTU the path carries (4096 for 9000; 0
	// when the probes did not cross the RDMA fabric: Fabric false).
	RDMAMTU int `json:"rdma_mtu"`
	// Network is where the probes ran ("vmk1 on rdma-dvs (RDMA uplink
	// vmnic4)", "vmk0 on vSwitch0 (uplinks vmnic0)"); Fabric whether both
	// ends' vmknics sit on their PVRDMA vDS: only then is it the RDMA
	// fabric's path.
	Network     string   `json:"network,omitempty"`
	Fabric      bool     `json:"fabric"`
	RTTMinMs    *float64 `json:"rtt_min_ms,omitempty"`
	RTTAvgMs    *float64 `json:"rtt_avg_ms,omitempty"`
	RTTMaxMs    *float64 `json:"rtt_max_ms,omitempty"`
	LossPercent float64  `json:"loss_percent"`
	// Probes are the probe command lines, in payload order (evidence).
	Probes []string `json:"probes"`
}

// Pair statuses.
const (
	PairOK          = "ok"
	PairBlocked     = "blocked"
	PairRefused     = "refused"
	PairUnreachable = "unreachable"
	PairLossy       = "lossy"
)

// BuildPaths derives the matrix from a fleet's measured pairs (nil when
// no probe was run).
func BuildPaths(fleet *facts.Fleet) *Paths {
	if fleet == nil {
		return nil
	}
	dp := fleet.DataPath()
	pairs := dp.Pairs()
	if len(pairs) == 0 {
		return nil
	}
	p := &Paths{}
	seen := map[string]bool{}
	for _, h := range fleet.Hosts {
		if !seen[h.Host] {
			seen[h.Host] = true
			p.Hosts = append(p.Hosts, h.Host)
		}
	}
	sort.Strings(p.Hosts)
	// offEnd: the hosts whose vmknic is off the RDMA fabric, and where
	// their probes ran.
	offEnd := map[string]string{}
	for _, pp := range pairs {
		x := Pair{From: pp.From, To: pp.To, Vmknic: pp.Vmknic, Target: pp.Target, ConfiguredMTU: pp.Configured, PathMTU: pp.MTU,
			Exact: pp.Exact, Rounds: pp.Rounds, LossPercent: pp.Loss, Network: pp.Net.String(), Fabric: pp.Net.Fabric()}
		if x.Fabric {
			x.RDMAMTU = facts.RDMAMTUFor(pp.MTU)
		} else {
			// The ends off the fabric: the source's network is known, a
			// peer's only from its own probes.
			if !pp.Net.DataPath {
				offEnd[pp.From] = x.Network
			}
			if _, ok := offEnd[orIP(pp.To, pp.Target)]; !pp.Net.PeerDataPath && !ok {
				offEnd[orIP(pp.To, pp.Target)] = ""
			}
		}
		switch {
		case !pp.Reachable():
			x.Status = PairUnreachable
		case pp.Blocked():
			x.Status = PairBlocked
		case pp.Configured > pp.MTU && pp.Refused:
			x.Status = PairRefused
		case pp.Loss > 0 && pp.First != nil && !pp.First.Failed():
			x.Status = PairLossy
		default:
			x.Status = PairOK
		}
		if pp.HasRTT {
			lo, avg, hi := pp.RTTMin, pp.RTTAvg, pp.RTTMax
			x.RTTMinMs, x.RTTAvgMs, x.RTTMaxMs = &lo, &avg, &hi
		}
		for _, pr := range pp.Probes {
			x.Probes = append(x.Probes, pr.Command)
		}
		p.Pairs = append(p.Pairs, x)
	}
	sort.SliceStable(p.Pairs, func(i, j int) bool {
		if p.Pairs[i].From != p.Pairs[j].From {
			return p.Pairs[i].From < p.Pairs[j].From
		}
		return p.Pairs[i].To+p.Pairs[i].Target < p.Pairs[j].To+p.Pairs[j].Target
	})
	if m, at := dp.MinPathMTU(); at != nil {
		p.FleetMinMTU = m
		p.MinPair = at.From + " -> " + orIP(at.To, at.Target)
	}
	if len(offEnd) > 0 {
		byNet := map[string][]string{}
		var nets []string
		for h, n := range offEnd {
			if byNet[n] == nil {
				nets = append(nets, n)
			}
			byNet[n] = append(byNet[n], h)
		}
		sort.Strings(nets)
		var ends []string
		for _, n := range nets {
			hs := byNet[n]
			sort.Strings(hs)
			e := strings.Join(hs, ", ")
			if n != "" {
				e += " (probed from " + n + ")"
			}
			ends = append(ends, e)
		}
		what := "Not every probe crossed the RDMA fabric"
		if countFabric(p.Pairs) == 0 {
			what = "No probe crossed the RDMA fabric"
		}
		p.NotFabric = fmt.Sprintf("%s: the paths from and to %s, whose vmknic is not on a PVRDMA vDS with an RDMA uplink, are another "+
			"network's; the RDMA fabric's path MTU is not measured by them", what, strings.Join(ends, "; "))
	}
	return p
}

func countFabric(ps []Pair) int {
	n := 0
	for _, x := range ps {
		if x.Fabric {
			n++
		}
	}
	return n
}

func orIP(host, ip string) string {
	if host != "" {
		return host
	}
	return ip
}

// Pair returns the measured pair from -> to (nil when not probed).
func (p *Paths) Pair(from, to string) *Pair {
	if p.index == nil {
		p.index = make(map[[2]string]int, len(p.Pairs))
		for i := range p.Pairs {
			p.index[[2]string{p.Pairs[i].From, p.Pairs[i].To}] = i
		}
	}
	if i, ok := p.index[[2]string{from, to}]; ok {
		return &p.Pairs[i]
	}
	return nil
}

// NotOK returns the pairs whose status is not ok.
func (p *Paths) NotOK() []Pair {
	var bad []Pair
	for _, x := range p.Pairs {
		if x.Status != PairOK {
			bad = append(bad, x)
		}
	}
	return bad
}

// Cell is a pair's short text in a matrix: the path MTU with a mark for
// what is wrong ("9000", "1500!" blocked, "1500<" refused by the sender,
// "--" unreachable, "9000~" lossy; "." not probed).
func (x *Pair) Cell() string {
	if x == nil {
		return "."
	}
	switch x.Status {
	case PairUnreachable:
		return "--"
	case PairBlocked:
		return fmt.Sprint(x.PathMTU, "!")
	case PairRefused:
		return fmt.Sprint(x.PathMTU, "<")
	case PairLossy:
		return fmt.Sprint(x.PathMTU, "~")
	}
	return fmt.Sprint(x.PathMTU)
}

// WritePathsText writes the matrix as a hosts x hosts table of path MTUs
// (rows: from, columns: to), a legend, then the pairs that are not ok.
func WritePathsText(w io.Writer, p *Paths) {
	if p == nil || len(p.Pairs) == 0 {
		fmt.Fprintln(w, "No path probes in this input (scan with --probes ring or all).")
		return
	}
	hosts := make([]string, len(p.Hosts))
	width := 4
	for i, h := range p.Hosts {
		hosts[i] = textsafe.Line(h)
		width = max(width, len(hosts[i]))
	}
	colW := 6
	for _, h := range hosts {
		colW = max(colW, len(h)+1)
	}
	fmt.Fprintf(w, "Path MTU (bytes) from row to column; fleet minimum %d (%s)\n", p.FleetMinMTU, textsafe.Line(p.MinPair))
	if p.NotFabric != "" {
		fmt.Fprintln(w, textsafe.Line(p.NotFabric)+".")
	}
	fmt.Fprintln(w)
	if len(p.Hosts) > MatrixMaxHosts {
		fmt.Fprintf(w, "%d hosts, %d measured pairs: too many for a matrix (more than %d hosts); the pairs that are not ok follow (-o json has them all).\n",
			len(p.Hosts), len(p.Pairs), MatrixMaxHosts)
		writeNotOK(w, p)
		return
	}
	fmt.Fprintf(w, "%-*s", width+2, "from\\to")
	for _, h := range hosts {
		fmt.Fprintf(w, "%*s", colW, h)
	}
	fmt.Fprintln(w)
	for i, from := range p.Hosts {
		fmt.Fprintf(w, "%-*s", width+2, hosts[i])
		for _, to := range p.Hosts {
			c := ""
			if from == to {
				c = "-"
			} else {
				c = p.Pair(from, to).Cell()
			}
			fmt.Fprintf(w, "%*s", colW, c)
		}
		fmt.Fprintln(w)
	}
	fmt.Fprintln(w, "\n! blocked (frames lost on the way)  < refused by the sender's vmknic MTU  -- unreachable  ~ lossy  . not probed")
	writeNotOK(w, p)
}

// writeNotOK lists the pairs that are not ok, or says there are none.
func writeNotOK(w io.Writer, p *Paths) {
	bad := p.NotOK()
	if len(bad) == 0 {
		fmt.Fprintln(w, "\nEvery probed path carries its configured MTU.")
		return
	}
	fmt.Fprintln(w)
	for _, x := range bad {
		fmt.Fprintf(w, "%s -> %s (%s): %s, path MTU %d of %d configured%s (%s)%s\n", textsafe.Line(x.From), textsafe.Line(orIP(x.To, x.Target)),
			textsafe.Line(x.Target), x.Status, x.PathMTU, x.ConfiguredMTU, exactText(x), textsafe.Line(x.RDMAText()), rttText(x))
	}
}

// RDMAText says what a pair's path MTU means for RDMA: "RDMA MTU 4096",
// or, for probes that did not cross the RDMA fabric, where they ran.
func (x Pair) RDMAText() string {
	if x.Fabric {
		return fmt.Sprintf("RDMA MTU %d", x.RDMAMTU)
	}
	return "not the RDMA fabric: from " + x.Network
}

func exactText(x Pair) string {
	if x.Exact || x.PathMTU == 0 {
		return ""
	}
	return " (at least)"
}

func rttText(x Pair) string {
	if x.RTTAvgMs == nil {
		return ""
	}
	return fmt.Sprintf(", RTT %.3f/%.3f/%.3f ms", *x.RTTMinMs, *x.RTTAvgMs, *x.RTTMaxMs)
}

// matrixRows are the HTML matrix's rows.
type matrixRow struct {
	Host  string
	Cells []matrixCell
}

type matrixCell struct {
	Text, Class, Title string
}

func (p *Paths) matrix() []matrixRow {
	if p == nil || len(p.Hosts) > MatrixMaxHosts {
		return nil
	}
	var rows []matrixRow
	for _, from := range p.Hosts {
		row := matrixRow{Host: from}
		for _, to := range p.Hosts {
			c := matrixCell{Text: "-", Class: "self"}
			if from != to {
				x := p.Pair(from, to)
				c = matrixCell{Text: x.Cell(), Class: mtuClass(x)}
				if x != nil {
					c.Title = fmt.Sprintf("%s -> %s: %s, path MTU %d of %d%s", from, to, x.Status, x.PathMTU, x.ConfiguredMTU, rttText(*x))
				}
			}
			row.Cells = append(row.Cells, c)
		}
		rows = append(rows, row)
	}
	return rows
}

// mtuClass colours a cell by path MTU and status.
func mtuClass(x *Pair) string {
	switch {
	case x == nil:
		return "none"
	case x.Status == PairUnreachable || x.Status == PairBlocked:
		return "critical"
	case x.Status != PairOK:
		return "warning"
	case x.PathMTU >= 9000:
		return "jumbo"
	}
	return "std"
}
