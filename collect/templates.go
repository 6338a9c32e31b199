package collect

import (
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Template is a stage 2 or 3 command as a pattern with placeholders: what
// `scan --dry-run` shows for the commands whose arguments come from the
// host's own stage 1 output (or its peers' addresses). Every value is
// validated by the command's constructor before it can reach a line.
type Template struct {
	Kind  hostio.Kind `json:"kind"`
	Stage int         `json:"stage"`
	Line  string      `json:"template"`
	// When says for what each instance is run.
	When string `json:"when"`
	// Example is the command for sample values, built by the constructor.
	Example Command `json:"example"`
}

// Templates returns the stage 2 and 3 command patterns, in run order.
func Templates() []Template { return templatesOf(catalog.Specs()) }

// templatesOf returns the stage 2 and 3 patterns of a catalogue.
func templatesOf(specs []*catalog.Spec) []Template {
	var out []Template
	for _, s := range specs {
		if s.Stage < 2 {
			continue
		}
		ex, err := s.Command(s.Example...)
		if err != nil {
			panic(err)
		}
		out = append(out, Template{Kind: s.Kind, Stage: s.Stage, Line: s.TemplateLine(), When: s.When, Example: ex})
	}
	return out
}
