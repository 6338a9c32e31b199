package plan

var _ = example(Investigate{Note: "Look at the switch's counters."})
var _ = example(FollowFix{Note: "Follow the finding's fix."})
