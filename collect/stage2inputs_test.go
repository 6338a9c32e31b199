package collect_test

import (
	"context"
	"reflect"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Stage 2 starts as soon as the stage-1 outputs of Stage2Inputs are in:
// planned from them alone, it must be the plan of the whole stage 1, on
// every host of every scenario.
func TestStage2PlannedFromItsInputsAlone(t *testing.T) {
	inputs := collect.Stage2Inputs()
	if inputs == nil {
		t.Skip("a fact-planned spec reads every stage-1 output: stage 2 waits for all of stage 1")
	}
	stage1 := map[hostio.Kind]bool{}
	for _, c := range collect.Stage1() {
		stage1[c.Kind] = true
	}
	for k := range inputs {
		if !stage1[k] {
			t.Errorf("stage-2 input %s is no stage-1 command", k)
		}
	}
	ctx := context.Background()
	planned := 0
	for _, name := range fixtures.Names() {
		sc := fixtures.MustLoad(t, name)
		var targets []hostio.Target
		for _, h := range sc.Hosts {
			targets = append(targets, hostio.Target{Name: h.Name})
		}
		for _, hr := range collect.Collect(ctx, targets, collect.Options{Runner: sc.Runner()}) {
			var all, in []hostio.Capture
			for _, c := range hr.Captures {
				if stage1[c.Kind] {
					all = append(all, c)
					if inputs[c.Kind] {
						in = append(in, c)
					}
				}
			}
			wantCmds, wantNotes := collect.PlanStage2(ctx, all, collect.DefaultMaxStage2)
			gotCmds, gotNotes := collect.PlanStage2(ctx, in, collect.DefaultMaxStage2)
			if !reflect.DeepEqual(gotCmds, wantCmds) || !reflect.DeepEqual(gotNotes, wantNotes) {
				t.Errorf("%s/%s: planned from the inputs alone:\n%v %v\nfrom all of stage 1:\n%v %v", name, hr.Host, gotCmds, gotNotes, wantCmds, wantNotes)
			}
			planned += len(wantCmds)
		}
	}
	if planned == 0 {
		t.Fatal("no scenario host plans a stage-2 command: the test compares nothing")
	}
}
