package collect

import (
	"net/netip"
	"path"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Equivalent forms of the catalogue's commands, for reading what admins
// typed themselves (pasted sessions, folders of saved outputs): each
// catalogue spec lists its forms (catalog.Form: namespace, the options it
// takes with their short and long spellings, legacy tools); this is that
// list flattened, with how a typed form maps back to the catalogue line.
// Nothing here is ever sent to a host: Recognize only names the catalogue
// command whose facts a typed command's output carries.

// equivalent is one form of one catalogue command.
type equivalent struct {
	kind hostio.Kind
	catalog.Form
	// build returns the catalogue line for the option values given (by
	// long name); ok=false when the values do not make the catalogue
	// command (another advanced option, another ruleset).
	build func(args map[string]string) (line string, ok bool)
}

// equivalents is every form of every catalogue command, in catalogue order.
var equivalents = func() []equivalent {
	var out []equivalent
	for _, s := range catalog.Specs() {
		for _, f := range s.Forms {
			out = append(out, equivalent{kind: s.Kind, Form: f, build: formBuilder(s, f)})
		}
	}
	return out
}()

// formBuilder maps a form's option values to the catalogue line: a legacy
// tool's own line, the spec's line built from its OptArg values, and
// nothing when an OptFixed value differs.
func formBuilder(s *catalog.Spec, f catalog.Form) func(map[string]string) (string, bool) {
	if f.Tool != "esxcli" {
		line := f.Tool + " " + f.Words
		return func(map[string]string) (string, bool) { return line, true }
	}
	return func(a map[string]string) (string, bool) {
		var vals []string
		for _, o := range f.Opts {
			switch o.Role {
			case catalog.OptArg:
				vals = append(vals, a[o.Long])
			case catalog.OptFixed:
				v := a[o.Long]
				if o.Fold {
					if !strings.EqualFold(strings.TrimSuffix(v, "/"), o.Value) {
						return "", false
					}
				} else if v != o.Value {
					return "", false
				}
			}
		}
		c, err := s.Command(vals...)
		return c.Line, err == nil
	}
}

// Recognized is a command line as someone typed it, recognized as a form of
// a catalogue command.
type Recognized struct {
	// Kind is the catalogue command's kind; Also lists further kinds the
	// same output carries (esxcfg-vmknic -l).
	Kind hostio.Kind
	Also []hostio.Kind
	// Line is the catalogue line when the form prints what the catalogue
	// command prints (other spellings, option order, localcli, vCLI, a
	// formatter); for a filtered form (Filter set) or a legacy tool it is
	// the typed command, normalised.
	Line string
	// Host is the host the command line itself names (ssh root@HOST ...,
	// esxcli --server HOST / --vihost HOST), if any.
	Host string
	// Formatter is esxcli's --formatter value ("" for the default text).
	Formatter string
	// Filter says what a filtered form covers ("vmk1", "pvrdma", "grep
	// pvrdma"); empty when the output is complete.
	Filter string
}

// esxcli global options that take a value (vCLI and local).
var esxcliValued = map[string]string{
	"-s": "--server", "--server": "--server", "-h": "--vihost", "--vihost": "--vihost",
	"-u": "--username", "--username": "--username", "-p": "--password", "--password": "--password",
	"-c": "--config", "--config": "--config", "--formatter": "--formatter", "-f": "--formatter",
	"--format-param": "", "--thumbprint": "", "-t": "", "--sessionfile": "", "--savesessionfile": "",
	"--credstore": "", "--cacertsfile": "", "--protocol": "", "--portnumber": "", "--servicepath": "",
	"--url": "", "--encoding": "", "--passthroughauthpackage": "",
}

// esxcli global flags without a value.
var esxcliFlags = map[string]bool{"--debug": true, "--passthroughauth": true, "--skip-verification": true}

// Recognize names the catalogue command of a command line typed by hand
// (without its shell prompt), or ok=false when it is none: another command,
// another option value, an option that changes what is printed.
func Recognize(typed string) (Recognized, bool) {
	var r Recognized
	line := strings.TrimSpace(typed)
	line, filter := cutPipe(line)
	w := strings.Fields(line)
	w, r.Host = stripSSH(w)
	if len(w) == 0 {
		return r, false
	}
	r.Filter = filter
	if rg, ok := recognizeGuest(w, filter, r); ok {
		return rg, true // guest_forms.go
	}
	tool := path.Base(strings.ReplaceAll(w[0], `\`, "/"))
	tool = strings.TrimSuffix(strings.ToLower(tool), ".exe")
	switch tool {
	case "esxcli", "localcli":
		return recognizeEsxcli(w[1:], r)
	case "vsish":
		return recognizeVsish(w[1:], r)
	case "vmkping", "ping":
		return recognizePing(w[1:], r)
	case "cat":
		return recognizeVMX(line, w, r)
	}
	for _, e := range equivalents {
		if e.Tool == tool && strings.Join(w[1:], " ") == e.Words {
			r.Kind, r.Also = e.kind, e.Also
			r.Line, _ = e.build(nil)
			return r, true
		}
	}
	return Recognized{}, false
}

// cutPipe removes a pipe from a command line: through a pager the output
// is whole; through grep, head or anything else it is a filtered subset.
func cutPipe(line string) (string, string) {
	cmd, rest, piped := strings.Cut(line, "|")
	if !piped {
		return line, ""
	}
	cmd = strings.TrimSpace(cmd)
	filter := ""
	for _, stage := range strings.Split(rest, "|") {
		f := strings.Fields(stage)
		if len(f) == 0 {
			continue
		}
		switch path.Base(f[0]) {
		case "less", "more", "cat", "tee":
			continue
		}
		if filter != "" {
			filter += " | "
		}
		filter += strings.Join(f, " ")
	}
	return cmd, filter
}

// stripSSH removes "ssh [options] [user@]host" before a remote command and
// returns the host. Quotes around the remote command are dropped.
func stripSSH(w []string) ([]string, string) {
	host, remote, ok := sshTarget(w)
	if !ok {
		return unquote(w), ""
	}
	if len(remote) == 0 {
		return nil, ""
	}
	return unquote(remote), host
}

// SSHTarget splits "ssh [options] [user@]HOST [command...]" into the host
// and the words of the remote command (none for a login); ok is false for
// any other command line.
func SSHTarget(typed string) (host string, remote []string, ok bool) {
	return sshTarget(strings.Fields(typed))
}

func sshTarget(w []string) (host string, remote []string, ok bool) {
	if len(w) < 2 || path.Base(w[0]) != "ssh" {
		return "", nil, false
	}
	i := 1
	for i < len(w) && strings.HasPrefix(w[i], "-") {
		// Options of ssh that take a value.
		if len(w[i]) == 2 && strings.Contains("bcDEeFIiJLlmOopQRSWw", w[i][1:]) {
			i++
		}
		i++
	}
	if i >= len(w) {
		return "", nil, false
	}
	host = w[i]
	if _, h, found := strings.Cut(host, "@"); found {
		host = h
	}
	return host, w[i+1:], host != ""
}

// unquote drops the quotes around a remote command ("esxcli ..." or 'esxcli ...').
func unquote(w []string) []string {
	if len(w) == 0 {
		return w
	}
	out := append([]string(nil), w...)
	for _, q := range []string{`"`, `'`} {
		if strings.HasPrefix(out[0], q) && strings.HasSuffix(out[len(out)-1], q) {
			out[0] = strings.TrimPrefix(out[0], q)
			out[len(out)-1] = strings.TrimSuffix(out[len(out)-1], q)
			if out[0] == "" {
				out = out[1:]
			}
			if len(out) > 0 && out[len(out)-1] == "" {
				out = out[:len(out)-1]
			}
			break
		}
	}
	return out
}

// splitOpt splits "--name=value" into its parts.
func splitOpt(s string) (name, value string, hasValue bool) {
	if strings.HasPrefix(s, "--") {
		return strings.Cut(s, "=")
	}
	return s, "", false
}

func recognizeEsxcli(w []string, r Recognized) (Recognized, bool) {
	// Global options before the namespace.
	i := 0
	var server, vihost string
	for i < len(w) && strings.HasPrefix(w[i], "-") {
		name, val, has := splitOpt(w[i])
		if esxcliFlags[name] {
			i++
			continue
		}
		canon, ok := esxcliValued[name]
		if !ok {
			return Recognized{}, false
		}
		if !has {
			if i+1 >= len(w) {
				return Recognized{}, false
			}
			val = w[i+1]
			i++
		}
		i++
		switch canon {
		case "--server":
			server = val
		case "--vihost":
			vihost = val
		case "--formatter":
			r.Formatter = strings.ToLower(val)
		}
	}
	switch {
	case vihost != "":
		r.Host = vihost
	case server != "":
		r.Host = server
	}
	rest := w[i:]
	for _, e := range equivalents {
		if e.Tool != "esxcli" {
			continue
		}
		ns := strings.Fields(e.Words)
		if len(rest) < len(ns) || !equalFold(rest[:len(ns)], ns) {
			continue
		}
		args, filters, ok := readOptions(rest[len(ns):], e.Opts)
		if !ok {
			return Recognized{}, false
		}
		line, ok := e.build(args)
		if !ok {
			return Recognized{}, false
		}
		r.Kind, r.Also = e.kind, e.Also
		r.Line = line
		if filters != "" {
			r.Filter = strings.TrimSpace(filters + " " + r.Filter)
		}
		if r.Filter != "" {
			r.Line = "esxcli " + strings.Join(rest, " ")
		}
		return r, true
	}
	return Recognized{}, false
}

func equalFold(a, b []string) bool {
	for i := range b {
		if !strings.EqualFold(a[i], b[i]) {
			return false
		}
	}
	return true
}

// readOptions reads the options after an esxcli command: "-o X",
// "--option X", "--option=X", in any order. Option values are returned by
// long name; filters names what filtering options select. Any other word
// makes the line unrecognized.
func readOptions(w []string, specs []catalog.Option) (args map[string]string, filters string, ok bool) {
	args = map[string]string{}
	var sel []string
	for i := 0; i < len(w); i++ {
		name, val, has := splitOpt(w[i])
		var spec *catalog.Option
		for j := range specs {
			if name == specs[j].Short || name == specs[j].Long {
				spec = &specs[j]
			}
		}
		if spec == nil {
			if len(name) > 2 && name[0] == '-' && name[1] != '-' {
				// "-ovalue" glued form.
				for j := range specs {
					if strings.HasPrefix(name, specs[j].Short) {
						spec, val, has = &specs[j], name[len(specs[j].Short):], true
					}
				}
			}
			if spec == nil {
				return nil, "", false
			}
		}
		if !has {
			if i+1 >= len(w) {
				return nil, "", false
			}
			i++
			val = w[i]
		}
		val = strings.Trim(val, `"'`)
		args[spec.Long] = val
		if spec.Role == catalog.OptFilter {
			sel = append(sel, val)
		}
	}
	return args, strings.Join(sel, " "), true
}

// vsish paths of the catalogue, with or without a trailing slash.
func recognizeVsish(w []string, r Recognized) (Recognized, bool) {
	if len(w) != 3 || w[0] != "-e" {
		return Recognized{}, false
	}
	op, p := w[1], strings.TrimSuffix(w[2], "/")
	dir := strings.TrimSuffix(PVRDMADevicesDir, "/")
	switch {
	case op == "ls" && p == dir:
		r.Kind, r.Line = catalog.KindPVRDMADeviceLs, "vsish -e ls "+PVRDMADevicesDir
		return r, true
	case (op == "cat" || op == "get") && strings.HasPrefix(p, dir+"/") && strings.HasSuffix(p, "/properties"):
		id := strings.TrimSuffix(strings.TrimPrefix(p, dir+"/"), "/properties")
		wid, idx, ok := strings.Cut(id, "_")
		if !ok {
			return Recognized{}, false
		}
		c, err := PVRDMAProperties(wid, idx)
		if err != nil {
			return Recognized{}, false
		}
		r.Kind, r.Line = catalog.KindPVRDMAProperties, c.Line
		return r, true
	}
	return Recognized{}, false
}

// recognizePing reads vmkping / ping (ESXi's ping is vmkping) in any
// argument order: -I vmkN, -S NETSTACK or ++netstack=NETSTACK, -s SIZE,
// -d, -c COUNT and an IPv4 target. A probe with -d maps to the catalogue
// line; one without keeps its own line (its output is still a ping). A
// host name target is not a probe of the catalogue.
func recognizePing(w []string, r Recognized) (Recognized, bool) {
	var vmknic, netstack, target, count, interval, wait string
	payload, df := 56, false
	for i := 0; i < len(w); i++ {
		a := w[i]
		next := func() (string, bool) {
			if i+1 >= len(w) {
				return "", false
			}
			i++
			return w[i], true
		}
		var ok bool
		switch {
		case a == "-I":
			vmknic, ok = next()
		case a == "-S":
			netstack, ok = next()
		case strings.HasPrefix(a, "++netstack="):
			netstack, ok = strings.TrimPrefix(a, "++netstack="), true
		case a == "-s":
			var v string
			if v, ok = next(); ok {
				n, err := strconv.Atoi(v)
				payload, ok = n, err == nil
			}
		case a == "-c":
			count, ok = next()
		case a == "-i":
			interval, ok = next()
		case a == "-W":
			wait, ok = next()
		case a == "-t", a == "-w":
			_, ok = next()
		case a == "-d":
			df, ok = true, true
		case a == "-4", a == "-D", a == "-v":
			ok = true
		case !strings.HasPrefix(a, "-") && target == "":
			target, ok = a, true
		}
		if !ok {
			return Recognized{}, false
		}
	}
	addr, err := netip.ParseAddr(target)
	if err != nil || !addr.Is4() {
		return Recognized{}, false
	}
	r.Kind = catalog.KindVmkping
	// The catalogue line with the run's own count, interval and wait when
	// they fit it (a probe of the scan), else the legacy -c 3 form.
	if c, err := build(catalog.KindVmkping, vmknic, netstack, count, interval, wait, strconv.Itoa(payload), target); err == nil && df && count != "" {
		r.Line = c.Line
		return r, true
	}
	if c, err := Vmkping(vmknic, netstack, target, payload); err == nil && df {
		r.Line = c.Line
		return r, true
	}
	r.Line = "vmkping " + strings.Join(w, " ")
	return r, true
}
