package collect

import "strings"

// Errors the offline readers (package bundle) set on captures whose output
// is absent because of the input, not because the command failed on the
// host. Rules match on them (InputDamaged, NotInInput) to give the right fix.
const (
	// ErrMissingFromBundle: the bundle lists the command, but its output
	// file is gone (truncated or damaged bundle).
	ErrMissingFromBundle = "output missing from the bundle"
	// ErrCorruptInBundle: the output failed its checksum.
	ErrCorruptInBundle = "output corrupt in the bundle (checksum mismatch)"
	// ErrNotInTranscript: a stage-1 command absent from a pasted transcript.
	ErrNotInTranscript = "not in the transcript"
	// ErrNotSaved: a stage-1 command with no file in a folder of saved outputs.
	ErrNotSaved = "no saved output for it"
)

// InputDamaged reports whether a capture error says the output was lost
// from a damaged bundle.
func InputDamaged(err string) bool {
	return err == ErrMissingFromBundle || err == ErrCorruptInBundle
}

// NotInInput reports whether a capture error says the command is simply
// not part of an offline input (transcript, saved outputs).
func NotInInput(err string) bool {
	return err == ErrNotInTranscript || err == ErrNotSaved
}

// ErrHostUnreached prefixes the error of the commands a host did not run
// because its connection failed while another source (vCenter) gave data
// for it; the connection error follows.
const ErrHostUnreached = "host not reached: "

// HostUnreached reports whether a capture error says its host's
// connection failed (see ErrHostUnreached).
func HostUnreached(err string) bool { return strings.HasPrefix(err, ErrHostUnreached) }

// ErrNeedsSSH prefixes the error of a command that is not esxcli (vsish,
// vmkping) on a host reached through the vSphere API only.
const ErrNeedsSSH = "needs SSH: "

// NeedsSSH is the error of a command tool cannot run on host without SSH
// (sshErr: why SSH failed, if known): why, and the one-line ways to enable
// SSH for the time of a scan.
func NeedsSSH(tool, host, sshErr string) string {
	why := "SSH is off or refused on " + host
	if sshErr != "" {
		why = "SSH failed on " + host + " (" + sshErr + ")"
	}
	return ErrNeedsSSH + tool + " is not an esxcli command, so the vSphere API cannot run it, and " + why +
		"; the checks that read it are not evaluated. Enable SSH for the scan: vSphere Client > " + host +
		" > Configure > System > Services > SSH > Start, or `govc host.service -host " + host +
		" start TSM-SSH`, or `vim-cmd hostsvc/enable_ssh` in the ESXi Shell; stop it afterwards"
}

// IsNeedsSSH reports whether a capture error is NeedsSSH's.
func IsNeedsSSH(err string) bool { return strings.HasPrefix(err, ErrNeedsSSH) }
