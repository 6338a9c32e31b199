package checks

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
)

// Which guest releases have the vmw_pvrdma driver. Upstream Linux has it
// since 4.6 (VMware's VM administration guide), but distributions backport
// it to older kernels: VMware's PVRDMA study (seed 002, Guest Operating
// System Setup) lists, for RoCE v1, CentOS 7.2 or later, RHEL 7.2 or
// later, SLES 12 SP1 or later, Oracle Linux 7 UEK R4 or later, Ubuntu LTS
// 14.04 or later and Photon OS 3.0 or later (RoCE v2: 7.3, SLES 12 SP3,
// UEK R5, Ubuntu 16.04.2), and ran its test bed on CentOS 7.6, kernel
// 3.10.0-957.

// guestRelease is what a guest's os-release and kernel say about its
// distribution release.
type guestRelease struct {
	// Name is the release as shown ("CentOS Linux 7 (Core), 7.6 by its
	// kernel 3.10.0-957").
	Name string
	// Listed: seed 002 lists the release as supporting PVRDMA.
	Listed bool
	// Upgrade names the releases of the same family that do (RoCE v2
	// included), for the fix ("" when the family is not listed).
	Upgrade string
}

// rhel7Kernels are the first kernel builds (3.10.0-N) of each RHEL 7 minor
// release, 7.0 to 7.9 (Red Hat's release dates; CentOS 7 ships the same).
var rhel7Kernels = []int{123, 229, 327, 514, 693, 862, 957, 1062, 1127, 1160}

// rhel7Minor derives the RHEL 7 minor release from a 3.10.0-N kernel
// (-1 when the release is not such a kernel).
func rhel7Minor(release string) int {
	rest, ok := strings.CutPrefix(release, "3.10.0-")
	if !ok {
		return -1
	}
	n, _ := leadingInt(rest)
	minor := -1
	for i, first := range rhel7Kernels {
		if n >= first {
			minor = i
		}
	}
	return minor
}

// leadingInt reads the digits at the start of s.
func leadingInt(s string) (int, bool) {
	i := 0
	for i < len(s) && s[i] >= '0' && s[i] <= '9' {
		i++
	}
	n, err := strconv.Atoi(s[:i])
	return n, err == nil
}

// majorMinor reads "7.6", "14.04", "12" (minor -1 when absent).
func majorMinor(v string) (int, int, bool) {
	a, b, hasMinor := strings.Cut(strings.TrimSpace(v), ".")
	major, ok := leadingInt(a)
	if !ok {
		return 0, 0, false
	}
	minor := -1
	if hasMinor {
		if m, ok := leadingInt(b); ok {
			minor = m
		}
	}
	return major, minor, true
}

// releaseOf judges a guest's release against seed 002's list.
func releaseOf(g *facts.Guest) guestRelease {
	if g.OS == nil {
		return guestRelease{Name: "an unknown distribution (no /etc/os-release)"}
	}
	kernel := ""
	if g.Kernel != nil {
		kernel = g.Kernel.Release
	}
	id := strings.ToLower(strings.TrimSpace(g.OS.ID))
	name := strings.TrimSpace(g.OS.PrettyName)
	if name == "" {
		name = strings.TrimSpace(g.OS.ID + " " + g.OS.VersionID)
	}
	major, minor, ok := majorMinor(g.OS.VersionID)
	r := guestRelease{Name: name}
	switch id {
	case "rhel", "centos":
		r.Upgrade = "CentOS/RHEL 7.3 or later"
		if ok && major == 7 && minor < 0 {
			// CentOS 7's os-release says "7" only: the kernel build says
			// which minor release it is.
			if m := rhel7Minor(kernel); m >= 0 {
				minor = m
				r.Name = fmt.Sprintf("%s, 7.%d by its kernel %s", name, m, kernel)
			}
		}
		r.Listed = ok && (major > 7 || (major == 7 && minor >= 2))
	case "sles", "sled":
		r.Upgrade = "SLES 12 SP3 or later"
		r.Listed = ok && (major > 12 || (major == 12 && minor >= 1))
	case "ol":
		r.Upgrade = "Oracle Linux 7 with the Unbreakable Enterprise Kernel R5 or later"
		// UEK R4 is kernel 4.1.12; the Red Hat compatible kernel is not
		// listed.
		uek := strings.Contains(kernel, "uek") && g.Kernel != nil && g.Kernel.AtLeast(4, 1)
		r.Listed = ok && major >= 7 && uek
	case "ubuntu":
		r.Upgrade = "Ubuntu 16.04.2 LTS or later"
		r.Listed = ok && (major > 14 || (major == 14 && minor >= 4))
	case "photon":
		r.Upgrade = "Photon OS 3.0 or later"
		r.Listed = ok && major >= 3
	}
	return r
}

func checkGuestKernelTooOld(in *Input, r *Reporter) {
	g := in.Guest
	if g.Kernel == nil {
		r.NotEvaluated(g.Guest, "`uname -r` gave no kernel release")
		return
	}
	// The driver itself is the proof, whatever the version number says.
	if _, loaded := g.HasModule("vmw_pvrdma"); loaded || len(g.Adapters) > 0 || g.PVRDMAModule != nil {
		r.Pass(g.Guest)
		return
	}
	rel := releaseOf(g)
	if rel.Listed || g.Kernel.AtLeast(4, 6) {
		r.Pass(g.Guest) // GUEST_NO_PVRDMA_DEVICE says why its device is missing
		return
	}
	ev := []Evidence{Ev(g.Guest, g.Kernel.Ref)}
	if g.OS != nil {
		ev = append(ev, Ev(g.Guest, g.OS.Ref))
	}
	sev, module := Warning, "whether its kernel has a vmw_pvrdma module is unknown (`modinfo vmw_pvrdma` gave no answer)"
	if g.ModuleMissing {
		sev, module = Critical, "its kernel has no vmw_pvrdma module (`modinfo vmw_pvrdma`: not found)"
		ev = append(ev, Ev(g.Guest, g.ModuleMissingRef))
	}
	upgrade := rel.Upgrade
	if upgrade == "" {
		upgrade = "a release with kernel 4.6 or later, or one VMware's “PVRDMA Setup and Performance Study” lists"
	}
	r.FailSeverity(sev, g.Guest, g.Guest, fmt.Sprintf("%s runs Linux %s (%s), older than 4.6, where vmw_pvrdma entered upstream Linux, and %s; "+
		"its release is not one VMware's “PVRDMA Setup and Performance Study” lists with the driver backported (CentOS/RHEL 7.2+, SLES 12 SP1+, "+
		"Oracle Linux 7 UEK R4+, Ubuntu 14.04+, Photon OS 3.0+)", g.Guest, g.Kernel.Release, rel.Name, module),
		fmt.Sprintf("Upgrade %s to %s (VMware's “PVRDMA Setup and Performance Study” lists it for RoCE v1 and v2) and reboot; `modinfo vmw_pvrdma` must then find the module.",
			g.Guest, upgrade), ev...)
}
