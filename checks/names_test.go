package checks

import (
	"fmt"
	"strings"
	"testing"
)

func TestJoinNamesCapsLongLists(t *testing.T) {
	if got := joinNames([]string{"a", "b"}); got != "a, b" {
		t.Fatalf("short list: %q", got)
	}
	var many []string
	for i := range 300000 {
		many = append(many, fmt.Sprintf("vm%d", i))
	}
	got := joinNames(many)
	if !strings.HasSuffix(got, "vm7 and 299992 more") || strings.Contains(got, "vm8,") || len(got) > 100 {
		t.Fatalf("long list: %q", got)
	}
}
