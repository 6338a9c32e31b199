package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
)

// A messy two-host paste: analyze reports per host what it read, what it
// skipped (with the transcript's line numbers) and which checks that cost.
func TestAnalyzeMessyPasteSummary(t *testing.T) {
	text := "$ ssh root@esx01 esxcli network ip interface ipv4 get\n" +
		"Name  IPv4 Address  IPv4 Netmask   IPv4 Broadcast  Address Type  Gateway  DHCP DNS\n" +
		"----  ------------  -------------  --------------  ------------  -------  --------\n" +
		"vmk2  172.32.0.4  255.255.255.0  172.32.0.255  STATIC  0.0.0.0 false\n" +
		"[root@esx01:~] esxcli network ip interface list\n" +
		"vmk0\n   Name: vmk0\n   MTU: 1500\n   Enabled: maybe\n\n" +
		"vmk2\n   Name: vmk2\n   Enabled: true\n   MTU: 9000\n" +
		"[root@esx02:~] ping esx01\n" +
		"[root@esx02:~] localcli system version get\n   Product: VMware ESXi\n   Version: 8.0.3\n"
	p := filepath.Join(t.TempDir(), "session.txt")
	os.WriteFile(p, []byte(text), 0o644)
	code, out, stderr := runCLI(t, "", "analyze", p, "--output", "json")
	if code != ExitIncomplete {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
	var rep struct {
		Hosts []struct {
			Host  string   `json:"host"`
			Notes []string `json:"notes"`
		} `json:"hosts"`
	}
	if err := json.Unmarshal([]byte(out), &rep); err != nil {
		t.Fatal(err)
	}
	if len(rep.Hosts) != 2 {
		t.Fatalf("hosts: %+v", rep.Hosts)
	}
	e1 := strings.Join(rep.Hosts[0].Notes, "\n")
	testutil.ContainsAll(t, "esx01 notes", e1,
		"input: read 2 command(s)",
		"`ssh root@esx01 esxcli network ip interface ipv4 get` (line 1, read as `esxcli network ip interface ipv4 get`)",
		"input: skipped `esxcli network ip interface list`: line 6: vmknic skipped (line 9: Enabled: expected true or false",
		"input: not evaluated because of what was skipped: PVRDMA_VMKNIC_NO_IPV4",
	)
	e2 := strings.Join(rep.Hosts[1].Notes, "\n")
	if !strings.Contains(e2, "passed over 1 command(s) that are not pvrdma-doctor's: line 15 `ping esx01`") || rep.Hosts[1].Host != "esx02" {
		t.Errorf("esx02 notes:\n%s", e2)
	}
	if !strings.Contains(stderr, "esx01") || !strings.Contains(stderr, "line 6: vmknic skipped") {
		t.Errorf("stderr:\n%s", stderr)
	}
	if strings.Contains(out+stderr, "parser bug") || strings.Contains(out, `"host": "unknown-host"`) {
		t.Errorf("ping made a host or a parser bug:\n%s", out)
	}
}

// parse: one bad row is skipped with a warning naming its line; the rest
// is printed and the exit status says the output was incomplete.
func TestParsePartialOutput(t *testing.T) {
	text := "Name  IPv4 Address  IPv4 Netmask   IPv4 Broadcast  Address Type  Gateway  DHCP DNS\n" +
		"----  ------------  -------------  --------------  ------------  -------  --------\n" +
		"vmk0  10.0.0.11     255.255.255.0  10.0.0.255      STATIC        10.0.0.1    false\n" +
		"vmk1 this row is garbage\n"
	p := filepath.Join(t.TempDir(), "ipv4.txt")
	os.WriteFile(p, []byte(text), 0o644)
	code, out, stderr := runCLI(t, "", "parse", "--command", "localcli network ip interface ipv4 get --interface-name=vmk0", p)
	if code != ExitIncomplete || !strings.Contains(out, "10.0.0.11") || !strings.Contains(stderr, "line 4") {
		t.Fatalf("exit %d\n%s\n%s", code, out, stderr)
	}
}
