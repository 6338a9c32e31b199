package collect

import (
	"path"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// ParserFor names the catalogue spec whose parser reads the output of a
// command line typed on ESXi (a leading shell prompt is dropped), for
// `pvrdma-doctor parse`: any spelling Recognize knows; the same command
// with values no scan uses but whose output has the same shape (another
// advanced option, ruleset or vsish folder, vsish -e get, a .vmx outside
// /vmfs/volumes, vmkping to a host name); the outputs only `parse` reads
// (catalog.ParseOnly); and the guest catalogue's lines. Everything comes
// from the catalogue's specs and their forms. ok=false for anything else.
func ParserFor(typed string) (*catalog.Spec, bool) {
	line := parse.StripPrompt(typed)
	if r, ok := Recognize(line); ok {
		return catalog.Lookup(r.Kind)
	}
	if k := catalog.KindOf(line); k != "" {
		return catalog.Lookup(k)
	}
	line, _ = cutPipe(line)
	w, _ := stripSSH(strings.Fields(line))
	if len(w) == 0 {
		return nil, false
	}
	switch strings.TrimSuffix(strings.ToLower(path.Base(strings.ReplaceAll(w[0], `\`, "/"))), ".exe") {
	case "esxcli", "localcli":
		rest := esxcliCommand(w[1:])
		for _, list := range [][]*catalog.Spec{catalog.Specs(), catalog.ParseOnly()} {
			for _, s := range list {
				for _, f := range s.Forms {
					if f.Tool == "esxcli" && inNamespace(rest, f.Words) {
						return s, true
					}
				}
			}
		}
	case "vsish":
		if len(w) != 4 || w[1] != "-e" {
			break
		}
		p := strings.TrimSuffix(w[3], "/")
		switch {
		case w[2] == "ls":
			return catalog.Lookup(catalog.KindPVRDMADeviceLs)
		case (w[2] == "cat" || w[2] == "get") && strings.Contains(p, "/pvrdmaDevices/") && strings.HasSuffix(p, "/properties"):
			return catalog.Lookup(catalog.KindPVRDMAProperties)
		}
	case "vmkping", "ping":
		return catalog.Lookup(catalog.KindVmkping)
	case "cat":
		if len(w) > 1 && strings.HasSuffix(strings.ToLower(strings.Trim(w[len(w)-1], `"'`)), ".vmx") {
			return catalog.Lookup(catalog.KindVMX)
		}
	}
	return nil, false
}

// esxcliCommand drops esxcli's global options (--formatter=xml,
// --formatter keyvalue, --server HOST, --debug, ...) before the namespace.
func esxcliCommand(w []string) []string {
	i := 0
	for i < len(w) && strings.HasPrefix(w[i], "-") {
		name, _, has := splitOpt(w[i])
		if _, valued := esxcliValued[name]; valued && !has && !esxcliFlags[name] {
			i++
		}
		i++
	}
	return w[min(i, len(w)):]
}

// inNamespace reports whether w is the esxcli command words followed by
// options only.
func inNamespace(w []string, words string) bool {
	ns := strings.Fields(words)
	if len(w) < len(ns) || !equalFold(w[:len(ns)], ns) {
		return false
	}
	return len(w) == len(ns) || strings.HasPrefix(w[len(ns)], "-")
}
