package parse

import (
	"regexp"
	"strconv"
	"strings"
)

var (
	rePingHead  = regexp.MustCompile(`^PING (\S+) \(([^)\s]+)\): ([0-9]+) data bytes$`)
	rePingReply = regexp.MustCompile(`^[0-9]+ bytes from [^:]+: icmp_seq=[0-9]+`)
	rePingStats = regexp.MustCompile(`^([0-9]+) packets transmitted, ([0-9]+) (?:packets )?received(?:, \+[0-9]+ (?:duplicates|errors))?, ([0-9.]+)% packet loss`)
	rePingRTT   = regexp.MustCompile(`^round-trip min/avg/max(?:/[a-z-]+)? = ([0-9.]+)/([0-9.]+)/([0-9.]+)`)
	rePingFail  = regexp.MustCompile(`^(?:sendto\(\) failed \((.+)\)|Request timeout for icmp_seq[ =]?[0-9]+|ping: .+|vmkping: .+)$`)
)

// Vmkping parses one vmkping (or `ping ++netstack=...`) run, BSD style.
// Without a statistics block (an interrupted run) HasStats is false and
// Transmitted/Received count the attempts and replies seen.
// A line that is none of these is skipped and reported in a *PartialError.
func Vmkping(text string) (Ping, error) {
	var sk skips
	ls := dropElisions(clean(text, false), &sk)
	n := 0
	var p Ping
	head := false
	sawStatsTitle := false
	replies, attempts := 0, 0
	for _, l := range ls {
		t := strings.TrimSpace(l.text)
		if t == "" {
			continue
		}
		if !head {
			m := rePingHead.FindStringSubmatch(t)
			if m == nil {
				return Ping{}, errorf(l.no, "expected \"PING ip (ip): N data bytes\", got %q", t)
			}
			head = true
			p.Target = m[2]
			p.Payload, _ = strconv.Atoi(m[3])
			p.Ref = l.ref()
			continue
		}
		switch {
		case rePingReply.MatchString(t):
			replies++
			attempts++
		case rePingFail.MatchString(t):
			attempts++
			if strings.Contains(t, "Message too long") {
				p.MessageTooLong = true
			}
			p.Failures = append(p.Failures, t)
			if p.FailureRef.Line == 0 {
				p.FailureRef = l.ref()
			}
		case strings.HasPrefix(t, "--- ") && strings.HasSuffix(t, " ping statistics ---"):
			sawStatsTitle = true
		case rePingStats.MatchString(t):
			m := rePingStats.FindStringSubmatch(t)
			p.Transmitted, _ = strconv.Atoi(m[1])
			p.Received, _ = strconv.Atoi(m[2])
			p.LossPercent, _ = strconv.ParseFloat(m[3], 64)
			p.HasStats = true
			p.Ref = l.ref()
		case rePingRTT.MatchString(t):
			m := rePingRTT.FindStringSubmatch(t)
			p.MinMs, _ = strconv.ParseFloat(m[1], 64)
			p.AvgMs, _ = strconv.ParseFloat(m[2], 64)
			p.MaxMs, _ = strconv.ParseFloat(m[3], 64)
		default:
			sk.add(l.ref(), nil, "unexpected ping output: skipped")
			continue
		}
		n++
	}
	if !head {
		return Ping{}, &Error{Msg: "empty output: expected a \"PING ip (ip): N data bytes\" line"}
	}
	if sawStatsTitle && !p.HasStats {
		return Ping{}, errorf(ls[len(ls)-1].no, "ping statistics without a \"packets transmitted\" line")
	}
	if !p.HasStats {
		p.Transmitted, p.Received = attempts, replies
	}
	return result(p, n+1, sk)
}

var rePingVmknic = regexp.MustCompile(`-I\s+(vmk[0-9]+)`)

// Vmknic returns the vmknic the probe was sent from (read from its
// command's -I option; "" when it names none).
func (p Ping) Vmknic() string {
	if m := rePingVmknic.FindStringSubmatch(p.Command); m != nil {
		return m[1]
	}
	return ""
}

// Failed reports whether no reply came back: the sending host refused the
// probe, the statistics count no reply, or (without statistics) the run
// printed only failures.
func (p Ping) Failed() bool {
	return p.MessageTooLong || (p.HasStats && p.Received == 0) || (!p.HasStats && len(p.Failures) > 0)
}
