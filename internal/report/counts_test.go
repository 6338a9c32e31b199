package report

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// A host whose `esxcli rdma device list` failed has an unknown number of
// RDMA devices, not zero; its PVRDMA VMs (vsish listing collected) are known.
func TestUnknownCountsAreNotZero(t *testing.T) {
	r := buildWith([]hostio.HostResult{{Host: "esx01", Status: hostio.StatusPartial, Reason: "1 command failed", Captures: []hostio.Capture{
		{Host: "esx01", Command: "esxcli rdma device list", Status: hostio.StatusFailed, ExitCode: 1, Error: "exit 1"},
		{Host: "esx01", Command: "vsish -e ls " + collect.PVRDMADevicesDir, Status: hostio.StatusCollected, Stdout: "2100788_0/\n"},
	}}, {Host: "esx02", Status: hostio.StatusNotCollected, Reason: "connection refused"}})
	h := r.Hosts[0]
	if n, ok := h.RDMADeviceCount(); ok {
		t.Errorf("RDMA devices known (%d) although the listing failed", n)
	}
	if n, ok := h.PVRDMAVMCount(); !ok || n != 1 {
		t.Errorf("PVRDMA VMs = %d, %v; want 1, known", n, ok)
	}
	var js bytes.Buffer
	if err := WriteJSON(&js, r); err != nil {
		t.Fatal(err)
	}
	var doc struct {
		SchemaVersion string `json:"schema_version"`
		Hosts         []map[string]any
	}
	if err := json.Unmarshal(js.Bytes(), &doc); err != nil {
		t.Fatal(err)
	}
	if v, ok := doc.Hosts[0]["rdma_devices"]; !ok || v != nil {
		t.Errorf("JSON rdma_devices = %v (present %v), want null", v, ok)
	}
	if v := doc.Hosts[0]["pvrdma_vms"]; v != float64(1) {
		t.Errorf("JSON pvrdma_vms = %v, want 1", v)
	}
	if v, ok := doc.Hosts[1]["pvrdma_vms"]; !ok || v != nil {
		t.Errorf("JSON pvrdma_vms of a host not collected = %v, want null", v)
	}
	if doc.SchemaVersion != SchemaVersion {
		t.Errorf("schema_version %s", doc.SchemaVersion)
	}
	var txt, md, html bytes.Buffer
	if err := WriteText(&txt, r, TextOptions{Details: true}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(txt.String(), "RDMA devices unknown · 1 PVRDMA VM") || strings.Contains(txt.String(), "0 RDMA devices") {
		t.Errorf("text:\n%s", txt.String())
	}
	if err := WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "| esx01 | INCOMPLETE: 1 command failed | - | unknown | 1 |") {
		t.Errorf("markdown:\n%s", md.String())
	}
	if err := WriteHTML(&html, r); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(html.String(), `<td class="num">unknown</td><td class="num">1</td>`) {
		t.Errorf("html:\n%s", html.String())
	}
}
