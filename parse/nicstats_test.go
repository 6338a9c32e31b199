package parse

import (
	"os"
	"strings"
	"testing"
)

// The output format of Broadcom KB 341594 ("Troubleshooting NIC errors and
// other network traffic faults in ESXi").
func TestNICStatsGet(t *testing.T) {
	st := parseSample(t, NICStatsGet, "nic_stats_get_kb341594.txt")
	if st.Nic != "vmnic2" || st.PacketsReceived != 701280499176 || st.PacketsSent != 687061948450 ||
		st.BytesReceived != 664124780523852 || st.BytesSent != 676938646792793 || st.ReceiveDropped != 2452783244 ||
		st.TransmitDropped != 0 || st.ReceiveErrors != 0 || st.TransmitErrors != 0 {
		t.Errorf("%+v", st)
	}
	if len(st.Counters) != 23 || st.Counters["Multicast packets received"] != 976222150 {
		t.Errorf("%d counters: %v", len(st.Counters), st.Counters)
	}
	if f, _ := st.Record.Field("Receive packets dropped"); f.Line != 6 {
		t.Errorf("evidence line %d, want 6", f.Line)
	}
}

// A garbled counter is skipped with its line; the other counters are kept.
func TestNICStatsGetKeepsTheRest(t *testing.T) {
	text := strings.Replace(sample(t, "nic_stats_get_kb341594.txt"), "Receive packets dropped: 2452783244", "Receive packets dropped: 24527#3244", 1)
	st, err := NICStatsGet(text)
	sk, partial := Skipped(err)
	if !partial || len(sk) != 1 || sk[0].Line != 6 {
		t.Fatalf("err %v, skipped %v", err, sk)
	}
	if st.PacketsSent != 687061948450 || st.ReceiveDropped != 0 || len(st.Counters) != 22 {
		t.Errorf("%+v", st)
	}
	if _, err := NICStatsGet("garbage\n"); err == nil {
		t.Error("garbage parsed")
	}
}

func FuzzNICStatsGet(f *testing.F) {
	if b, err := os.ReadFile("testdata/nic_stats_get_kb341594.txt"); err == nil {
		f.Add(string(b))
	}
	fuzzOne(f, NICStatsGet, func(t *testing.T, text string, v NICStats) {
		checkRecord(t, text, v.Record)
		if len(v.Counters) > v.Record.Len() {
			t.Fatal("more counters than keys")
		}
		if v.ReceiveDropped != v.Counters["Receive packets dropped"] {
			t.Fatal("named counter differs from its printed key")
		}
	})
}
