package hostio

import (
	"errors"
	"strings"
)

// Cause says why a capture holds no output when that is not the command's
// own failure on the host: the offline input lost or lacks it, or the
// doctor could not ask (the host was not reached, the command needs SSH).
// Rules match on it, never on the capture's error text, to give the right
// fix; the error text says the same for people.
type Cause string

const (
	// CauseMissingFromBundle: the bundle lists the command, but its output
	// file is gone (truncated or damaged bundle).
	CauseMissingFromBundle Cause = "missing_from_bundle"
	// CauseCorruptInBundle: the output failed its checksum.
	CauseCorruptInBundle Cause = "corrupt_in_bundle"
	// CauseNotInTranscript: a stage-1 command absent from a pasted transcript.
	CauseNotInTranscript Cause = "not_in_transcript"
	// CauseNotSaved: a stage-1 command with no file in a folder of saved
	// outputs.
	CauseNotSaved Cause = "not_saved"
	// CauseHostUnreached: a command the host did not run because its
	// connection failed while another source (vCenter) gave data for it;
	// the error's detail is the connection error.
	CauseHostUnreached Cause = "host_unreached"
	// CauseNeedsSSH: a command that is not esxcli (vsish, vmkping) on a host
	// reached through the vSphere API only.
	CauseNeedsSSH Cause = "needs_ssh"
	// CauseNotServedByAPI: an esxcli command that the vSphere API of a
	// host does not serve (fault NotFound: the namespace or command is not
	// registered there), on a host reached through the API only.
	CauseNotServedByAPI Cause = "not_served_by_api"
)

// causeText is each cause's error text: the whole text, or the lead-in of
// a detail (a cause whose text ends in ": ").
var causeText = map[Cause]string{
	CauseMissingFromBundle: "output missing from the bundle",
	CauseCorruptInBundle:   "output corrupt in the bundle (checksum mismatch)",
	CauseNotInTranscript:   "not in the transcript",
	CauseNotSaved:          "no saved output for it",
	CauseHostUnreached:     "host not reached: ",
	CauseNeedsSSH:          "needs SSH: ",
	CauseNotServedByAPI:    "not served by the vSphere API: ",
}

// Error is the capture error of a cause: its fixed text, or its lead-in
// followed by detail (the connection error, the SSH explanation).
func (c Cause) Error(detail string) string { return causeText[c] + detail }

// Detail is what err, the error of a capture of cause c, says after the
// cause's lead-in.
func (c Cause) Detail(err string) string { return strings.TrimPrefix(err, causeText[c]) }

// InputDamaged reports whether the output was lost from a damaged bundle.
func (c Cause) InputDamaged() bool { return c == CauseMissingFromBundle || c == CauseCorruptInBundle }

// NotInInput reports whether the command is simply not part of an offline
// input (transcript, saved outputs).
func (c Cause) NotInInput() bool { return c == CauseNotInTranscript || c == CauseNotSaved }

// CauseError is a transport's error for a command it could not ask for a
// reason the report explains (CauseNeedsSSH): the collector records its
// Cause on the capture.
type CauseError struct {
	Cause  Cause
	Detail string
}

func (e *CauseError) Error() string { return e.Cause.Error(e.Detail) }

// CauseOf is the cause an error carries (a *CauseError), "" for none.
func CauseOf(err error) Cause {
	var ce *CauseError
	if errors.As(err, &ce) {
		return ce.Cause
	}
	return ""
}

// RecordedCause is the cause of a capture recorded before captures carried
// one (bundles of schema 1.0 written before the field existed): read back
// from its error text, which had the same words.
func RecordedCause(err string) Cause {
	for c, text := range causeText {
		if err == text || strings.HasSuffix(text, ": ") && strings.HasPrefix(err, text) {
			return c
		}
	}
	return ""
}
