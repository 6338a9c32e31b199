package hostio

import (
	"fmt"
	"testing"
)

// Every cause's error text reads back as the cause (captures recorded
// before captures carried a cause), its detail comes back whole, and a
// transport's CauseError carries it through wrapping; a command's own
// failure has no cause.
func TestCauses(t *testing.T) {
	for c := range causeText {
		detail := ""
		if c == CauseHostUnreached || c == CauseNeedsSSH {
			detail = "dial tcp 10.0.0.1:22: connection refused"
		}
		msg := c.Error(detail)
		if got := RecordedCause(msg); got != c {
			t.Errorf("RecordedCause(%q) = %q, want %q", msg, got, c)
		}
		if got := c.Detail(msg); got != detail {
			t.Errorf("%s: Detail = %q", c, got)
		}
		err := fmt.Errorf("run: %w", &CauseError{Cause: c, Detail: detail})
		if CauseOf(err) != c || err.Error() != "run: "+msg {
			t.Errorf("%s: CauseOf(%v) = %q", c, err, CauseOf(err))
		}
	}
	for _, own := range []string{"exit status 1", "no answer within 30s; command abandoned", "output missing", ""} {
		if c := RecordedCause(own); c != "" {
			t.Errorf("RecordedCause(%q) = %q, want none", own, c)
		}
	}
	if !CauseCorruptInBundle.InputDamaged() || !CauseNotSaved.NotInInput() || CauseHostUnreached.InputDamaged() || CauseNeedsSSH.NotInInput() {
		t.Error("cause classes")
	}
}
