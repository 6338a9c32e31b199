package checks

import (
	"fmt"
	"strings"
)

// maxListed is how many names a message, subject or plan step lists
// before it says how many more there are: a host that lists thousands of
// PVRDMA devices must not turn each finding into megabytes of names.
const maxListed = 8

// joinNames joins names with ", ", listing at most maxListed of them and
// then "and N more".
func joinNames(names []string) string {
	if len(names) <= maxListed {
		return strings.Join(names, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(names[:maxListed], ", "), len(names)-maxListed)
}
