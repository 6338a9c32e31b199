package parse

import "strings"

var vmKeys = []string{"World ID", "Process ID", "VMX Cartel ID", "UUID", "Display Name", "Config File"}

// VMProcessList parses `esxcli vm process list`. A VM's display name is its
// "Display Name:" value (the title line above it usually says the same,
// but not always: it is kept as Title); the title stands in for a record
// without "Display Name:". A VM whose block cannot be read is left out and
// listed in a *PartialError returned with the others.
func VMProcessList(text string) ([]VMProcess, error) {
	return readList(text, layoutRecords, vmKeys, []string{"World ID"}, "VM skipped", func(r Record, e *errs) VMProcess {
		name := r.Get("Display Name")
		if !r.Has("Display Name") || name == "" {
			name = r.Title
		}
		wid := r.Get("World ID")
		if wid == "" || strings.Trim(wid, "0123456789") != "" {
			e.err = errorf(r.RefOf("World ID").Line, "VM %q: World ID %q is not a number", name, wid)
		}
		return VMProcess{
			DisplayName: name,
			Title:       r.Title,
			WorldID:     wid,
			ProcessID:   r.Get("Process ID"),
			CartelID:    r.Get("VMX Cartel ID"),
			UUID:        r.Get("UUID"),
			ConfigFile:  r.Get("Config File"),
			ConfigFileLine: func() int {
				if f, ok := r.Field("Config File"); ok {
					return f.Ref.Line
				}
				return 0
			}(),
			Ref: r.Ref,
		}
	})
}

// ConfigFileAsWritten returns the Config File as text (the output p was
// read from) writes it, byte for byte: the value of its line, with only
// the ASCII blanks around it trimmed. ConfigFile itself went through what
// copying normalises (a no-break space reads as a space, colour sequences
// are dropped), which is right for reading a paste and wrong for a path
// sent back to the host: "a<U+00A0>b" would name another folder. It is
// ConfigFile when the line is not known.
func (p VMProcess) ConfigFileAsWritten(text string) string {
	if p.ConfigFileLine <= 0 {
		return p.ConfigFile
	}
	n := 0
	for l := range strings.Lines(text) {
		if n++; n < p.ConfigFileLine {
			continue
		}
		l = strings.TrimRight(l, "\n")
		l = strings.TrimSuffix(l, "\r")
		_, v, ok := strings.Cut(l, ":")
		if !ok {
			return p.ConfigFile
		}
		return strings.Trim(v, " \t")
	}
	return p.ConfigFile
}
