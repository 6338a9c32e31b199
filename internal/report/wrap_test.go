package report

import (
	"strings"
	"testing"
)

func TestWrapNeverSplitsOptionsOrWords(t *testing.T) {
	in := "fix: run `esxcli rdma device stats get -d vmrdma0` and `vsish -e cat /vmkModules/vrdma/pvrdmaDevices/1001474360_0/properties` then retry"
	out := Wrap(in, 30)
	if strings.Join(strings.Fields(out), " ") != strings.Join(strings.Fields(in), " ") {
		t.Fatalf("words changed:\n%s", out)
	}
	for _, l := range strings.Split(out, "\n") {
		if strings.HasPrefix(l, "d ") || strings.HasPrefix(l, "e ") || strings.HasSuffix(l, "-") {
			t.Errorf("split inside an option: %q", l)
		}
		if len(l) > 30 && strings.Contains(l, " ") {
			t.Errorf("line over width although it could break: %q", l)
		}
	}
	if got := Wrap("\x1b[1mbold\x1b[0m word", 9); got != "\x1b[1mbold\x1b[0m word" {
		t.Errorf("escape codes counted as width: %q", got)
	}
	if got := Wrap("pvrdma            false   true", 10); strings.Contains(got, " \n") {
		t.Errorf("trailing spaces before a break: %q", got)
	}
	if got := Wrap("a b\nc d", 3); got != "a b\nc d" {
		t.Errorf("paragraphs: %q", got)
	}
}
