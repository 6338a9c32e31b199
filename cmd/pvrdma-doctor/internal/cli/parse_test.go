package cli

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const rdmaOut = `[root@esx01:~] esxcli rdma device list
Name     Driver      State   MTU   Speed     Paired Uplink  Description
-------  ----------  ------  ----  --------  -------------  -----------
vmrdma0  nmlx5_rdma  Active  1024  100 Gbps  vmnic4         MT28800 Family [ConnectX-5 Ex]
`

func TestParseCmdJSONFromStdin(t *testing.T) {
	code, out, errOut := runCLI(t, rdmaOut, "parse", "--command", "esxcli rdma device list", "--output", "json", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var devs []map[string]any
	if err := json.Unmarshal([]byte(out), &devs); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	if len(devs) != 1 || devs[0]["name"] != "vmrdma0" || devs[0]["mtu"] != float64(1024) || devs[0]["line"] != float64(4) {
		t.Fatalf("%s", out)
	}
}

func TestParseCmdTextFromFile(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "props.txt")
	props := "PVRDMA Device Properties {\n   VMM leader ID of VM:1001474360\n   adapter index:0\n   Physical HCA available:0\n   Active MTU:1024\n}\n"
	if err := os.WriteFile(file, []byte(props), 0o600); err != nil {
		t.Fatal(err)
	}
	code, out, errOut := runCLI(t, "", "parse", "--command", "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/1001474360_0/properties", file)
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"WorldID:", "1001474360", "PhysicalHCA:", "Physical HCA available:", "ActiveMTU:"} {
		if !strings.Contains(out, want) {
			t.Errorf("missing %q in:\n%s", want, out)
		}
	}
	// A list prints as a table.
	code, out, _ = runCLI(t, rdmaOut, "parse", "--command", "esxcli rdma device list")
	if code != ExitOK || !strings.Contains(out, "PairedUplink") || !strings.Contains(out, "vmnic4") {
		t.Fatalf("exit %d:\n%s", code, out)
	}
}

func TestParseCmdErrors(t *testing.T) {
	code, _, errOut := runCLI(t, "garbage\nmore garbage\n", "parse", "--command", "esxcli rdma device list")
	if code != ExitError || !strings.Contains(errOut, "line 2") {
		t.Fatalf("parse error: exit %d %q", code, errOut)
	}
	code, _, errOut = runCLI(t, "x", "parse", "--command", "esxcli storage core device list")
	if code != ExitUsage || !strings.Contains(errOut, "esxcli rdma device list") {
		t.Fatalf("unknown command: exit %d %q", code, errOut)
	}
	code, _, _ = runCLI(t, "x", "parse")
	if code != ExitUsage {
		t.Fatalf("missing --command: exit %d", code)
	}
	code, _, _ = runCLI(t, "x", "parse", "--command", "esxcli rdma device list", "--output", "yaml")
	if code != ExitUsage {
		t.Fatalf("bad --output: exit %d", code)
	}
	code, _, _ = runCLI(t, "", "parse", "--command", "esxcli rdma device list", filepath.Join(t.TempDir(), "missing.txt"))
	if code != ExitError {
		t.Fatalf("missing file: exit %d", code)
	}
	code, out, _ := runCLI(t, "", "parse", "--help")
	if code != ExitOK || !strings.Contains(out, "Example") && !strings.Contains(out, "Examples") || !strings.Contains(out, "esxcli network nic dcb status get") {
		t.Fatalf("help: %d\n%s", code, out)
	}
}

// `ip addr show` as an admin types it prints each link's line above its
// addresses: parse shows both, the link's MTU, state and MAC too; `ip -o
// addr` (one line per address, no link lines) shows the addresses alone.
func TestParseIPAddrShowKeepsTheLinks(t *testing.T) {
	const out = "2: ens192: <BROADCAST,MULTICAST,UP,LOWER_UP> mtu 9000 qdisc mq state UP group default qlen 1000\n" +
		"    link/ether 00:50:56:8a:11:22 brd ff:ff:ff:ff:ff:ff\n" +
		"    inet 192.168.50.21/24 brd 192.168.50.255 scope global ens192\n" +
		"       valid_lft forever preferred_lft forever\n"
	code, text, errOut := runCLI(t, out, "parse", "--command", "ip addr show", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	for _, want := range []string{"192.168.50.21", "as `ip -o link` prints it", "9000", "UP", "00:50:56:8a:11:22"} {
		if !strings.Contains(text, want) {
			t.Errorf("missing %q in:\n%s", want, text)
		}
	}
	code, js, errOut := runCLI(t, out, "parse", "--command", "ip a", "--output", "json", "-")
	if code != ExitOK {
		t.Fatalf("exit %d: %s", code, errOut)
	}
	var both struct {
		Addrs []map[string]any `json:"guest_ip_addr"`
		Links []map[string]any `json:"guest_ip_link"`
	}
	if err := json.Unmarshal([]byte(js), &both); err != nil || len(both.Addrs) != 1 || len(both.Links) != 1 ||
		both.Links[0]["mtu"] != float64(9000) || both.Links[0]["mac"] != "00:50:56:8a:11:22" {
		t.Fatalf("%v\n%s", err, js)
	}
	oneLine := "2: ens192    inet 192.168.50.21/24 brd 192.168.50.255 scope global ens192\\       valid_lft forever preferred_lft forever\n"
	code, js, errOut = runCLI(t, oneLine, "parse", "--command", "ip -o addr", "--output", "json", "-")
	var addrs []map[string]any
	if code != ExitOK || json.Unmarshal([]byte(js), &addrs) != nil || len(addrs) != 1 {
		t.Fatalf("ip -o addr: exit %d %s\n%s", code, errOut, js)
	}
}
