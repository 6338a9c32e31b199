package catalog_test

import (
	"flag"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

var update = flag.Bool("update", false, "rewrite docs/guide.md's command tables from the catalogue")

// Every spec is complete: it builds its example, the allowlist accepts it,
// its stored file name maps back to it, KindOf and Recognize name it, its
// parser sets a facts.Host field of its fact type, and a stage 2 command
// says where its arguments come from.
func TestEverySpecIsComplete(t *testing.T) {
	for _, s := range catalog.Specs() {
		t.Run(string(s.Kind), func(t *testing.T) {
			if s.Kind == "" || s.Stage < 1 || s.Stage > 3 || s.Line == "" {
				t.Fatalf("kind %q, stage %d, line %q", s.Kind, s.Stage, s.Line)
			}
			c, err := s.Command(s.Example...)
			if err != nil {
				t.Fatalf("example %q: %v", s.Example, err)
			}
			if c.Kind != s.Kind || c.Stage != s.Stage {
				t.Errorf("example command %+v", c)
			}
			if err := collect.CheckAllowed(c.Line); err != nil || !s.Allowed(c.Line) {
				t.Errorf("example %q not allowlisted: %v", c.Line, err)
			}
			if got := catalog.KindOf(c.Line); got != s.Kind {
				t.Errorf("KindOf(%q) = %q", c.Line, got)
			}
			if back, ok := collect.CommandForFile(catalog.FileName(c.Line)); !ok || back != c.Line {
				t.Errorf("file %s maps back to %q, %v", catalog.FileName(c.Line), back, ok)
			}
			if rc, ok := collect.Recognize(c.Line); !ok || rc.Kind != s.Kind || rc.Line != c.Line {
				t.Errorf("Recognize(%q) = %+v, %v", c.Line, rc, ok)
			}
			if s.Stage > 1 {
				if s.When == "" || s.From == catalog.FromNothing || s.TemplateLine() == "" {
					t.Errorf("stage %d without When %q, From %d or template", s.Stage, s.When, s.From)
				}
				if s.Build == nil && (len(s.Args) == 0 || s.Refuse == "") {
					t.Errorf("stage %d command without Args or Refuse", s.Stage)
				}
				bad := make([]string, len(s.Example))
				for i := range bad {
					bad[i] = "x;reboot"
				}
				if _, err := s.Command(bad...); err == nil || !strings.HasPrefix(err.Error(), "refusing") {
					t.Errorf("hostile arguments: %v", err)
				}
			}
			if (s.From == catalog.FromFacts) != (s.Instances != nil) {
				t.Errorf("source %d with Instances %v: FromFacts and Instances go together", s.From, s.Instances != nil)
			}
			if s.Stage == 2 && s.Noun == "" {
				t.Error("stage 2 command without the Noun of its cap note")
			}
			if s.Parser.Parse == nil || s.Parser.Stamp == nil || s.Parser.Type == nil {
				t.Fatal("no parser")
			}
			if !s.Parser.Fills(&catalog.HostFacts{}) {
				t.Errorf("the parser fills a %s, not the host's facts", s.Parser.Facts)
			}
			if s.Diff != nil {
				if s.Diff.Key == nil {
					t.Fatal("diff without a key")
				}
				// The key (a typed accessor, catalog.Keyed) reads the fact
				// the parser fills (a key of another type panics here),
				// and the noise fields name fields of the fact (a typo
				// would skip nothing in a diff).
				func() {
					defer func() {
						if r := recover(); r != nil {
							t.Errorf("diff key on a %s: %v", s.Parser.Type, r)
						}
					}()
					s.Diff.Key(reflect.New(s.Parser.Type).Elem())
				}()
				for _, f := range s.Diff.Skip {
					if _, ok := s.Parser.Type.FieldByName(f); !ok {
						t.Errorf("diff skips %q, no field of %s", f, s.Parser.Type)
					}
				}
			}
		})
	}
}

// Every command has a realistic output in the simulated lab ("healthy"
// scenario), and it parses into its fact without error.
func TestEverySpecParsesItsLabOutput(t *testing.T) {
	sc := fixtures.MustLoad(t, "healthy")
	h := sc.Host("esx01")
	for _, s := range catalog.Specs() {
		var line string
		for _, name := range h.Files() {
			if l, ok := collect.CommandForFile(name); ok && catalog.KindOf(l) == s.Kind {
				line = l
				break
			}
		}
		if line == "" {
			t.Errorf("%s: the lab's esx01 has no output of it", s.Kind)
			continue
		}
		r := h.Respond(line)
		hr := hostio.HostResult{Host: "esx01", Status: hostio.StatusCollected, Captures: []hostio.Capture{
			{Host: "esx01", Command: line, Kind: s.Kind, Stdout: r.Stdout, Status: hostio.StatusCollected}}}
		fh := facts.BuildHost(hr)
		if len(fh.Errors) > 0 {
			t.Errorf("%s: %v", line, fh.Errors)
		}
		v, _ := s.Parser.Field(&fh.HostFacts)
		if !v.IsValid() || v.IsZero() || (v.Kind() == reflect.Slice && v.Len() == 0) {
			t.Errorf("%s: its fact (%s) is not set", line, s.Parser.Type)
		}
	}
}

const readmeStart = "| on each host | commands |\n"

// docs/guide.md's tables of the commands run on a host and on a guest are the
// catalogue's. Regenerate them with go generate ./... (make generate).
func TestReadmeTable(t *testing.T) {
	readmeTable(t, readmeStart, catalog.ReadmeTable(collect.DefaultMaxStage2))
	readmeTable(t, "| in each guest | commands |\n", catalog.GuestReadmeTable())
}

// readmeTable checks docs/guide.md's table starting with the line start (it
// ends at a blank line) against want, and with -update rewrites it.
func readmeTable(t *testing.T, start, want string) {
	t.Helper()
	b, err := os.ReadFile("../../docs/guide.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(b)
	i := strings.Index(readme, start)
	if i < 0 {
		t.Fatalf("docs/guide.md has no table starting %q", start)
	}
	j := strings.Index(readme[i:], "\n\n")
	if j < 0 {
		t.Fatalf("docs/guide.md's table %q does not end with a blank line", start)
	}
	got := readme[i : i+j+1]
	if got == want {
		return
	}
	if *update {
		if err := os.WriteFile("../../docs/guide.md", []byte(readme[:i]+want+readme[i+j+1:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("docs/guide.md's table %q differs from the catalogue; regenerate it with go generate ./... (make generate)\ngot:\n%s\nwant:\n%s", start, got, want)
}
