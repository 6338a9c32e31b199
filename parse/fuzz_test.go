package parse

import (
	"errors"
	"strings"
	"testing"
)

// seed adds every testdata sample (header stripped) and a few variants.
func seed(f *testing.F) {
	for _, body := range samples(f, "") {
		f.Add(body)
		f.Add(strings.ReplaceAll(body, "\n", "\r\n"))
	}
	f.Add(rdmaList)
	f.Add(dcbSample)
	f.Add(transcript)
	f.Add("")
	f.Add("PVRDMA Device Properties {\nActive MTU:1024\n}\n")
	f.Add("[{\"Name\": \"vmnic0\", \"MTU\": 1500, \"DriverInfo\": {\"Driver\": \"ixgben\"}}]\n")
	f.Add("Name,PCIDevice,Driver,MTU,\nvmnic0,0000:18:00.0,ixgben,1500,\n")
	f.Add("\x1b[32m[root@esx01:~]\x1b[0m esxcli network nic list\n\u00a0\u00a0\u00a0Name: vmnic0\n")
}

// checkErr asserts a parser error is a *Error whose line exists, or a
// *PartialError whose skipped lines exist (it reports true then: the facts
// returned with it are to be checked).
func checkErr(t *testing.T, text string, err error) (partial bool) {
	t.Helper()
	if sk, ok := Skipped(err); ok {
		if len(sk) == 0 {
			t.Fatal("partial error without skipped parts")
		}
		for _, s := range sk {
			if s.Line < 1 || s.Line > len(splitLines(text)) {
				t.Fatalf("skipped line %d outside the %d-line input", s.Line, len(splitLines(text)))
			}
		}
		return true
	}
	var pe *Error
	if !errors.As(err, &pe) {
		t.Fatalf("error is %T, not *parse.Error: %v", err, err)
	}
	if pe.Line < 0 || pe.Line > len(splitLines(text))+1 {
		t.Fatalf("error line %d outside the %d-line input", pe.Line, len(splitLines(text)))
	}
	return false
}

// checkRef asserts that evidence points at a real line holding its text.
func checkRef(t *testing.T, text string, r Ref) {
	t.Helper()
	ls := splitLines(text)
	if r.Line < 1 || r.Line > len(ls) {
		t.Fatalf("ref line %d outside the %d-line input", r.Line, len(ls))
	}
	if ls[r.Line-1].text != r.Text {
		t.Fatalf("ref line %d text %q, input has %q", r.Line, r.Text, ls[r.Line-1].text)
	}
}

// evidence is a Ref itself: promoted to every fact type that embeds one,
// it gives the fuzz helpers each fact's evidence (NIC.evidence).
func (r Ref) evidence() Ref { return r }

func checkRecord(t *testing.T, text string, r Record) {
	t.Helper()
	seen := map[string]bool{}
	for k, f := range r.All() {
		if seen[k] {
			t.Fatalf("record key %q twice", k)
		}
		seen[k] = true
		checkRef(t, text, f.Ref)
	}
	for _, items := range r.Nested {
		for _, it := range items {
			checkRecord(t, text, it)
		}
	}
}

// fuzzList fuzzes a list parser: no panic, errors are *Error, every fact
// points at a real line.
func fuzzList[T any](f *testing.F, p func(string) ([]T, error), ref func(T) Ref) {
	seed(f)
	fuzzListBody(f, p, ref)
}

// fuzzListBody is fuzzList after seeding.
func fuzzListBody[T any](f *testing.F, p func(string) ([]T, error), ref func(T) Ref) {
	f.Fuzz(func(t *testing.T, text string) {
		v, err := p(text)
		if err != nil && !checkErr(t, text, err) {
			if v != nil {
				t.Fatalf("facts returned with an error: %v", v)
			}
			return
		}
		for _, x := range v {
			checkRef(t, text, ref(x))
		}
	})
}

func fuzzOne[T any](f *testing.F, p func(string) (T, error), check func(*testing.T, string, T)) {
	seed(f)
	fuzzOneBody(f, p, check)
}

// fuzzOneBody is fuzzOne after seeding.
func fuzzOneBody[T any](f *testing.F, p func(string) (T, error), check func(*testing.T, string, T)) {
	f.Fuzz(func(t *testing.T, text string) {
		v, err := p(text)
		if err != nil && !checkErr(t, text, err) {
			return
		}
		check(t, text, v)
	})
}

func FuzzRDMADeviceList(f *testing.F) {
	fuzzList(f, RDMADeviceList, RDMADevice.evidence)
}
func FuzzRDMAProtocolList(f *testing.F) {
	fuzzList(f, RDMAProtocolList, RDMAProtocol.evidence)
}
func FuzzRDMAVmknicList(f *testing.F) {
	fuzzList(f, RDMAVmknicList, RDMAVmknic.evidence)
}
func FuzzVMProcessList(f *testing.F) {
	fuzzList(f, VMProcessList, func(d VMProcess) Ref {
		if d.WorldID == "" {
			panic("VM without World ID")
		}
		return d.Ref
	})
}
func FuzzVsishLs(f *testing.F) { fuzzList(f, VsishLs, VsishEntry.evidence) }
func FuzzIPInterfaceList(f *testing.F) {
	fuzzList(f, IPInterfaceList, Vmknic.evidence)
}
func FuzzIPv4Get(f *testing.F) { fuzzList(f, IPv4Get, IPv4Interface.evidence) }
func FuzzNICList(f *testing.F) { fuzzList(f, NICList, NIC.evidence) }
func FuzzDVSList(f *testing.F) { fuzzList(f, DVSList, DVSwitch.evidence) }
func FuzzStandardSwitchList(f *testing.F) {
	fuzzList(f, StandardSwitchList, StandardSwitch.evidence)
}
func FuzzFirewallRulesetList(f *testing.F) {
	fuzzList(f, FirewallRulesetList, FirewallRuleset.evidence)
}
func FuzzFirewallRuleList(f *testing.F) {
	fuzzList(f, FirewallRuleList, FirewallRule.evidence)
}
func FuzzHardwarePCIList(f *testing.F) {
	fuzzList(f, HardwarePCIList, PCIDevice.evidence)
}

func FuzzRDMAStatsGet(f *testing.F) {
	fuzzOne(f, RDMAStatsGet, func(t *testing.T, text string, v RDMAStats) {
		checkRecord(t, text, v.Record)
		if len(v.Counters) > v.Record.Len() {
			t.Fatal("more counters than keys")
		}
	})
}
func FuzzPVRDMAProperties(f *testing.F) {
	fuzzOne(f, PVRDMAProperties, func(t *testing.T, text string, v PVRDMADevice) {
		checkRef(t, text, v.Ref)
		checkRecord(t, text, v.Props)
	})
}
func FuzzNICGet(f *testing.F) {
	fuzzOne(f, NICGet, func(t *testing.T, text string, v NICDetail) { checkRecord(t, text, v.Record) })
}
func FuzzDCBStatusGet(f *testing.F) {
	fuzzOne(f, DCBStatusGet, func(t *testing.T, text string, v DCBStatus) {
		checkRecord(t, text, v.Record)
		for _, p := range v.PFCPriorities {
			if p < 0 || p > 7 {
				t.Fatalf("priority %d", p)
			}
		}
	})
}
func FuzzAdvancedSettingList(f *testing.F) {
	fuzzOne(f, AdvancedSettingList, func(t *testing.T, text string, v AdvancedSetting) {
		checkRecord(t, text, v.Record)
		if v.Path == "" && v.Record.Get("Path") != "" {
			t.Fatal("path lost")
		}
	})
}
func FuzzSystemVersionGet(f *testing.F) {
	fuzzOne(f, SystemVersionGet, func(t *testing.T, text string, v SystemVersion) {
		if v.Product == "" && v.Version == "" {
			t.Fatal("empty version without error")
		}
	})
}
func FuzzVmkping(f *testing.F) {
	fuzzOne(f, Vmkping, func(t *testing.T, text string, v Ping) {
		checkRef(t, text, v.Ref)
		if v.Target == "" {
			t.Fatal("ping without target")
		}
	})
}
func FuzzVMX(f *testing.F) {
	fuzzOne(f, VMX, func(t *testing.T, text string, v VMXConfig) {
		for _, e := range v.Entries {
			checkRef(t, text, e.Ref)
			if got := v.Get(strings.ToUpper(e.Key)); got != e.Value {
				t.Fatalf("case-insensitive lookup of %q: %q != %q", e.Key, got, e.Value)
			}
		}
	})
}
func FuzzSplitTranscript(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, text string) {
		cmds, err := SplitTranscript(text)
		if err != nil {
			checkErr(t, text, err)
			return
		}
		ls := splitLines(text)
		last := 0
		for _, c := range cmds {
			if c.Line <= last || c.Line > len(ls) || c.Command == "" {
				t.Fatalf("bad command %+v", c)
			}
			if !isPrompt(ls[c.Line-1].text) && strings.TrimSpace(ls[c.Line-1].text) != c.Command {
				t.Fatalf("line %d is neither a prompt nor an echoed command", c.Line)
			}
			last = c.Line
		}
	})
}
func FuzzReadTable(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, text string) {
		tb, err := ReadTable(text)
		if err != nil && !checkErr(t, text, err) {
			return
		}
		for _, r := range tb.Rows {
			checkRef(t, text, r.Ref())
			if len(r.Cells) > len(tb.Header) {
				t.Fatal("more cells than columns")
			}
		}
	})
}
func FuzzReadRecords(f *testing.F) {
	seed(f)
	f.Fuzz(func(t *testing.T, text string) {
		recs, err := ReadRecords(text)
		if err != nil && !checkErr(t, text, err) {
			return
		}
		for _, r := range recs {
			checkRecord(t, text, r)
		}
	})
}
func FuzzPortgroupList(f *testing.F) {
	fuzzList(f, PortgroupList, Portgroup.evidence)
}
