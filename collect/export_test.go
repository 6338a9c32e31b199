package collect

// For the external tests.
var (
	PlanStage2   = planStage2
	Stage2Inputs = stage2Inputs
	IntFlag      = intFlag
)
