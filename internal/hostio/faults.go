package hostio

import (
	"regexp"
	"strings"
)

// vSphere faults in words. The esxcli executor of the vSphere API returns
// its faults as SOAP XML (<LocalizedMethodFault><fault
// xsi:type="NotFound">...); no person should read that. FaultWords turns a
// fault into one sentence, and PlainFaults replaces every XML fault in a
// text with its sentence (the reports' safety net for errors recorded by
// older versions, bundles included).

// faultWords says what each vSphere fault means to the person scanning.
var faultWords = map[string]string{
	"NotFound":              "vCenter does not serve this esxcli namespace or command for the host (vSphere fault NotFound)",
	"NoPermission":          "the vCenter user lacks a privilege this read needs (vSphere fault NoPermission): give it a role with Host > Configuration and Global > Diagnostics, or use SSH",
	"InvalidLogin":          "vCenter refused the user name or password (vSphere fault InvalidLogin)",
	"NotAuthenticated":      "the vCenter session is no longer logged in (vSphere fault NotAuthenticated): scan again",
	"HostNotConnected":      "vCenter is not connected to the host (vSphere fault HostNotConnected): the host is disconnected or not responding in vCenter",
	"HostNotReachable":      "vCenter cannot reach the host (vSphere fault HostNotReachable)",
	"InvalidArgument":       "the host rejected an argument of the command (vSphere fault InvalidArgument)",
	"InvalidState":          "the host is not in a state to run the command (vSphere fault InvalidState)",
	"NotSupported":          "the host does not support this command through the API (vSphere fault NotSupported)",
	"ManagedObjectNotFound": "the host is no longer in vCenter's inventory (vSphere fault ManagedObjectNotFound)",
	"RequestCanceled":       "the request was cancelled (vSphere fault RequestCanceled)",
	"Timedout":              "the host did not answer in time (vSphere fault Timedout)",
	"SystemError":           "the host reported a system error (vSphere fault SystemError)",
	"RuntimeFault":          "the host reported an error (vSphere fault RuntimeFault)",
}

var (
	faultBlob    = regexp.MustCompile(`(?s)<LocalizedMethodFault>.*?</LocalizedMethodFault>|<fault\b.*?</fault>|<fault\b[^>]*/>`)
	faultType    = regexp.MustCompile(`type="(?:[A-Za-z0-9_]+:)?([A-Za-z0-9_]+)"`)
	faultMessage = regexp.MustCompile(`(?s)<localizedMessage>(.*?)</localizedMessage>`)
	faultErrMsg  = regexp.MustCompile(`(?s)<errMsg>(.*?)</errMsg>`)
	anyTag       = regexp.MustCompile(`<[^>]*>`)
)

// FaultType returns the vSphere fault type named in a fault's XML detail
// ("NotFound"), or "".
func FaultType(detail string) string {
	if m := faultType.FindStringSubmatch(detail); m != nil {
		return m[1]
	}
	return ""
}

// FaultWords says in one sentence what a vSphere fault means: its XML
// detail (or message) in, words out. Unknown fault types keep the fault's
// own localized message, without markup.
func FaultWords(detail, message string) string {
	typ := FaultType(detail)
	if w, ok := faultWords[typ]; ok {
		return w
	}
	msg := ""
	var said []string
	for _, m := range faultErrMsg.FindAllStringSubmatch(detail, -1) {
		if t := strings.TrimSpace(m[1]); t != "" {
			said = append(said, t)
		}
	}
	if len(said) > 0 {
		// esxcli's own error (VimEsxCLICLIFault): what the host said.
		return "esxcli on the host said: " + strings.Join(strings.Fields(strings.Join(said, "; ")), " ") + " (vSphere fault " + typ + ")"
	}
	if m := faultMessage.FindStringSubmatch(detail); m != nil {
		msg = strings.TrimSpace(m[1])
	}
	if msg == "" {
		msg = strings.TrimSpace(anyTag.ReplaceAllString(message, " "))
	}
	msg = strings.Join(strings.Fields(msg), " ")
	switch {
	case typ != "" && msg != "":
		return msg + " (vSphere fault " + typ + ")"
	case typ != "":
		return "vSphere fault " + typ
	case msg != "":
		return msg
	}
	return "vSphere fault"
}

// PlainFaults replaces every vSphere fault written as XML in s by its
// words (FaultWords); s without one is returned as is.
func PlainFaults(s string) string {
	if !strings.Contains(s, "<LocalizedMethodFault") && !strings.Contains(s, "<fault") {
		return s
	}
	return faultBlob.ReplaceAllStringFunc(s, func(blob string) string { return FaultWords(blob, "") })
}
