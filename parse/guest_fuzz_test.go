package parse

import (
	"os"
	"path/filepath"
	"testing"
)

// seedGuest adds every guest sample and the guest test inputs.
func seedGuest(f *testing.F) {
	seed(f)
	files, _ := filepath.Glob(filepath.Join("testdata", "guest", "*.txt"))
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(stripHeader(string(b)))
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
	fuzzGuestList(f, IBVDevices, func(d VerbsDevice) Ref { return d.Ref })
}
func FuzzRDMALinkShow(f *testing.F) {
	fuzzGuestList(f, RDMALinkShow, func(d RDMALink) Ref { return d.Ref })
}
func FuzzIPLink(f *testing.F) { fuzzGuestList(f, IPLink, func(d NetLink) Ref { return d.Ref }) }
func FuzzIPAddr(f *testing.F) { fuzzGuestList(f, IPAddr, func(d NetAddr) Ref { return d.Ref }) }
func FuzzSysfsPorts(f *testing.F) {
	fuzzGuestList(f, SysfsPorts, func(d SysfsPort) Ref { return d.Ref })
}
func FuzzSysfsListing(f *testing.F) {
	fuzzGuestList(f, SysfsListing, func(d VerbsDevice) Ref { return d.Ref })
}
func FuzzLsmod(f *testing.F)     { fuzzGuestList(f, Lsmod, func(d KernelModule) Ref { return d.Ref }) }
func FuzzDpkgQuery(f *testing.F) { fuzzGuestList(f, DpkgQuery, func(d Package) Ref { return d.Ref }) }
func FuzzRPMQuery(f *testing.F)  { fuzzGuestList(f, RPMQuery, func(d Package) Ref { return d.Ref }) }
func FuzzDmesgPVRDMA(f *testing.F) {
	fuzzGuestList(f, DmesgPVRDMA, func(d DmesgLine) Ref { return d.Ref })
}
func FuzzPerftestBW(f *testing.F) {
	fuzzGuestList(f, PerftestBW, func(d BandwidthResult) Ref { return d.Ref })
}
func FuzzUnameRelease(f *testing.F) {
	fuzzGuestOne(f, UnameRelease, func(k KernelRelease) Ref { return k.Ref })
}
func FuzzOSReleaseFile(f *testing.F) {
	fuzzGuestOne(f, OSReleaseFile, func(o OSRelease) Ref { return o.Ref })
}
func FuzzModinfo(f *testing.F)   { fuzzGuestOne(f, Modinfo, func(m ModInfo) Ref { return m.Ref }) }
func FuzzOFEDInfoS(f *testing.F) { fuzzGuestOne(f, OFEDInfoS, func(o OFEDInfo) Ref { return o.Ref }) }
