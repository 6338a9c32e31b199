package hostio

import (
	"strings"
	"testing"
)

// vSphere faults are said in words: no XML reaches a report.
func TestFaultWords(t *testing.T) {
	const ns = `<LocalizedMethodFault><fault xmlns:_XMLSchema-instance="http://www.w3.org/2001/XMLSchema-instance" _XMLSchema-instance:type="NotFound"></fault><localizedMessage>The object or item referred to could not be found.</localizedMessage></LocalizedMethodFault>`
	const cli = `<LocalizedMethodFault><fault xmlns:_XMLSchema-instance="http://www.w3.org/2001/XMLSchema-instance" _XMLSchema-instance:type="VimEsxCLICLIFault"><errMsg>Unable to find option</errMsg></fault><localizedMessage>EsxCLI.CLIFault.summary</localizedMessage></LocalizedMethodFault>`
	const odd = `<LocalizedMethodFault><fault xsi:type="SomethingNew"></fault><localizedMessage>Disk full.</localizedMessage></LocalizedMethodFault>`
	for _, c := range []struct{ in, want string }{
		{ns, "does not serve this esxcli namespace"},
		{cli, "esxcli on the host said: Unable to find option (vSphere fault VimEsxCLICLIFault)"},
		{odd, "Disk full. (vSphere fault SomethingNew)"},
		{`<LocalizedMethodFault><fault xsi:type="NoPermission"/></LocalizedMethodFault>`, "lacks a privilege"},
		{`<LocalizedMethodFault><fault xsi:type="InvalidLogin"></fault></LocalizedMethodFault>`, "refused the user name or password"},
	} {
		got := FaultWords(c.in, "")
		if !strings.Contains(got, c.want) || strings.Contains(got, "<") {
			t.Errorf("FaultWords(%.60q) = %q, want %q", c.in, got, c.want)
		}
		wrapped := PlainFaults("`esxcli network nic list` failed: not collected through the vSphere API: " + c.in + ".")
		if strings.Contains(wrapped, "<") || !strings.HasPrefix(wrapped, "`esxcli network nic list` failed: not collected through the vSphere API: ") {
			t.Errorf("PlainFaults: %q", wrapped)
		}
	}
	if s := "no fault <here>"; PlainFaults(s) != s {
		t.Errorf("PlainFaults changed %q", s)
	}
}
