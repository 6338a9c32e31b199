// Code kept for merging: the types and constants that moved to package
// hostio (issue #11.2), under their old names, so that code written against
// collect.X while the split happened still compiles.
//
// Deprecated: use package hostio; delete this file once nothing refers to it
// (grep -rn "collect\.\(HostResult\|Capture\|Status\|Kind\|Target\|Event\|Phase\)").
package collect

import "github.com/pvrdma-doctor/pvrdma-doctor/hostio"

type (
	Capture        = hostio.Capture
	Conn           = hostio.Conn
	Event          = hostio.Event
	HostResult     = hostio.HostResult
	Kind           = hostio.Kind
	OutputCapError = hostio.OutputCapError
	Phase          = hostio.Phase
	Result         = hostio.Result
	Runner         = hostio.Runner
	StallError     = hostio.StallError
	Status         = hostio.Status
	Target         = hostio.Target
)

const (
	DefaultMaxCommandOutput = hostio.DefaultMaxCommandOutput
	DefaultMaxHostOutput    = hostio.DefaultMaxHostOutput
	DefaultMaxScanOutput    = hostio.DefaultMaxScanOutput
	KindDCBStatus           = hostio.KindDCBStatus
	KindDVSList             = hostio.KindDVSList
	KindFirewallGlobal      = hostio.KindFirewallGlobal
	KindFirewallRules       = hostio.KindFirewallRules
	KindFirewallRulesets    = hostio.KindFirewallRulesets
	KindIPInterfaceList     = hostio.KindIPInterfaceList
	KindIPv4Get             = hostio.KindIPv4Get
	KindNICGet              = hostio.KindNICGet
	KindNICList             = hostio.KindNICList
	KindPVRDMADeviceLs      = hostio.KindPVRDMADeviceLs
	KindPVRDMAProperties    = hostio.KindPVRDMAProperties
	KindPVRDMAVmknicOpt     = hostio.KindPVRDMAVmknicOpt
	KindRDMADeviceList      = hostio.KindRDMADeviceList
	KindRDMAProtocolList    = hostio.KindRDMAProtocolList
	KindRDMAStats           = hostio.KindRDMAStats
	KindRDMAVmknicList      = hostio.KindRDMAVmknicList
	KindStandardSwitchList  = hostio.KindStandardSwitchList
	KindSystemVersion       = hostio.KindSystemVersion
	KindVMProcessList       = hostio.KindVMProcessList
	KindVmkping             = hostio.KindVmkping
	MaxCommandLines         = hostio.MaxCommandLines
	MaxConfigFile           = hostio.MaxConfigFile
	MaxKnownHostsFile       = hostio.MaxKnownHostsFile
	MaxPasswordFile         = hostio.MaxPasswordFile
	MaxTokenMapFile         = hostio.MaxTokenMapFile
	PhaseCollecting         = hostio.PhaseCollecting
	PhaseConnecting         = hostio.PhaseConnecting
	PhaseDone               = hostio.PhaseDone
	PhaseFailed             = hostio.PhaseFailed
	PhaseProbing            = hostio.PhaseProbing
	PhaseQueued             = hostio.PhaseQueued
	PhaseWaiting            = hostio.PhaseWaiting
	StatusCollected         = hostio.StatusCollected
	StatusFailed            = hostio.StatusFailed
	StatusNotCollected      = hostio.StatusNotCollected
	StatusPartial           = hostio.StatusPartial
	StatusSkipped           = hostio.StatusSkipped
	StatusTimedOut          = hostio.StatusTimedOut
)

var (
	IsOutputCap    = hostio.IsOutputCap
	ReadAllCapped  = hostio.ReadAllCapped
	ReadFileCapped = hostio.ReadFileCapped
)
