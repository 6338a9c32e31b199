package integration

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"golang.org/x/crypto/ssh"

	"github.com/pvrdma-doctor/pvrdma-doctor/cmd/pvrdma-doctor/internal/cli"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/standin"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// installGuestStandin puts the guest stand-in under the guest command
// names in dir/gbin and copies the scenario's guest folder.
func installGuestStandin(t *testing.T, dir, scenario, guest string) {
	t.Helper()
	if err := standin.Guest.Install(filepath.Join(dir, "gbin")); err != nil {
		t.Fatal(err)
	}
	copyScenarioHost(t, dir, scenario, guest)
}

// A scan of an ESXi stand-in host (esx01 of mixed) and of one of its VMs'
// guests (hpc-node01), each behind its own OpenSSH sshd: the guest runs
// only guest commands through a real login shell, its port down is tied to
// its host-side adapter by MAC and, the host side being healthy, reported
// as the root cause in the guest with the host's evidence.
func TestOpenSSHGuestScan(t *testing.T) {
	dir, clientKey := keyWorld(t, "mixed")
	installGuestStandin(t, dir, "mixed", "hpc-node01")
	cfg := `AuthorizedKeysFile %s
UsePAM no
KbdInteractiveAuthentication no
SetEnv PATH=%s:/usr/bin:/bin PVRDMA_SCENARIO_DIR=%s PVRDMA_SCENARIO_HOST=%s
`
	host := startSSHD(t, dir, "esx01", fmt.Sprintf(cfg, filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "bin"), filepath.Join(dir, "scenario"), "esx01"))
	guest := startSSHD(t, dir, "hpc-node01", fmt.Sprintf(cfg, filepath.Join(dir, "authorized_keys"), filepath.Join(dir, "gbin"), filepath.Join(dir, "scenario"), "hpc-node01"))
	kh := filepath.Join(dir, "known_hosts")
	os.WriteFile(kh, []byte(host.knownHostsLine(ssh.KeyAlgoED25519)+guest.knownHostsLine(ssh.KeyAlgoED25519)), 0o600)
	hosts := filepath.Join(dir, "hosts")
	os.WriteFile(hosts, []byte("esx01 "+host.addr+"\n"), 0o644)
	guests := filepath.Join(dir, "guests")
	os.WriteFile(guests, []byte("hpc-node01 "+guest.addr+"\n"), 0o644)
	me := currentUser(t)
	code, r, errOut := scanCLI(t, nil, "--hosts-file", hosts, "--guests-file", guests, "-i", clientKey, "--user", me,
		"--guest-user", me, "--known-hosts", kh, "--ssh-config", filepath.Join(dir, "no_config"))
	if code != cli.ExitCritical || len(r.Guests) != 1 {
		t.Fatalf("exit %d, %d guests; stderr: %s", code, len(r.Guests), errOut)
	}
	g := r.Guests[0]
	if g.Status != hostio.StatusCollected || g.Role != hostio.RoleGuest {
		t.Fatalf("guest: %s %q", g.Status, g.Reason)
	}
	for _, c := range g.Commands {
		if c.Status != hostio.StatusCollected {
			t.Errorf("guest command %q: %s %s", c.Command, c.Status, c.Error)
		}
	}
	for _, c := range g.Commands[:3] {
		t.Logf("DEBUG %+v", c)
	}
	if len(g.Adapters) != 1 || g.Adapters[0].Host != "esx01" || g.Adapters[0].VM != "hpc-node01" || g.Adapters[0].PortState != "DOWN" {
		t.Errorf("adapter pair %+v", g.Adapters)
	}
	found := false
	for _, f := range r.Findings {
		if f.RuleID == "GUEST_PORT_DOWN" && f.Host == "hpc-node01" {
			found = f.CausedBy == nil && len(f.Evidence) >= 2 && f.Evidence[1].Host == "esx01"
		}
		if f.Host == "hpc-node01" && f.RuleID != "GUEST_PORT_DOWN" && f.Status == "fail" {
			t.Errorf("unexpected guest finding %s %s", f.RuleID, f.Subject)
		}
	}
	if !found {
		t.Errorf("GUEST_PORT_DOWN on hpc-node01 is not the root cause with the host's evidence: %+v", r.Findings)
	}
}
