package collect

import (
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
)

// recognizeVMX recognizes `cat PATH.vmx` as typed in a pasted session:
// the path bare, or in single or double quotes (it may hold spaces). The
// path must be one the catalogue would read (catalog.VMXCommand).
func recognizeVMX(line string, w []string, r Recognized) (Recognized, bool) {
	arg := strings.Join(w[1:], " ")
	if r.Host == "" {
		// The typed line keeps the path's own spacing.
		if i := strings.Index(line, w[0]); i >= 0 {
			arg = strings.TrimSpace(line[i+len(w[0]):])
		}
	}
	if len(arg) >= 2 && (arg[0] == '\'' || arg[0] == '"') && arg[len(arg)-1] == arg[0] {
		arg = arg[1 : len(arg)-1]
	}
	c, err := catalog.VMXCommand(arg)
	if err != nil {
		return Recognized{}, false
	}
	r.Kind, r.Line = catalog.KindVMX, c.Line
	return r, true
}
