package parse

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

var rdmaDeviceKeys = []string{"Name", "Driver", "State", "MTU", "Speed", "Paired Uplink", "Description"}

// RDMADeviceList parses `esxcli rdma device list`.
func RDMADeviceList(text string) ([]RDMADevice, error) {
	return readList(text, layoutTable, rdmaDeviceKeys, []string{"Name", "Driver", "State", "MTU", "Paired Uplink"}, "RDMA device row skipped", func(r Record, e *errs) RDMADevice {
		d := RDMADevice{
			Name:         r.Get("Name"),
			Driver:       r.Get("Driver"),
			State:        r.Get("State"),
			MTU:          e.int(r, "MTU"),
			Speed:        r.Get("Speed"),
			PairedUplink: r.Get("Paired Uplink"),
			Description:  r.Get("Description"),
			Ref:          r.Ref,
		}
		mbps, ok := SpeedMbps(d.Speed)
		if !ok && e.err == nil {
			e.err = errorf(r.RefOf("Speed").Line, "Speed: expected a speed like \"100 Gbps\", got %q", d.Speed)
		}
		d.SpeedMbps = mbps
		return d
	})
}

var reSpeed = regexp.MustCompile(`^(?i)([0-9]+(?:\.[0-9]+)?)\s*(t|g|m|k)?(?:b(?:it)?s?(?:/s|ps)?)?$`)

// SpeedMbps converts a printed speed ("100 Gbps", "25000Mbps", "10000",
// "N/A") to Mbit/s. A bare number is Mbit/s; empty and N/A read as 0.
func SpeedMbps(s string) (int, bool) {
	s = strings.TrimSpace(s)
	if s == "" || strings.EqualFold(s, "N/A") || strings.EqualFold(s, "Unknown") {
		return 0, true
	}
	m := reSpeed.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil || v > 1e9 {
		return 0, false
	}
	switch strings.ToLower(m[2]) {
	case "t":
		v *= 1e6
	case "g":
		v *= 1000
	case "k":
		v /= 1000
	}
	return int(v), true
}

// RDMAProtocolList parses `esxcli rdma device protocol list`.
func RDMAProtocolList(text string) ([]RDMAProtocol, error) {
	return readList(text, layoutTable, []string{"Device", "RoCE v1", "RoCE v2", "iWARP"}, []string{"Device", "RoCE v1", "RoCE v2"}, "protocol row skipped", func(r Record, e *errs) RDMAProtocol {
		return RDMAProtocol{Device: r.Get("Device"), RoCEv1: e.bool(r, "RoCE v1"), RoCEv2: e.bool(r, "RoCE v2"), IWARP: e.bool(r, "iWARP"), Ref: r.Ref}
	})
}

// RDMAVmknicList parses `esxcli rdma device vmknic list`.
func RDMAVmknicList(text string) ([]RDMAVmknic, error) {
	recs, sk, err := readItems(text, layoutTable, []string{"Device", "Vmknic", "NetStack"}, []string{"Device", "Vmknic"})
	if err != nil {
		return nil, err
	}
	var out []RDMAVmknic
	for _, r := range recs {
		out = append(out, RDMAVmknic{Device: r.Get("Device"), Vmknic: r.Get("Vmknic"), NetStack: r.Get("NetStack"), Ref: r.Ref})
	}
	return result(out, len(out), sk)
}

// RDMAStatsGet parses `esxcli rdma device stats get -d vmrdmaN` (the name
// RDMAStats is taken by the fact type): every
// "Key: integer" line is a counter under its printed key; Device comes
// from a "Name" or "Device" key when present.
func RDMAStatsGet(text string) (RDMAStats, error) {
	rec, sk, err := readOneSkips(text, nil, nil)
	if err != nil {
		return RDMAStats{}, err
	}
	st := RDMAStats{Record: rec}
	st.Device, st.Counters = readCounters(rec, &sk, "Name", "Device")
	return result(st, len(st.Counters), sk)
}

// readCounters reads a record of "Key: integer" counters: the value of the
// first of nameKeys present is the name (device, NIC), every other key an
// integer counter; a value that is not an integer is skipped with its line.
func readCounters(rec Record, sk *skips, nameKeys ...string) (name string, counters map[string]int64) {
	counters = map[string]int64{}
	for k, f := range rec.All() {
		if contains(nameKeys, k) {
			name = f.Value
			continue
		}
		n, err := strconv.ParseInt(strings.TrimSpace(f.Value), 10, 64)
		if err != nil {
			sk.add(f.Ref, nil, fmt.Sprintf("%s: expected an integer counter, got %q: skipped", k, f.Value))
			continue
		}
		counters[k] = n
	}
	return name, counters
}
