package facts

import (
	"reflect"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// readCarried fills, from each collected capture of hr, the kinds its
// spec says its output carries too (catalog.Spec.Carries: `ip addr` typed
// by an admin prints every interface's link line, MTU, state and MAC,
// above its addresses) where no capture of that kind was collected: a
// guest whose only capture is `ip addr show`, saved under any name, keeps
// its links. The capture becomes the source of the carried kind, in place
// of the kind's own command that was not collected, only when its output
// holds facts of it (`ip -o addr` prints no link line).
func (g *Guest) readCarried(hr hostio.HostResult) {
	have := map[hostio.Kind]bool{}
	for _, c := range hr.Captures {
		if k, _ := sourceOf(c); c.OK() {
			have[k] = true
		}
	}
	for _, c := range hr.Captures {
		kind, _ := sourceOf(c)
		spec, ok := catalog.Lookup(kind)
		if !ok || !c.OK() || !catalog.GuestKind(kind) {
			continue
		}
		for _, k := range spec.Carries {
			ks, ok := catalog.Lookup(k)
			if have[k] || !ok || ks.Parser.Parse == nil || !holdsFacts(ks.Parser, c.Stdout) {
				continue
			}
			cc := c
			cc.Kind = k
			_, src := sourceOf(cc)
			g.readCapture(k, cc, &src)
			// It stands in for the kind's own command, which was not
			// collected (not run, not saved, failed): the facts are there.
			g.Sources[k] = []Source{src}
		}
	}
}

// holdsFacts reports whether p reads at least one fact from text (a
// partial parse counts by what it read).
func holdsFacts(p catalog.Parser, text string) bool {
	v, _ := p.Parse(text)
	if v == nil {
		return false
	}
	rv := reflect.ValueOf(v)
	switch rv.Kind() {
	case reflect.Slice, reflect.Map:
		return rv.Len() > 0
	case reflect.Pointer, reflect.Interface:
		return !rv.IsNil()
	}
	return true
}
