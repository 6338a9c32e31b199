package report

import (
	"bytes"
	"context"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// pathFleet scans n modelled hosts (ring probes) whose esx0002 switch
// port carries 1500-byte frames.
func pathFleet(t *testing.T, n int) ([]hostio.HostResult, *facts.Fleet) {
	t.Helper()
	fl, _, err := fixtures.PathLab(n, map[int]int{1: 1500})
	if err != nil {
		t.Fatal(err)
	}
	var ts []hostio.Target
	for _, h := range fl.Hosts {
		ts = append(ts, hostio.Target{Name: h.Name})
	}
	res := collect.Collect(context.Background(), ts, collect.Options{Runner: fl.Runner(), Probes: true})
	f := facts.Build(res)
	return res, &f
}

// The matrix of a small fleet in text and HTML; a wide fleet lists the
// pairs that are not ok instead of an unreadable matrix.
func TestPathsMatrixAndWideFleet(t *testing.T) {
	_, f := pathFleet(t, 5)
	p := BuildPaths(f)
	if p == nil || len(p.Pairs) != 15 || p.FleetMinMTU != 1500 {
		t.Fatalf("paths: %+v", p)
	}
	if x := p.Pair("esx0001", "esx0002"); x == nil || x.Status != PairBlocked || !x.Exact || x.RDMAMTU != 1024 || x.Cell() != "1500!" {
		t.Errorf("esx0001 -> esx0002: %+v", x)
	}
	if x := p.Pair("esx0001", "esx0005"); x != nil {
		t.Errorf("ring of 3 probed esx0001 -> esx0005: %+v", x)
	}
	var b bytes.Buffer
	WritePathsText(&b, p)
	for _, want := range []string{"esx0001         -   1500!    9000    9000       .", "esx0002 -> esx0003 (192.168.50.7): blocked, path MTU 1500 of 9000 configured (RDMA MTU 1024)"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("text lacks %q:\n%s", want, b.String())
		}
	}

	res, f := pathFleet(t, MatrixMaxHosts+10)
	p = BuildPaths(f)
	b.Reset()
	WritePathsText(&b, p)
	out := b.String()
	if !strings.Contains(out, "50 hosts, 150 measured pairs: too many for a matrix") || strings.Contains(out, "from\\to") ||
		strings.Count(out, ": blocked, path MTU 1500") != 6 {
		t.Errorf("wide fleet text:\n%s", out)
	}
	r := Build(res, f, checks.Run(f), nil, Meta{Source: "test"})
	b.Reset()
	if err := WriteHTML(&b, r); err != nil {
		t.Fatal(err)
	}
	if h := b.String(); !strings.Contains(h, "too many for a matrix") || strings.Contains(h, `class="matrix"`) || strings.Count(h, "<td>blocked</td>") != 6 {
		t.Errorf("wide fleet HTML has no pair list or still a matrix")
	}
}
