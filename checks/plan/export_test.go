package plan

import "testing"

// KindExample is a kind's example, for the external tests (the runbooks a
// step of each kind renders to).
func KindExample(t *testing.T, k Kind) Value { return exampleOf(t, k) }

// Objects are the objects a disruption of v must name.
func Objects(host string, v Value) []string { return DisruptedObjects(host, v) }
