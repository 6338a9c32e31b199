package checks

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/checks/plan"
)

// maxListed is how many names a message, subject or plan step lists
// before it says how many more there are (plan.MaxListed).
const maxListed = plan.MaxListed

// joinNames joins names with ", ", listing at most maxListed of them and
// then "and N more".
func joinNames(names []string) string { return plan.JoinNames(names) }
