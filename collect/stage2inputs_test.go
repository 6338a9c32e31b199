package collect_test

import (
	"context"
	"errors"
	"reflect"
	"sync"
	"testing"
	"time"

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

// heldRunner holds one stage-1 command until a stage-2 command has
// started on the same host (or the command's context ends).
type heldRunner struct {
	inner   hostio.Runner
	held    string
	stage1  map[string]bool
	started chan struct{}
	once    *sync.Once
}

func (r heldRunner) Name() string { return "held" }
func (r heldRunner) Open(ctx context.Context, t hostio.Target) (hostio.Conn, error) {
	c, err := r.inner.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	return heldConn{Conn: c, r: r}, nil
}

type heldConn struct {
	hostio.Conn
	r heldRunner
}

func (c heldConn) Run(ctx context.Context, line string) hostio.Result {
	if !c.r.stage1[line] {
		c.r.once.Do(func() { close(c.r.started) })
	}
	if line == c.r.held {
		select {
		case <-c.r.started:
		case <-ctx.Done():
			return hostio.Result{ExitCode: -1, Err: errors.New("stage 2 did not start while this stage-1 command ran")}
		}
	}
	return c.Conn.Run(ctx, line)
}

// Stage 2 starts once its inputs are in, while the rest of stage 1 still
// runs: a stage-1 command that is no input, held until a stage-2 command
// has started, completes.
func TestStage2StartsBeforeStage1Ends(t *testing.T) {
	inputs := collect.Stage2Inputs()
	if inputs == nil {
		t.Skip("a fact-planned spec reads every stage-1 output: stage 2 waits for all of stage 1")
	}
	stage1 := map[string]bool{}
	held := ""
	for _, c := range collect.Stage1() {
		stage1[c.Line] = true
		if !inputs[c.Kind] {
			held = c.Line
		}
	}
	sc := fixtures.MustLoad(t, "healthy")
	r := heldRunner{inner: sc.Runner(), held: held, stage1: stage1, started: make(chan struct{}), once: &sync.Once{}}
	res := collect.Collect(context.Background(), []hostio.Target{{Name: sc.Hosts[0].Name}},
		collect.Options{Runner: r, CommandTimeout: 20 * time.Second})
	var stage2 int
	for _, c := range res[0].Captures {
		if c.Command == held && c.Status != hostio.StatusCollected {
			t.Fatalf("%s: %s %s", held, c.Status, c.Error)
		}
		if !stage1[c.Command] {
			stage2++
		}
	}
	if stage2 == 0 {
		t.Fatal("no stage-2 command ran")
	}
}
