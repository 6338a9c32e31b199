package parse

import "testing"

func FuzzModuleList(f *testing.F)    { fuzzList(f, ModuleList, Module.evidence) }
func FuzzModuleParams(f *testing.F)  { fuzzList(f, ModuleParams, ModuleParam.evidence) }
func FuzzVIBList(f *testing.F)       { fuzzList(f, VIBList, VIB.evidence) }
func FuzzAllowedIPList(f *testing.F) { fuzzList(f, AllowedIPList, AllowedIPs.evidence) }
func FuzzENSList(f *testing.F)       { fuzzList(f, ENSList, ENSNIC.evidence) }
func FuzzUnameMachine(f *testing.F) {
	fuzzOne(f, UnameMachine, func(t *testing.T, text string, m Machine) {
		if m.Arch != "" {
			checkRef(t, text, m.Ref)
		}
	})
}
