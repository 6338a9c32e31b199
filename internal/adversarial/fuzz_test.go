package adversarial

import (
	"testing"
)

// FuzzPartialInputs is the partial-input property driven by the fuzzer:
// its bytes choose the scenario and every mutation (mutate_test.go), and
// its text, when not empty, replaces one output of the case (any bytes an
// admin could paste), so the fuzzer explores both what is dropped or
// damaged and what the damaged outputs hold. The same checks as
// TestPartialInputs, the TUI pages included.
func FuzzPartialInputs(f *testing.F) {
	scs := allScenarios(f)
	f.Add([]byte{}, "")
	f.Add([]byte{1, 0, 40, 0, 7, 0, 9, 0, 3, 0}, "")
	f.Add([]byte{2, 0, 0, 0, 0, 0, 5, 0, 1, 0, 22, 0}, "Name  State\n----  -----\nvmrdma0  Active\n")
	f.Add([]byte{3, 0, 80, 0, 1, 0}, "PVRDMA Device Properties {\nPhysical HCA available:0\n}\n")
	f.Fuzz(func(t *testing.T, choices []byte, text string) {
		c := &byteChooser{b: choices}
		sc := scs[c.intn(len(scs))]
		m := mutate(c, sc.results)
		if text != "" && len(m.results) > 0 {
			hr := &m.results[c.intn(len(m.results))]
			if len(hr.Captures) > 0 {
				cp := &hr.Captures[c.intn(len(hr.Captures))]
				m.logf("%s: `%s` prints the fuzzer's text", hr.Host, cp.Command)
				cp.Stdout = text
				m.clean[hr.Host] = false
			}
		}
		if msg := checkPartial(sc, m, true); msg != "" {
			t.Fatalf("scenario %s: %s\nmutations:\n  %v", sc.name, msg, m.log)
		}
	})
}
