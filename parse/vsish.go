package parse

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// VsishLs parses `vsish -e ls DIR`: one child per line, directories end
// with "/". A line that is no node name is skipped (a *PartialError with
// the entries read): one unreadable entry must not hide the others.
func VsishLs(text string) ([]VsishEntry, error) {
	var out []VsishEntry
	var sk skips
	for _, l := range clean(text, false) {
		t := strings.TrimSpace(l.text)
		if t == "" {
			continue
		}
		if strings.ContainsAny(t, " \t") || strings.HasPrefix(t, "VSI_") || t == "/" {
			sk.add(l.ref(), errorf(l.no, "expected one vsish node name per line, got %q", t), "entry skipped")
			continue
		}
		name, dir := strings.CutSuffix(t, "/")
		out = append(out, VsishEntry{Name: name, IsDir: dir, Ref: l.ref()})
	}
	return result(out, len(out), sk)
}

var reVsishTitle = regexp.MustCompile(`^\s*([^{}:]*?)\s*\{\s*$`)

// PVRDMAProperties parses `vsish -e cat .../pvrdmaDevices/<wid>_<idx>/properties`:
// a "PVRDMA Device Properties {" block of "key:value" lines closed by "}".
// A copy that lost the closing brace is accepted; a line that is not
// "key:value" (or an author's elision) is skipped and reported in a
// *PartialError returned with the rest.
func PVRDMAProperties(text string) (PVRDMADevice, error) {
	var sk skips
	ls := dropElisions(clean(text, false), &sk)
	if len(ls) == 0 {
		return PVRDMADevice{}, &Error{Msg: "empty output: expected a \"PVRDMA Device Properties {\" block"}
	}
	m := reVsishTitle.FindStringSubmatch(ls[0].text)
	if m == nil {
		return PVRDMADevice{}, errorf(ls[0].no, "expected \"PVRDMA Device Properties {\", got %q", strings.TrimSpace(ls[0].text))
	}
	rec := newRecord(ls[0].ref())
	rec.Title = m[1]
	i, closed := readVsishBlock(ls, 1, &rec, &sk)
	if closed {
		for _, l := range ls[i:] {
			if !isBlank(l.text) {
				sk.add(l.ref(), nil, "unexpected line after the closing brace: skipped")
			}
		}
	}
	d := PVRDMADevice{
		WorldID: rec.Get("VMM leader ID of VM"),
		Index:   rec.Get("adapter index"),
		MAC:     rec.Get("MAC address"),
		Props:   rec,
		Ref:     rec.Ref,
	}
	for key, dst := range map[string]*int{"Physical HCA available": &d.PhysicalHCA, "RoCE version": &d.RoCEVersion, "Active MTU": &d.ActiveMTU} {
		f, ok := rec.Field(key)
		if !ok {
			continue
		}
		n, ok := leadingInt(f.Value)
		if !ok {
			sk.add(f.Ref, nil, fmt.Sprintf("%s: expected a number, got %q: skipped", key, f.Value))
			continue
		}
		*dst = n
	}
	return result(d, rec.Len(), sk)
}

var reNumber = regexp.MustCompile(`[0-9]+`)

// leadingInt reads the first decimal number in a vsish value ("1024",
// "IB_MTU_1024" -> 1024).
func leadingInt(v string) (int, bool) {
	s := reNumber.FindString(v)
	if s == "" {
		return 0, false
	}
	n, err := strconv.Atoi(s)
	return n, err == nil
}

// readVsishBlock reads "key:value" lines into rec until "}" (closed) or
// the end; "key:{" / "name {" opens a nested block.
// Lines that cannot be read are recorded in s and skipped.
func readVsishBlock(ls []line, i int, rec *Record, s *skips) (int, bool) {
	for i < len(ls) {
		l := ls[i]
		t := strings.TrimSpace(l.text)
		i++
		switch {
		case t == "":
			continue
		case t == "}" || t == "},":
			return i, true
		case strings.HasSuffix(t, "{"):
			key := strings.TrimSpace(strings.TrimSuffix(strings.TrimSuffix(t, "{"), ":"))
			child := newRecord(l.ref())
			child.Title = key
			var closed bool
			if i, closed = readVsishBlock(ls, i, &child, s); !closed {
				s.add(l.ref(), nil, fmt.Sprintf("block %q is not closed", key))
			}
			rec.Set(key, Field{Ref: l.ref()})
			if rec.Nested == nil {
				rec.Nested = map[string][]Record{}
			}
			rec.Nested[key] = append(rec.Nested[key], child)
		default:
			k, v, ok := strings.Cut(t, ":")
			if !ok || strings.TrimSpace(k) == "" {
				s.add(l.ref(), nil, "not a \"key:value\" line: skipped")
				continue
			}
			rec.Set(strings.TrimSpace(k), Field{Value: strings.TrimSpace(v), Ref: l.ref()})
		}
	}
	return i, false
}

// DeviceID splits an entry of the PVRDMA device listing, `<worldID>_<index>`,
// into the VM's world ID and the adapter index; ok is false when the name
// has no "_" (what follows the first "_" is the index).
func (e VsishEntry) DeviceID() (worldID, index string, ok bool) {
	return SplitDeviceID(e.Name)
}

// SplitDeviceID splits a PVRDMA device name `<worldID>_<index>` (as listed
// under /vmkModules/vrdma/pvrdmaDevices/) at its first "_"; ok is false when
// there is none, and worldID is then the whole name.
func SplitDeviceID(name string) (worldID, index string, ok bool) {
	return strings.Cut(name, "_")
}
