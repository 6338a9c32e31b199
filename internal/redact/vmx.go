package redact

import (
	"regexp"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// A .vmx writes '"', '|' and control characters of a value as |XX, and a
// hand-edited or hostile one may hold a raw '|' or lowercase escapes: the
// same name in many spellings. Each `key = "value"` line is redacted in
// its decoded (canonical) form and written back escaped, so that every
// spelling of a name gets its token and none escapes it.

// reVMXValue splits a `key = "value"` line: key and opening quote, value,
// closing quote and line end.
var reVMXValue = regexp.MustCompile(`^([ \t]*[A-Za-z0-9_.:\[\]-]+[ \t]*=[ \t]*")(.*)("[ \t]*\r?\n?)$`)

// vmxText redacts the text of a .vmx.
func (r *Redactor) vmxText(s string) string {
	return mapLines(s, func(line string) string {
		if m := reVMXValue.FindStringSubmatch(line); m != nil && strings.Contains(m[2], "|") {
			decoded := parse.VMXUnescape(m[2])
			if rd := r.line(decoded); rd != decoded {
				return r.line(m[1]) + parse.VMXEscape(rd) + m[3]
			}
		}
		return r.line(line)
	})
}

// learnVMX learns the display name a .vmx records (decoded): the name of
// a VM whose other listings spell it another way.
func (r *Redactor) learnVMX(text string) {
	if c, err := parse.VMConfigFromVMX(text); err == nil || c.Name != "" {
		r.learnName(TokenVM, c.Name)
	}
}
