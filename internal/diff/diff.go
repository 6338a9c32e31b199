package diff

import (
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"unicode"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// Side is one analysis to compare: its facts and findings.
type Side struct {
	Label    string
	Fleet    *facts.Fleet
	Findings []checks.Finding
}

// Change is one difference between two analyses.
type Change struct {
	Host string `json:"host"`
	// Kind is "host", "fact" or "finding".
	Kind string `json:"kind"`
	// Object is what changed: "vmk1", "VM hpc-node03 adapter 0", a rule ID.
	Object string `json:"object,omitempty"`
	Field  string `json:"field,omitempty"`
	// Change is "changed", "added", "removed", "new", "resolved",
	// "not_evaluated", "severity", or, for a finding about a host that is
	// on one side only, "host_removed" / "host_added" (never new/resolved).
	Change string `json:"change"`
	Old    string `json:"old,omitempty"`
	New    string `json:"new,omitempty"`
	// Text is the change in one line ("esx01 vmk1 MTU 9000 -> 1500").
	Text string `json:"text"`
}

// Diff is every change from Old to New.
type Diff struct {
	Old     string   `json:"old"`
	New     string   `json:"new"`
	Changes []Change `json:"changes"`
}

// diffed are the catalogue's specs whose facts diff compares, in
// catalogue order (the order the commands run): how an item is named,
// which fields are noise between two scans, and which facts.Host field
// holds them.
var diffed = func() []*catalog.Spec {
	var out []*catalog.Spec
	for _, s := range catalog.Specs() {
		if s.Diff != nil {
			out = append(out, s)
		}
	}
	return out
}()

func skip(names ...string) map[string]bool {
	m := map[string]bool{}
	for _, n := range names {
		m[n] = true
	}
	return m
}

// Compare lists the fact-level and finding-level changes from old to new.
func Compare(old, new Side) *Diff {
	d := &Diff{Old: old.Label, New: new.Label, Changes: []Change{}}
	oh, nh := hostsOf(old.Fleet), hostsOf(new.Fleet)
	var names []string
	seen := map[string]bool{}
	for _, f := range []*facts.Fleet{old.Fleet, new.Fleet} {
		if f == nil {
			continue
		}
		for _, h := range f.Hosts {
			if !seen[h.Host] {
				seen[h.Host] = true
				names = append(names, h.Host)
			}
		}
	}
	for _, n := range names {
		a, b := oh[n], nh[n]
		switch {
		case a == nil:
			d.add(Change{Host: n, Kind: "host", Change: "added", Text: fmt.Sprintf("host %s added (not in OLD: its facts and findings are not compared)", n)})
			continue
		case b == nil:
			d.add(Change{Host: n, Kind: "host", Change: "removed", Text: fmt.Sprintf("host %s removed (not in NEW: its facts and findings are not compared)", n)})
			continue
		}
		if a.Status != b.Status {
			d.add(Change{Host: n, Kind: "host", Field: "status", Change: "changed", Old: string(a.Status), New: string(b.Status),
				Text: fmt.Sprintf("%s status %s -> %s", n, a.Status, b.Status)})
		}
		d.compareHost(n, a, b)
	}
	d.compareFindings(old.Findings, new.Findings, oh, nh)
	return d
}

func hostsOf(f *facts.Fleet) map[string]*facts.Host {
	m := map[string]*facts.Host{}
	if f == nil {
		return m
	}
	for i := range f.Hosts {
		m[f.Hosts[i].Host] = &f.Hosts[i]
	}
	return m
}

func (d *Diff) add(c Change) {
	for _, x := range d.Changes {
		if x.Text == c.Text {
			return // the same item seen through two outputs (vmk1 in two lists)
		}
	}
	d.Changes = append(d.Changes, c)
}

func (d *Diff) compareHost(host string, a, b *facts.Host) {
	// Only facts that were read on both sides are compared: an output that
	// is missing on one side is a collection change, not a fact change.
	for _, s := range diffed {
		x, y := a.Fact(s), b.Fact(s)
		if x.Kind() == reflect.Pointer {
			// A single fact (one per host): compared when read on both sides.
			if !x.IsNil() && !y.IsNil() {
				d.compareItem(host, s.Diff.Key(x.Elem()), x.Elem(), y.Elem(), skip(s.Diff.Skip...))
			}
			continue
		}
		if x.Len() == 0 && y.Len() == 0 {
			continue
		}
		if (x.Len() == 0 || y.Len() == 0) && !(a.Read(s) && b.Read(s)) {
			continue
		}
		ox, oy := index(x, s.Diff.Key), index(y, s.Diff.Key)
		var keys []string
		for k := range ox {
			keys = append(keys, k)
		}
		for k := range oy {
			if _, ok := ox[k]; !ok {
				keys = append(keys, k)
			}
		}
		sort.Strings(keys)
		skipped := skip(s.Diff.Skip...)
		for _, k := range keys {
			obj := strings.TrimSpace(s.Diff.What + " " + k)
			i, inOld := ox[k]
			j, inNew := oy[k]
			switch {
			case !inOld:
				d.add(Change{Host: host, Kind: "fact", Object: obj, Change: "added", Text: fmt.Sprintf("%s %s added", host, obj)})
			case !inNew:
				d.add(Change{Host: host, Kind: "fact", Object: obj, Change: "removed", Text: fmt.Sprintf("%s %s removed", host, obj)})
			default:
				d.compareItem(host, obj, i, j, skipped)
			}
		}
	}
}

func index(list reflect.Value, key func(reflect.Value) string) map[string]reflect.Value {
	m := map[string]reflect.Value{}
	for i := 0; i < list.Len(); i++ {
		k := key(list.Index(i))
		if _, dup := m[k]; !dup {
			m[k] = list.Index(i)
		}
	}
	return m
}

// compareItem compares the scalar fields of two facts of the same kind.
func (d *Diff) compareItem(host, obj string, a, b reflect.Value, skipped map[string]bool) {
	t := a.Type()
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if f.Anonymous || !f.IsExported() || skipped[f.Name] {
			continue
		}
		x, ok1 := scalar(a.Field(i))
		y, ok2 := scalar(b.Field(i))
		if !ok1 || !ok2 || x == y {
			continue
		}
		field := humanize(f.Name)
		d.add(Change{Host: host, Kind: "fact", Object: obj, Field: field, Change: "changed", Old: x, New: y,
			Text: fmt.Sprintf("%s %s %s %s -> %s", host, obj, field, show(x), show(y))})
	}
}

func show(s string) string {
	if s == "" {
		return `""`
	}
	return s
}

// scalar renders strings, numbers, booleans and lists of them.
func scalar(v reflect.Value) (string, bool) {
	switch v.Kind() {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int64, reflect.Float64:
		return fmt.Sprint(v.Interface()), true
	case reflect.Slice:
		switch v.Type().Elem().Kind() {
		case reflect.String, reflect.Int:
			parts := make([]string, v.Len())
			for i := range parts {
				parts[i] = fmt.Sprint(v.Index(i).Interface())
			}
			return strings.Join(parts, ","), true
		}
	}
	return "", false
}

// humanize turns a Go field name into words: ActiveMTU -> "Active MTU".
func humanize(s string) string {
	r := []rune(s)
	var b strings.Builder
	for i, c := range r {
		if i > 0 && unicode.IsUpper(c) && (unicode.IsLower(r[i-1]) || i+1 < len(r) && unicode.IsLower(r[i+1]) && unicode.IsUpper(r[i-1])) {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}

// absentHost returns the first host a finding is about (its host, or a
// host of its evidence: a path to a peer) that is not in hosts; "" when all
// are there. A finding of a host missing from the other side is neither new
// nor resolved: the host was added or removed.
func absentHost(f checks.Finding, hosts map[string]*facts.Host) string {
	if f.Host != "" && hosts[f.Host] == nil {
		return f.Host
	}
	for _, e := range f.Evidence {
		if e.Host != "" && hosts[e.Host] == nil {
			return e.Host
		}
	}
	return ""
}

func (d *Diff) compareFindings(old, new []checks.Finding, oldHosts, newHosts map[string]*facts.Host) {
	om, nm := map[string]checks.Finding{}, map[string]checks.Finding{}
	var keys []string
	for _, f := range old {
		if _, ok := om[f.Key()]; !ok {
			om[f.Key()] = f
			keys = append(keys, f.Key())
		}
	}
	for _, f := range new {
		if _, ok := nm[f.Key()]; !ok {
			nm[f.Key()] = f
			if _, inOld := om[f.Key()]; !inOld {
				keys = append(keys, f.Key())
			}
		}
	}
	sort.SliceStable(keys, func(i, j int) bool { return keys[i] < keys[j] })
	for _, k := range keys {
		a, inOld := om[k]
		b, inNew := nm[k]
		failOld := inOld && a.Status == checks.StatusFail
		failNew := inNew && b.Status == checks.StatusFail
		f := b
		if !inNew {
			f = a
		}
		c := Change{Host: f.Host, Kind: "finding", Object: f.RuleID, Field: f.Subject}
		gone, came := "", ""
		if !inNew {
			gone = absentHost(a, newHosts)
		}
		if !inOld {
			came = absentHost(b, oldHosts)
		}
		switch {
		case failOld && gone != "":
			c.Change, c.Old = "host_removed", string(a.Severity)
			c.Text = fmt.Sprintf("finding %s on %s not in NEW (host %s removed): %s", f.RuleID, f.Host, gone, f.Subject)
		case failNew && came != "":
			c.Change, c.New = "host_added", string(b.Severity)
			c.Text = fmt.Sprintf("finding %s on %s not in OLD (host %s added): %s (%s)", f.RuleID, f.Host, came, f.Subject, b.Severity)
		case gone != "" || came != "":
			continue
		case failNew && !failOld:
			c.Change, c.New = "new", string(b.Severity)
			c.Text = fmt.Sprintf("finding %s new on %s: %s (%s)", f.RuleID, f.Host, f.Subject, b.Severity)
		case failOld && !failNew && inNew && b.Status == checks.StatusNotEvaluated:
			c.Change = "not_evaluated"
			c.Text = fmt.Sprintf("finding %s on %s can no longer be evaluated: %s (%s)", f.RuleID, f.Host, f.Subject, strings.TrimPrefix(b.Message, "not evaluated: "))
		case failOld && !failNew:
			c.Change, c.Old = "resolved", string(a.Severity)
			c.Text = fmt.Sprintf("finding %s resolved on %s: %s", f.RuleID, f.Host, f.Subject)
		case failOld && failNew && a.Severity != b.Severity:
			c.Change, c.Old, c.New = "severity", string(a.Severity), string(b.Severity)
			c.Text = fmt.Sprintf("finding %s on %s: %s severity %s -> %s", f.RuleID, f.Host, f.Subject, a.Severity, b.Severity)
		default:
			continue
		}
		d.add(c)
	}
}

// WriteText prints the diff, one change per line.
func (d *Diff) WriteText(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "--- %s\n+++ %s\n", d.Old, d.New)
	if len(d.Changes) == 0 {
		b.WriteString("No changes in facts or findings.\n")
	}
	for _, c := range d.Changes {
		b.WriteString(c.Text)
		b.WriteByte('\n')
	}
	_, err := w.Write([]byte(b.String()))
	return err
}
