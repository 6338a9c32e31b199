package parse

import "testing"

// seedGuest adds every guest sample and the guest test inputs.
func seedGuest(f *testing.F) {
	seed(f)
	for _, body := range samples(f, "guest") {
		f.Add(body)
	}
	for _, s := range []string{guestSysfs, guestIPLink, guestIPAddr, guestDevinfo, guestOSRelease, guestDpkg, guestLsmod, guestModinfo} {
		f.Add(s)
	}
}

func fuzzGuestList[T any](f *testing.F, p func(string) ([]T, error), ref func(T) Ref) {
	seedGuest(f)
	fuzzListBody(f, p, ref)
}

func fuzzGuestOne[T any](f *testing.F, p func(string) (T, error), ref func(T) Ref) {
	seedGuest(f)
	fuzzOneBody(f, p, func(t *testing.T, text string, v T) {
		if r := ref(v); r.Line != 0 {
			checkRef(t, text, r)
		}
	})
}

func FuzzIBVDevinfo(f *testing.F) {
	fuzzGuestList(f, IBVDevinfo, func(d IBDevice) Ref {
		for _, p := range d.Ports {
			for _, g := range p.GIDs {
				if g.Line == 0 {
					panic("GID without line")
				}
			}
		}
		return d.Ref
	})
}
func FuzzIBVDevices(f *testing.F) {
	fuzzGuestList(f, IBVDevices, VerbsDevice.evidence)
}
func FuzzRDMALinkShow(f *testing.F) {
	fuzzGuestList(f, RDMALinkShow, RDMALink.evidence)
}
func FuzzIPLink(f *testing.F) { fuzzGuestList(f, IPLink, NetLink.evidence) }
func FuzzIPAddr(f *testing.F) { fuzzGuestList(f, IPAddr, NetAddr.evidence) }
func FuzzSysfsPorts(f *testing.F) {
	fuzzGuestList(f, SysfsPorts, SysfsPort.evidence)
}
func FuzzSysfsListing(f *testing.F) {
	fuzzGuestList(f, SysfsListing, VerbsDevice.evidence)
}
func FuzzLsmod(f *testing.F)     { fuzzGuestList(f, Lsmod, KernelModule.evidence) }
func FuzzDpkgQuery(f *testing.F) { fuzzGuestList(f, DpkgQuery, Package.evidence) }
func FuzzRPMQuery(f *testing.F)  { fuzzGuestList(f, RPMQuery, Package.evidence) }
func FuzzDmesgPVRDMA(f *testing.F) {
	fuzzGuestList(f, DmesgPVRDMA, DmesgLine.evidence)
}
func FuzzPerftestBW(f *testing.F) {
	fuzzGuestList(f, PerftestBW, BandwidthResult.evidence)
}
func FuzzUnameRelease(f *testing.F) {
	fuzzGuestOne(f, UnameRelease, KernelRelease.evidence)
}
func FuzzOSReleaseFile(f *testing.F) {
	fuzzGuestOne(f, OSReleaseFile, OSRelease.evidence)
}
func FuzzModinfo(f *testing.F)   { fuzzGuestOne(f, Modinfo, ModInfo.evidence) }
func FuzzOFEDInfoS(f *testing.F) { fuzzGuestOne(f, OFEDInfoS, OFEDInfo.evidence) }
