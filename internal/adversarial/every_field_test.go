package adversarial

import (
	"reflect"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

// poison returns a deep copy of v with p appended to every string (of
// type string exactly: enumerations such as severities and statuses keep
// their values, so that the renderers still take their usual paths). Map
// keys get it too: they are looked up with poisoned values.
func poison[T any](v T, p string) T {
	return textsafe.Map(v, func(t reflect.Type, s string) string {
		if t != reflect.TypeFor[string]() {
			return s
		}
		return s + p
	})
}

// Every string of the report, of the facts and of the raw results, not
// only those a parser lets through, carries every attack sequence and a
// sample of controls: the human formats and every TUI frame stay clean.
// This covers fields added later without anyone listing them here.
func TestEveryFieldOfEveryStructureInHumanSinks(t *testing.T) {
	p := strings.Join(sequences(), "") + "\x00\x7f\u0085\u061c\u2028\xff"
	rs := loadMixed(t)
	r, fleet := analyze(rs)
	pr, pf, prs := poison(r, p), poison(fleet, p), poison(rs, p)
	if !strings.HasSuffix(pr.Findings[0].Message, p) || !strings.HasSuffix(pf.Hosts[0].Host, p) || !strings.HasSuffix(prs[0].Captures[0].Stdout, p) {
		t.Fatal("poison did not reach the structures")
	}
	out := render(t, pr)
	for sink, text := range out.human {
		if bad := rawIn(text); bad != "" {
			t.Fatalf("%s: raw %s", sink, bad)
		}
	}
	fs, clips := frames(t, pr, pf, prs)
	for j, f := range fs {
		if bad := rawIn(f); bad != "" {
			i := strings.Index(f, sgrHostile)
			t.Fatalf("TUI frame %d: raw %s: %q", j, bad, f[max(0, i-300):min(len(f), i+100)])
		}
	}
	for _, c := range clips {
		if bad := rawIn(c); bad != "" {
			t.Fatalf("copied fix: raw %s", bad)
		}
	}
	if len(clips) == 0 {
		t.Fatal("no fix copied")
	}
	t.Logf("every string field poisoned: %d TUI frames, %d copied fixes, 4 human renderings: clean", len(fs), len(clips))
}
