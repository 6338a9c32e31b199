package report

import (
	"fmt"
	"regexp"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Collection failures, one line per cause per scan: the same refused SSH
// on nine hosts is one line ("SSH refused on 9 hosts: ..."), not nine
// copies of a paragraph. Each host keeps its own detail (the fingerprint
// of its unknown key, ...) once, in the host list.

// FailureCause is one reason hosts or commands could not be collected, with
// every host it hit (report JSON "collection_failures", since 1.4).
type FailureCause struct {
	// Cause is a stable key: ssh_refused, unknown_host_key,
	// host_key_changed, host_key_revoked, auth_failed, dns, timeout,
	// handshake, needs_ssh, not_served_by_api, command_failed,
	// command_timed_out, not_parsed, bundle_damaged, not_in_input,
	// cancelled, other.
	Cause string `json:"cause"`
	// Text is the line people read: "SSH refused on 2 hosts".
	Text string `json:"text"`
	// Fix is what to do, once for all the hosts.
	Fix string `json:"fix,omitempty"`
	// Hosts are the hosts (and guests) it hit, in report order.
	Hosts []string `json:"hosts"`
	// Commands are the commands it hit, for the causes about commands.
	Commands []string `json:"commands,omitempty"`
}

// Line is the cause on one line: text, the first hosts, fix.
func (c FailureCause) Line() string {
	s := c.Text + " (" + nameList(c.Hosts, 3) + ")"
	if c.Fix != "" {
		s += ": " + c.Fix
	}
	return s
}

// nameList names the first n of names and counts the rest: "a, b, c and
// 4 more".
func nameList(names []string, n int) string {
	if len(names) <= n+1 {
		return strings.Join(names, ", ")
	}
	return strings.Join(names[:n], ", ") + fmt.Sprintf(" and %d more", len(names)-n)
}

// causeSpec is how a cause reads.
type causeSpec struct {
	what string // "SSH refused", completed with " on N hosts"
	fix  string
}

var causeSpecs = map[string]causeSpec{
	"ssh_refused": {"SSH refused", "enable SSH (Host > Configure > Services > SSH) or use --vcenter"},
	"unknown_host_key": {"unknown host key", "check each fingerprint above on its host (ESXi Shell: ssh-keygen -lf /etc/ssh/ssh_host_ed25519_key.pub), " +
		"then scan with --accept-new-host-keys"},
	"host_key_changed": {"HOST KEY CHANGED (not connecting: someone may be intercepting)", "if the host was reinstalled, remove its old known_hosts entry (ssh-keygen -R HOST) and scan with --accept-new-host-keys"},
	"host_key_revoked": {"host key marked @revoked in known_hosts (not connecting)", "replace the host's key, or remove the @revoked line if it is wrong"},
	"auth_failed":      {"login refused (wrong password or key)", "check --user and the password (--password-env, --password-file, --ask-password) or key (-i)"},
	"dns":              {"host name does not resolve", "check the names, or set HostName in ~/.ssh/config"},
	"timeout":          {"no answer on SSH (connection timed out)", "check that the host is up, SSH is enabled and port 22 is open from here"},
	"handshake":        {"SSH handshake failed", "check the host's sshd (MaxStartups, TCP wrappers) and scan again"},
	"needs_ssh":        {"vsish and vmkping need SSH, which is off", "enable SSH for the scan (Host > Configure > Services > SSH), scan again, then stop it"},
	"not_served_by_api": {"esxcli commands vCenter's API does not serve (vSphere fault NotFound)",
		"enable SSH for the scan (Host > Configure > Services > SSH) to read them directly"},
	"command_failed":    {"commands failed", "run the command on the host by hand to see why"},
	"command_timed_out": {"commands timed out", "raise --command-timeout if the host is only slow"},
	"not_parsed":        {"outputs could not be parsed", "run the command on the host and attach its output to a bug report if it looks normal"},
	"bundle_damaged":    {"outputs missing or corrupt in the bundle (the bundle is damaged)", "ask for a new bundle"},
	"not_in_input":      {"commands missing from the input", "add their outputs, or scan the hosts with pvrdma-doctor"},
	"cancelled":         {"scan cancelled before these hosts finished", "scan them again"},
	"other":             {"not collected", ""},
}

var (
	reKeyFP  = regexp.MustCompile(`: (\S+) (SHA256:[A-Za-z0-9+/=]+) is not in`)
	reUser   = regexp.MustCompile(`authentication failed for ([^@\s]+)@`)
	reGoHead = regexp.MustCompile(`^(cannot connect to \S+: |ssh handshake with \S+ failed: )`)
)

// classify reads a connection error: its cause key and the short detail
// the host list shows for that host.
func classify(reason string) (cause, detail string) {
	r := strings.TrimSpace(reason)
	switch {
	case strings.Contains(r, "unknown host key for"):
		detail = "unknown host key"
		if m := reKeyFP.FindStringSubmatch(r); m != nil {
			detail += " " + m[1] + " " + m[2]
		}
		return "unknown_host_key", detail
	case strings.Contains(r, "HOST KEY MISMATCH"):
		return "host_key_changed", "HOST KEY CHANGED: not connecting"
	case strings.Contains(r, "@revoked"):
		return "host_key_revoked", "host key revoked: not connecting"
	case strings.Contains(r, "authentication failed"):
		detail = "login refused"
		if m := reUser.FindStringSubmatch(r); m != nil {
			detail += " for " + m[1]
		}
		return "auth_failed", detail
	case strings.Contains(r, "connection refused"):
		return "ssh_refused", "SSH refused"
	case strings.Contains(r, "cannot resolve host name"):
		return "dns", "host name does not resolve"
	case strings.Contains(r, "timed out") && strings.HasPrefix(r, "cannot connect"):
		return "timeout", "no answer on SSH"
	case strings.HasPrefix(r, "ssh handshake with"):
		return "handshake", "SSH handshake failed"
	case strings.HasPrefix(r, "scan cancelled"):
		return "cancelled", "scan cancelled"
	}
	return "other", plainReason(r)
}

// plainReason is a connection error without the Go error chain around it
// and cut to one short sentence, for the host list.
func plainReason(s string) string {
	s = hostio.PlainFaults(s)
	s = reGoHead.ReplaceAllString(s, "")
	if i := strings.Index(s, ". "); i > 0 {
		s = s[:i]
	}
	if len(s) > 100 {
		s = s[:97] + "..."
	}
	return s
}

// sshFailure is why SSH failed on a host reached through vCenter's API
// (the transport's note), or "".
var reSSHFailed = regexp.MustCompile(`^SSH failed \((.*)\): the esxcli commands ran through the vSphere API`)

// collectionFailures sums up a report's collection failures by cause.
// It also sets each entry's short detail (Host.CollectionDetail).
func collectionFailures(r *Report) []FailureCause {
	byCause := map[string]*FailureCause{}
	var order []string
	// viaAPI: the hosts whose esxcli commands vCenter's API ran.
	viaAPI := map[string]bool{}
	// vcOnly: the hosts of which only vCenter's data was read.
	vcOnly := map[string]bool{}
	add := func(cause, host, command string) {
		c := byCause[cause]
		if c == nil {
			c = &FailureCause{Cause: cause}
			byCause[cause] = c
			order = append(order, cause)
		}
		if !contains(c.Hosts, host) {
			c.Hosts = append(c.Hosts, host)
		}
		if command != "" && !contains(c.Commands, command) {
			c.Commands = append(c.Commands, command)
		}
	}
	for _, h := range r.Entries() {
		e := r.entry(h.Host)
		sshCause := ""
		switch {
		case h.Status == hostio.StatusNotCollected:
			sshCause, e.CollectionDetail = classify(h.Reason)
		case strings.Contains(h.Reason, "; only the data read from vCenter is used"):
			sshCause, e.CollectionDetail = classify(strings.TrimSuffix(h.Reason, "; only the data read from vCenter is used"))
			e.CollectionDetail += "; vCenter's data only"
			vcOnly[h.Host] = true
		}
		for _, n := range h.Notes {
			if m := reSSHFailed.FindStringSubmatch(n); m != nil && sshCause == "" {
				sshCause, e.CollectionDetail = classify(m[1])
				e.CollectionDetail += "; esxcli read through vCenter"
				viaAPI[h.Host] = true
			}
		}
		if sshCause != "" {
			add(sshCause, h.Host, "")
		}
		for _, c := range h.Commands {
			switch {
			case c.Status == hostio.StatusCollected:
			case c.Cause == hostio.CauseHostUnreached:
				// Counted with its host's connection failure.
			case c.Cause == hostio.CauseNeedsSSH:
				if sshCause == "" {
					add("needs_ssh", h.Host, c.Command)
				}
			case c.Cause == hostio.CauseNotServedByAPI:
				add("not_served_by_api", h.Host, c.Command)
			case c.Cause.InputDamaged():
				add("bundle_damaged", h.Host, c.Command)
			case c.Cause.NotInInput():
				add("not_in_input", h.Host, c.Command)
			case c.Status == hostio.StatusTimedOut:
				add("command_timed_out", h.Host, c.Command)
			case c.Status == hostio.StatusFailed:
				add("command_failed", h.Host, c.Command)
			}
		}
	}
	for _, f := range r.Findings {
		if f.RuleID == checks.CollectionFailed && f.Status == checks.StatusFail && strings.HasPrefix(f.Message, "output of `") {
			add("not_parsed", f.Host, f.Subject)
		}
	}
	out := make([]FailureCause, 0, len(order))
	for _, k := range order {
		c := *byCause[k]
		spec := causeSpecs[k]
		c.Text = spec.what + " on " + plural(len(c.Hosts), "host", "hosts")
		if len(c.Commands) > 0 {
			c.Text = fmt.Sprintf("%s: %s on %s", spec.what, commandList(c.Commands), plural(len(c.Hosts), "host", "hosts"))
		}
		c.Fix = spec.fix
		if k == "ssh_refused" && vcenterNotRead(r) != "" {
			// --vcenter was given and could not be read: say so, not "use --vcenter".
			c.Fix = "enable SSH (Host > Configure > Services > SSH), or fix what kept vCenter from being read (" + vcenterNotRead(r) + ")"
		}
		all, allVC := true, true
		for _, h := range c.Hosts {
			all = all && viaAPI[h]
			allVC = allVC && vcOnly[h]
		}
		switch {
		case all && c.Commands == nil && k != "other":
			// vCenter already stands in for SSH: say what SSH would add.
			c.Text += ", esxcli read through vCenter"
			c.Fix = "vsish and vmkping need SSH: enable it for the scan (Host > Configure > Services > SSH), then stop it"
		case allVC && c.Commands == nil && k != "other":
			// vCenter's data was read: --vcenter is already there.
			c.Text += ", vCenter's data read"
			c.Fix = "the ESXi commands need SSH: enable it for the scan (Host > Configure > Services > SSH), then stop it"
		}
		if k == "other" {
			// Causes the doctor has no words for: say what the first host said.
			c.Text = "not collected: " + plainReason(r.entry(c.Hosts[0]).Reason) + " on " + plural(len(c.Hosts), "host", "hosts")
		}
		out = append(out, c)
	}
	// The causes that hit the most hosts first.
	sort.SliceStable(out, func(i, j int) bool { return len(out[i].Hosts) > len(out[j].Hosts) })
	return out
}

// commandList names up to two commands and counts the rest.
func commandList(cs []string) string {
	q := make([]string, len(cs))
	for i, c := range cs {
		q[i] = "`" + c + "`"
	}
	if len(q) <= 2 {
		return strings.Join(q, ", ")
	}
	return strings.Join(q[:2], ", ") + fmt.Sprintf(" and %d more", len(q)-2)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// entry returns the host or guest entry named host.
func (r *Report) entry(host string) *Host {
	for i := range r.Hosts {
		if r.Hosts[i].Host == host {
			return &r.Hosts[i]
		}
	}
	for i := range r.Guests {
		if r.Guests[i].Host == host {
			return &r.Guests[i]
		}
	}
	return &Host{}
}

// vcenterNotReadNote starts the note of a scan whose --vcenter could not
// be read (internal/cli).
const vcenterNotReadNote = "vCenter not read: "

// vcenterNotRead is why the vCenter the scan was given could not be read,
// or "".
func vcenterNotRead(r *Report) string {
	for _, n := range r.Notes {
		if why, ok := strings.CutPrefix(n, vcenterNotReadNote); ok {
			return why
		}
	}
	return ""
}
