package cli

import (
	"crypto/sha256"
	"encoding/hex"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect/vcenter/vcsim"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/vclab"
)

// A hostile guest's VMware Tools report its PVRDMA adapter's address as
// guest.ipAddress, and no management address (issue 24.5): the scan never
// dials it. A listener at that address counts every connection.
func TestGuestsFromVCenterNeverDialAPVRDMAAddress(t *testing.T) {
	l, dir := startScanLab(t, "mixed", lab.Options{})
	kh := labKnownHosts(t, l, dir)
	writeGuestsFile(t, l, dir, kh)
	port := strconv.Itoa(l.GuestPort())
	const trap = "127.0.1.250"
	ln, err := net.Listen("tcp", net.JoinHostPort(trap, port))
	if err != nil {
		t.Skipf("cannot listen on %s: %v", trap, err)
	}
	defer ln.Close()
	var dialled atomic.Int32
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			dialled.Add(1)
			c.Close()
		}
	}()
	sc := loadScenario(t, "mixed")
	inv := vclab.Inventory(sc, vclab.GuestAddrs(l.Guests()))
	inv.User, inv.Password = "admin@vsphere.local", vcPassword
	found := false
	for i := range inv.Hosts {
		for j := range inv.Hosts[i].VMs {
			vm := &inv.Hosts[i].VMs[j]
			if vm.Name != "hpc-node01" || vm.Guest == nil {
				continue
			}
			for k, a := range vm.Adapters {
				if a.MAC != "" && k > 0 { // the PVRDMA adapters follow the management NIC
					vm.Guest.IPs[k] = []string{trap}
				}
			}
			vm.Guest.IPs[0] = nil
			vm.Guest.IPAddress = trap
			found = true
		}
	}
	if !found {
		t.Fatal("hpc-node01 has no guest in the simulated vCenter")
	}
	s, err := vcsim.Start(inv)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	sum := sha256.Sum256(s.Server.Certificate().Raw)
	code, out, errOut := runVCenterScan(t, dir, map[string]string{"PD_PW": testPassword, "VC_PW": vcPassword},
		"--hosts-file", filepath.Join(dir, "hosts"), "--known-hosts", kh, "--password-env", "PD_PW",
		"--vcenter", s.URL.String(), "--vcenter-password-env", "VC_PW", "--vcenter-thumbprint", hex.EncodeToString(sum[:]),
		"--cluster", "pvrdma-demo", "--guests-from-vcenter", "--guest-port", port, "-o", "json")
	if code != ExitCritical && code != ExitIncomplete {
		t.Fatalf("exit %d; stderr:\n%s", code, errOut)
	}
	if n := dialled.Load(); n != 0 {
		t.Errorf("the PVRDMA adapter's address %s was dialled %d times", trap, n)
	}
	notes := strings.Join(decodeReport(t, out).Notes, "\n")
	if !strings.Contains(notes, "not scanned: hpc-node01 (on esx01): no usable guest address ("+trap+" belongs to a PVRDMA adapter of the VM)") {
		t.Errorf("notes:\n%s", notes)
	}
}
