package parse

import (
	"strconv"
	"strings"
)

// NICStats is `esxcli network nic stats get -n vmnicN`: an uplink's
// counters since the driver loaded (they only grow; ESXi cannot clear
// them). The named counters are the ones that tell traffic from loss;
// Counters keeps every integer line under its printed key.
type NICStats struct {
	// Nic comes from the title ("NIC statistics for vmnic4"); the
	// command's -n value when the title is missing.
	Nic              string           `json:"nic"`
	PacketsReceived  int64            `json:"packets_received"`
	PacketsSent      int64            `json:"packets_sent"`
	BytesReceived    int64            `json:"bytes_received"`
	BytesSent        int64            `json:"bytes_sent"`
	ReceiveDropped   int64            `json:"receive_packets_dropped"`
	TransmitDropped  int64            `json:"transmit_packets_dropped"`
	ReceiveErrors    int64            `json:"total_receive_errors"`
	TransmitErrors   int64            `json:"total_transmit_errors"`
	ReceiveCRCErrors int64            `json:"receive_crc_errors"`
	Counters         map[string]int64 `json:"counters"`
	Record           Record           `json:"record"`
}

// nicStatsFields are the named counters, by printed key.
var nicStatsFields = map[string]func(*NICStats) *int64{
	"Packets received":         func(s *NICStats) *int64 { return &s.PacketsReceived },
	"Packets sent":             func(s *NICStats) *int64 { return &s.PacketsSent },
	"Bytes received":           func(s *NICStats) *int64 { return &s.BytesReceived },
	"Bytes sent":               func(s *NICStats) *int64 { return &s.BytesSent },
	"Receive packets dropped":  func(s *NICStats) *int64 { return &s.ReceiveDropped },
	"Transmit packets dropped": func(s *NICStats) *int64 { return &s.TransmitDropped },
	"Total receive errors":     func(s *NICStats) *int64 { return &s.ReceiveErrors },
	"Total transmit errors":    func(s *NICStats) *int64 { return &s.TransmitErrors },
	"Receive CRC errors":       func(s *NICStats) *int64 { return &s.ReceiveCRCErrors },
}

// NICStatsGet parses `esxcli network nic stats get -n vmnicN` (also its
// --formatter forms): a title "NIC statistics for vmnicN" and one
// "Key: integer" line per counter. A counter that is not an integer is
// skipped with its line; the others are kept.
func NICStatsGet(text string) (NICStats, error) {
	recs, sk, err := readItems(text, layoutRecords, nil, nil)
	if err != nil {
		return NICStats{}, err
	}
	if len(recs) != 1 {
		if len(sk) > 0 {
			return NICStats{}, &Error{Line: sk[0].Line, Msg: "nothing could be read: " + sk[0].Reason}
		}
		return NICStats{}, &Error{Msg: "expected the statistics of one NIC, found " + strconv.Itoa(len(recs))}
	}
	rec := recs[0]
	st := NICStats{Record: rec}
	st.Nic, st.Counters = readCounters(rec, &sk, "NIC Name", "Name")
	if t := strings.Fields(rec.Title); st.Nic == "" && len(t) > 0 && strings.HasPrefix(rec.Title, "NIC statistics for ") {
		st.Nic = t[len(t)-1]
	}
	for k, set := range nicStatsFields {
		*set(&st) = st.Counters[k]
	}
	return result(st, len(st.Counters), sk)
}
