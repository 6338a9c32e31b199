package checks

import (
	"encoding/json"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
)

// StepOf renders one action on host as a plan's step carries it (text,
// command, warnings, reads), outside any plan: unnumbered, resolving
// nothing.
func StepOf(host string, v plan.Value) PlanStep { return step{action: v}.render(host) }

// render turns a placed action into its step: the action's value says
// what and how (package plan), the placement which phase and what it
// resolves.
func (s step) render(host string) PlanStep {
	r := plan.Render(host, s.action)
	st := PlanStep{Phase: s.phase, Action: s.action.Kind(), Params: s.action, Optional: s.optional,
		On: r.On, Text: r.Text, Command: r.Command, Warnings: r.Warnings, Pause: r.Pause,
		Require: r.Require, Check: r.Check, Verify: r.Verify, Sets: r.Sets}
	for _, f := range s.resolves {
		st.Resolves = append(st.Resolves, causeOf(f))
	}
	return st
}

// UnmarshalJSON reads a step back, its params as the value of its kind.
func (s *PlanStep) UnmarshalJSON(b []byte) error {
	type raw PlanStep
	var x struct {
		raw
		Params json.RawMessage `json:"params"`
	}
	if err := json.Unmarshal(b, &x); err != nil {
		return err
	}
	v, err := plan.Decode(x.Action, x.Params)
	if err != nil {
		return err
	}
	*s = PlanStep(x.raw)
	s.Params = v
	return nil
}
