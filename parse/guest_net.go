package parse

import (
	"net/netip"
	"regexp"
	"strconv"
	"strings"
)

// Parsers of iproute2's `ip -o link` and `ip -o addr` (one line per
// interface or address, continuation lines joined with "\"); the
// multi-line `ip link` / `ip addr` forms read too.

var (
	// 2: ens192: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 1500 qdisc mq state UP ...
	// (the index may be trimmed by a copy: "ens192.4093@ens192: <...> ...")
	reIPLinkHead = regexp.MustCompile(`^(?:([0-9]+):\s+)?([^\s:@]+)(?:@([^\s:]+))?:\s+<([^>]*)>\s*(.*)$`)
	// 2: ens192    inet 10.0.0.5/24 brd 10.0.0.255 scope global ens192 (ip -o addr)
	reIPAddrOne = regexp.MustCompile(`^([0-9]+):\s+([^\s@]+)(?:@\S+)?\s+(inet6?)\s+(\S+)(.*)$`)
	// inet 10.0.0.5/24 brd ... scope global ens192 (continuation of ip addr)
	reIPAddrCont = regexp.MustCompile(`^(inet6?)\s+(\S+)(.*)$`)
	reLinkEther  = regexp.MustCompile(`^link/(?:ether|infiniband)\s+([0-9a-fA-F:]+)`)
	reIPScope    = regexp.MustCompile(`\bscope\s+(\S+)`)
	reIPMTU      = regexp.MustCompile(`\bmtu\s+([0-9]+)`)
	reIPState    = regexp.MustCompile(`\bstate\s+(\S+)`)
)

// IPLink parses `ip -o link` (or `ip link`, `ip addr`): the interfaces.
func IPLink(text string) ([]NetLink, error) {
	links, _, n, sk := readIP(text)
	return result(links, n, sk)
}

// IPAddr parses `ip -o addr` (or `ip addr`): the addresses.
func IPAddr(text string) ([]NetAddr, error) {
	_, addrs, n, sk := readIP(text)
	return result(addrs, n, sk)
}

func readIP(text string) (links []NetLink, addrs []NetAddr, n int, sk skips) {
	cur := -1 // index in links of the interface being read (multi-line form)
	curName := ""
	for _, l := range guestClean(text) {
		if strings.TrimSpace(l.text) == "" {
			continue
		}
		// -o joins an interface's lines with "\" + spaces.
		segs := strings.Split(l.text, "\\")
		first := strings.TrimSpace(segs[0])
		if first == "" {
			continue
		}
		switch {
		case reIPLinkHead.MatchString(first):
			m := reIPLinkHead.FindStringSubmatch(first)
			nl := NetLink{Name: m[2], Parent: m[3], Ref: l.ref()}
			nl.Index, _ = strconv.Atoi(m[1])
			for _, f := range strings.Split(m[4], ",") {
				if f != "" {
					nl.Flags = append(nl.Flags, f)
				}
			}
			if mm := reIPMTU.FindStringSubmatch(m[5]); mm != nil {
				nl.MTU, _ = strconv.Atoi(mm[1])
				nl.MTURef = l.ref()
			}
			if mm := reIPState.FindStringSubmatch(m[5]); mm != nil {
				nl.State = mm[1]
			}
			links = append(links, nl)
			cur, curName = len(links)-1, nl.Name
			n++
		case reIPAddrOne.MatchString(first):
			m := reIPAddrOne.FindStringSubmatch(first)
			if a, ok := netAddr(m[2], m[3], m[4], m[5], l); ok {
				addrs = append(addrs, a)
				n++
			} else {
				sk.add(l.ref(), nil, "unreadable address")
			}
			cur, curName = -1, m[2]
			continue
		case reIPAddrCont.MatchString(first) && curName != "":
			m := reIPAddrCont.FindStringSubmatch(first)
			if a, ok := netAddr(curName, m[1], m[2], m[3], l); ok {
				addrs = append(addrs, a)
				n++
			} else {
				sk.add(l.ref(), nil, "unreadable address")
			}
		case reLinkEther.MatchString(first) && cur >= 0:
			links[cur].MAC = strings.ToLower(reLinkEther.FindStringSubmatch(first)[1])
		case strings.HasPrefix(first, "link/") || strings.HasPrefix(first, "valid_lft") || strings.HasPrefix(first, "altname") ||
			strings.HasPrefix(first, "vlan "):
			// details of the current interface the checks do not read
		case curName != "" && strings.TrimLeft(l.text, " \t") != l.text:
			// Other indented details of the current interface (`ip -d`:
			// promiscuity, the driver's kind and parameters; `ip -s`: its
			// counters), which the checks do not read either.
		default:
			sk.add(l.ref(), nil, "not an ip link or address line")
			continue
		}
		for _, s := range segs[1:] {
			s = strings.TrimSpace(s)
			if m := reLinkEther.FindStringSubmatch(s); m != nil && cur >= 0 {
				links[cur].MAC = strings.ToLower(m[1])
			}
		}
	}
	return links, addrs, n, sk
}

func netAddr(iface, family, cidr, rest string, l line) (NetAddr, bool) {
	p, err := netip.ParsePrefix(cidr)
	if err != nil {
		a, err2 := netip.ParseAddr(cidr)
		if err2 != nil {
			return NetAddr{}, false
		}
		p = netip.PrefixFrom(a, a.BitLen())
	}
	a := NetAddr{Interface: iface, Family: family, Address: p.Addr().String(), Prefix: p.Bits(), Ref: l.ref()}
	if m := reIPScope.FindStringSubmatch(rest); m != nil {
		a.Scope = m[1]
	}
	return a, true
}
