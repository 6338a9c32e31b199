package plan

// What no action can model: a person's look at what nothing collected
// explains, and a rule's own fix when it contributes no actions.

// Investigate says what to look at (Note); it resolves nothing.
type Investigate struct {
	Note string `json:"note,omitempty"`
}

const KindInvestigate Kind = "investigate"

var _ = register[Investigate]()

func (Investigate) Kind() Kind { return KindInvestigate }
func (Investigate) About() string {
	return "look at what nothing collected explains; resolves nothing"
}

func (a Investigate) Words(string) Words { return Words{On: "esxi", Pause: true, Text: a.Note} }

func (Investigate) Reads(string) Reads { return Reads{} }

func (Investigate) Unverified() string { return "what to look at; the rescan shows what changed" }

// FollowFix is the finding's own fix (Note), for a rule without a
// contribution; not modelled.
type FollowFix struct {
	Note string `json:"note,omitempty"`
}

const KindFollowFix Kind = "follow_fix"

var _ = register[FollowFix]()

func (FollowFix) Kind() Kind { return KindFollowFix }
func (FollowFix) About() string {
	return "a rule without a plan contribution: its finding's own fix"
}

func (a FollowFix) Words(string) Words { return Words{On: "esxi", Pause: true, Text: a.Note} }

func (FollowFix) Reads(string) Reads { return Reads{} }

func (FollowFix) Unverified() string {
	return "the rule's own words; the rescan shows the finding gone"
}
