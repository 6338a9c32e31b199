package checks

import (
	_ "embed"
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"gopkg.in/yaml.v3"
)

// The catalogue: catalogueList names every rule (what runs: rules_AREA.go),
// catalogue.yaml holds their prose (title, why, fix, sources, releases).
// Both are joined once, when the package loads; a rule without prose, prose
// without a rule, or an unknown source is a programming error (a panic
// that every test shows).

// catalogueList is every rule of the catalogue, by area: its ID, default
// severity, scope (host unless said), the inputs it needs (Needs; the
// engine reports it not evaluated where one is missing) and its check
// function, in rules_AREA.go beside its table test.
var catalogueList = []*Rule{
	// rules_version.go
	{ID: "ESXI_VERSION_UNSUPPORTED", Severity: Critical, Check: checkESXiVersionUnsupported,
		Needs: []hostio.Kind{hostio.KindSystemVersion}},
	// rules_rdma.go
	{ID: "NO_RDMA_DEVICE", Severity: Critical, Check: checkNoRDMADevice,
		Needs: []hostio.Kind{hostio.KindRDMADeviceList}},
	{ID: "RDMA_DEVICE_DOWN", Severity: Critical, Check: checkRDMADeviceDown,
		Needs: []hostio.Kind{hostio.KindRDMADeviceList}},
	{ID: "ROCE_NOT_SUPPORTED", Severity: Critical, Check: checkRoCENotSupported,
		Needs: []hostio.Kind{hostio.KindRDMADeviceList, hostio.KindRDMAProtocolList}},
	// rules_vmknic.go
	{ID: "PVRDMA_VMKNIC_UNSET", Severity: Critical, NeedsSubject: vmknicSetting, Check: checkVmknicUnset,
		Needs: []hostio.Kind{hostio.KindPVRDMAVmknicOpt, hostio.KindIPInterfaceList}},
	{ID: "PVRDMA_VMKNIC_NOT_ON_DVS", Severity: Info, Check: checkVmknicNotOnDVS,
		Needs: []hostio.Kind{hostio.KindPVRDMAVmknicOpt, hostio.KindIPInterfaceList, hostio.KindDVSList, hostio.KindRDMADeviceList}},
	{ID: "PVRDMA_VMKNIC_NO_IPV4", Severity: Critical, Check: checkVmknicNoIPv4,
		Needs: []hostio.Kind{hostio.KindPVRDMAVmknicOpt, hostio.KindIPInterfaceList, hostio.KindIPv4Get}},
	// rules_firewall.go
	{ID: "PVRDMA_FIREWALL_CLOSED", Severity: Critical, NeedsSubject: "pvrdma", Check: checkFirewallClosed,
		Needs: []hostio.Kind{hostio.KindFirewallRulesets}},
	// rules_switch.go
	{ID: "RDMA_UPLINK_NOT_ON_DVS", Severity: Critical, Check: checkRDMAUplinkNotOnDVS,
		Needs: []hostio.Kind{hostio.KindRDMADeviceList, hostio.KindDVSList, hostio.KindIPInterfaceList, hostio.KindPVRDMAVmknicOpt}},
	{ID: "DVS_MULTIPLE_UPLINKS", Severity: Warning, Check: checkDVSMultipleUplinks,
		Needs: []hostio.Kind{hostio.KindDVSList, hostio.KindIPInterfaceList, hostio.KindRDMADeviceList, hostio.KindPVRDMAVmknicOpt}},
	// rules_mtu.go
	{ID: "LOW_MTU", Severity: Warning, Check: checkLowMTU},
	{ID: "ACTIVE_MTU_ABOVE_PATH", Severity: Warning, Check: checkActiveMTUAbovePath},
	{ID: "MTU_MISMATCH", Severity: Warning, Check: checkMTUMismatch,
		Needs: []hostio.Kind{hostio.KindIPInterfaceList, hostio.KindDVSList, hostio.KindPVRDMAVmknicOpt, hostio.KindRDMAVmknicList}},
	{ID: "JUMBO_FRAMES_NOT_CONFIGURED", Severity: Info, Check: checkJumboNotConfigured,
		Needs: []hostio.Kind{hostio.KindDVSList, hostio.KindRDMADeviceList}},
	// rules_lossless.go
	{ID: "PFC_DISABLED", Severity: Warning, Check: checkPFCDisabled,
		Needs: []hostio.Kind{hostio.KindRDMADeviceList}},
	{ID: "RDMA_ERRORS", Severity: Warning, Check: checkRDMAErrors,
		Needs: []hostio.Kind{hostio.KindRDMADeviceList}},
	// rules_probe.go
	{ID: "VMKPING_UNREACHABLE", Severity: Critical, Check: checkVmkpingUnreachable},
	// rules_path.go
	{ID: "PATH_MTU_BLOCKED", Severity: Critical, Check: checkPathMTUBlocked},
	{ID: "PATH_UNREACHABLE", Severity: Critical, Check: checkPathUnreachable},
	{ID: "HIGH_LATENCY", Severity: Info, Check: checkHighLatency},
	// rules_adapter.go
	{ID: "PHYSICAL_HCA_UNAVAILABLE", Severity: Critical, Check: checkPhysicalHCAUnavailable},
	{ID: "TCP_FALLBACK", Severity: Critical, Scope: FleetScope, Check: checkTCPFallback},
	{ID: "ROCE_VERSION_MISMATCH", Severity: Warning, Scope: FleetScope, Check: checkRoCEVersionMismatch},
	// rules_vm.go
	{ID: "VM_MEMORY_NOT_RESERVED", Severity: Critical, Check: checkVMMemoryNotReserved},
	{ID: "VM_HW_VERSION_TOO_OLD", Severity: Critical, Check: checkVMHWVersionTooOld},
	{ID: "VM_GUEST_NOT_LINUX64", Severity: Critical, Check: checkVMGuestNotLinux64},
	{ID: "VM_PVRDMA_NOT_ON_DVS", Severity: Critical, Check: checkVMPVRDMANotOnDVS},
	{ID: "VM_PEERS_ON_DIFFERENT_DVS", Severity: Warning, Scope: FleetScope, Check: checkVMPeersOnDifferentDVS},
	{ID: "VM_ADAPTER_DISCONNECTED", Severity: Critical, Check: checkVMAdapterDisconnected},
	{ID: "VM_DEVICE_PROTOCOL_MISMATCH", Severity: Critical, Check: checkVMDeviceProtocolMismatch,
		Needs: []hostio.Kind{hostio.KindRDMADeviceList, hostio.KindRDMAProtocolList}},
	// rules_native.go
	{ID: "NATIVE_ENDPOINTS_UNAVAILABLE", Severity: Warning, Check: checkNativeEndpointsUnavailable},
	// rules_gpu.go
	{ID: "GPU_FIRMWARE_NOT_EFI", Severity: Critical, Check: checkGPUFirmwareNotEFI},
	{ID: "GPU_64BIT_MMIO_OFF", Severity: Critical, Check: checkGPU64bitMMIOOff},
	{ID: "GPU_MMIO_TOO_SMALL", Severity: Critical, Check: checkGPUMMIOTooSmall},
	{ID: "GPU_DUPLICATE_DEVICE", Severity: Critical, Check: checkGPUDuplicateDevice},
	// rules_guest.go (once per scanned Linux guest)
	{ID: "GUEST_KERNEL_TOO_OLD", Severity: Critical, Scope: GuestScope, Check: checkGuestKernelTooOld,
		Needs: []hostio.Kind{hostio.KindGuestKernel}},
	{ID: "GUEST_NO_PVRDMA_DEVICE", Severity: Critical, Scope: GuestScope, Check: checkGuestNoPVRDMADevice,
		Needs: []hostio.Kind{hostio.KindGuestIBClass, hostio.KindGuestLsmod}},
	{ID: "GUEST_PORT_DOWN", Severity: Critical, Scope: GuestScope, Check: checkGuestPortDown},
	{ID: "GUEST_MOFED_CONFLICT", Severity: Critical, Scope: GuestScope, Check: checkGuestMOFEDConflict,
		Needs: []hostio.Kind{hostio.KindGuestDevinfo, hostio.KindGuestOFED}},
	{ID: "GUEST_RDMA_CORE_MISSING", Severity: Critical, Scope: GuestScope, Check: checkGuestRDMACoreMissing},
	{ID: "GUEST_NETDEV_MTU_LIMITS_RDMA_MTU", Severity: Warning, Scope: GuestScope, Check: checkGuestNetdevMTU,
		Needs: []hostio.Kind{hostio.KindGuestIPLink}},
	{ID: "GUEST_NO_ROCEV2_GID", Severity: Warning, Scope: GuestScope, Check: checkGuestNoRoCEv2GID,
		Needs: []hostio.Kind{hostio.KindGuestIPAddr}},
	{ID: "GUEST_BANDWIDTH_LOW", Severity: Warning, Scope: GuestScope, Check: checkGuestBandwidthLow},
	// rules_mobility.go
	{ID: "VM_PASSTHROUGH_NO_MOBILITY", Severity: Info, Check: checkVMPassthroughNoMobility},
	{ID: "VM_PEERS_WITHOUT_RDMA", Severity: Warning, Scope: FleetScope, Check: checkVMPeersWithoutRDMA},
	// rules_readiness.go
	{ID: "HOST_NOT_READY", Severity: Warning, Check: checkHostNotReady},
	// rules_collection.go
	{ID: CollectionFailed, Severity: Warning, Check: checkCollectionFailed},
}

//go:embed catalogue.yaml
var catalogueYAML []byte

// catalogueProse is catalogue.yaml.
type catalogueProse struct {
	Sources map[string]string `yaml:"sources"`
	Rules   map[string]struct {
		Title   string   `yaml:"title"`
		Why     string   `yaml:"why"`
		Fix     string   `yaml:"fix"`
		Sources []string `yaml:"sources"`
		Applies string   `yaml:"applies"`
	} `yaml:"rules"`
}

// pvrdmaReleases are the ESXi releases with PVRDMA, the releases most
// rules apply to.
const pvrdmaReleases = "ESXi 6.5 and later"

// catalogue indexes catalogueList by ID, with each rule's prose from
// catalogue.yaml and the defaults of Scope and Applies filled in.
var catalogue = func() map[string]*Rule {
	m, err := buildCatalogue(catalogueList, catalogueYAML)
	if err != nil {
		panic(err)
	}
	return m
}()

func buildCatalogue(rules []*Rule, text []byte) (map[string]*Rule, error) {
	var prose catalogueProse
	dec := yaml.NewDecoder(strings.NewReader(string(text)))
	dec.KnownFields(true)
	if err := dec.Decode(&prose); err != nil {
		return nil, fmt.Errorf("catalogue.yaml: %w", err)
	}
	m := map[string]*Rule{}
	for _, r := range rules {
		if _, dup := m[r.ID]; dup {
			return nil, fmt.Errorf("duplicate rule %s", r.ID)
		}
		p, ok := prose.Rules[r.ID]
		if !ok {
			return nil, fmt.Errorf("rule %s has no prose in catalogue.yaml", r.ID)
		}
		r.Title, r.Why, r.Fix, r.Applies = p.Title, p.Why, p.Fix, p.Applies
		r.Docs = nil
		for _, key := range p.Sources {
			src, ok := prose.Sources[key]
			if !ok {
				return nil, fmt.Errorf("rule %s: unknown source %q in catalogue.yaml", r.ID, key)
			}
			r.Docs = append(r.Docs, src)
		}
		if r.Scope == "" {
			r.Scope = HostScope
		}
		if r.Applies == "" {
			r.Applies = pvrdmaReleases
		}
		if r.Severity.Rank() == 0 || r.Title == "" || r.Why == "" || r.Fix == "" || r.Check == nil ||
			(r.Scope != HostScope && r.Scope != FleetScope && r.Scope != GuestScope) {
			return nil, fmt.Errorf("incomplete rule %s", r.ID)
		}
		m[r.ID] = r
	}
	var orphans []string
	for id := range prose.Rules {
		if m[id] == nil {
			orphans = append(orphans, id)
		}
	}
	if len(orphans) > 0 {
		sort.Strings(orphans)
		return nil, fmt.Errorf("catalogue.yaml has prose for rules that do not exist: %s", strings.Join(orphans, ", "))
	}
	return m, nil
}

// Rules returns the catalogue sorted by ID.
func Rules() []*Rule {
	out := make([]*Rule, 0, len(catalogue))
	for _, r := range catalogue {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup returns a rule by ID (case-insensitive).
func Lookup(id string) (*Rule, bool) {
	r, ok := catalogue[strings.ToUpper(strings.TrimSpace(id))]
	return r, ok
}
