package parse

import (
	"errors"
	"fmt"
	"regexp"
	"strings"
)

// Skip is a part of an output that a parser could not read and left out
// (a block or a row), or an elision marker its author put in place of
// lines. Line is the 1-based line in the text passed to the parser.
type Skip struct {
	Line   int    `json:"line"`
	Text   string `json:"text,omitempty"`
	Reason string `json:"reason"`
	// Detail is what was wrong, at DetailLine (a line inside a skipped
	// block; 0 when it is Line or not tied to a line).
	Detail     string `json:"detail,omitempty"`
	DetailLine int    `json:"detail_line,omitempty"`
}

// Describe says what was skipped and why; at maps a line of the parsed
// text to how the reader should see it ("line 7", "transcript line 40").
func (s Skip) Describe(at func(int) string) string {
	msg := s.Reason
	switch {
	case s.Detail != "" && s.DetailLine > 0 && s.DetailLine != s.Line:
		msg += fmt.Sprintf(" (%s: %s)", at(s.DetailLine), s.Detail)
	case s.Detail != "":
		msg += ": " + s.Detail
	}
	if s.Line > 0 {
		return at(s.Line) + ": " + msg
	}
	return msg
}

func (s Skip) String() string {
	return s.Describe(func(n int) string { return fmt.Sprintf("line %d", n) })
}

// PartialError is returned together with the facts a parser could read
// when some blocks or rows of the output were skipped: the facts are good
// and may be used, but the output does not describe everything it should.
type PartialError struct {
	Skipped []Skip
}

func (e *PartialError) Error() string {
	parts := make([]string, 0, len(e.Skipped))
	for i, s := range e.Skipped {
		if i == 5 {
			parts = append(parts, fmt.Sprintf("and %d more", len(e.Skipped)-5))
			break
		}
		parts = append(parts, s.String())
	}
	return fmt.Sprintf("partial output: %d part(s) skipped (%s)", len(e.Skipped), strings.Join(parts, "; "))
}

// Skipped returns the skipped parts when err is a *PartialError (the facts
// returned with it are usable), and ok=false for any other error.
func Skipped(err error) (skips []Skip, ok bool) {
	var pe *PartialError
	if errors.As(err, &pe) {
		return pe.Skipped, true
	}
	return nil, false
}

// Untyped adapts a typed parser to one returning any (the catalogue's
// parsers, \`pvrdma-doctor parse\`): with a *PartialError the facts that
// could be read come with it; any other error returns nil.
func Untyped[T any](p func(string) (T, error)) func(string) (any, error) {
	return func(text string) (any, error) {
		v, err := p(text)
		if _, partial := Skipped(err); err != nil && !partial {
			return nil, err
		}
		return v, err
	}
}

// skips collects the parts of one output a parser leaves out.
type skips []Skip

// add records a skipped part: the line of a parse error when there is one,
// else the line given.
func (s *skips) add(at Ref, err error, what string) {
	sk := Skip{Line: at.Line, Text: at.Text, Reason: what}
	var pe *Error
	if errors.As(err, &pe) {
		sk.Detail, sk.DetailLine = pe.Msg, pe.Line
	} else if err != nil {
		sk.Detail = err.Error()
	}
	*s = append(*s, sk)
}

// result returns out (n items or fields read) with nil, a *PartialError
// when something was skipped, or an *Error when more parts were unreadable
// than readable: such text is not this command's output (or is garbage),
// and reading a few lines of it by chance would be worse than no facts.
func result[T any](out T, n int, s skips) (T, error) {
	if len(s) == 0 {
		return out, nil
	}
	if bad := unreadable(s); bad > n {
		var zero T
		first := s[0]
		for _, x := range s {
			if x.Reason != elisionReason {
				first = x
				break
			}
		}
		line, msg := first.Line, first.Reason
		if first.DetailLine > 0 {
			line = first.DetailLine
		}
		if first.Detail != "" {
			msg += ": " + first.Detail
		}
		return zero, &Error{Line: line, Msg: fmt.Sprintf("%s (%d of %d parts unreadable: not this command's output?)", msg, bad, bad+n)}
	}
	return out, &PartialError{Skipped: s}
}

// unreadable counts the skips that are not elision markers.
func unreadable(s skips) int {
	n := 0
	for _, x := range s {
		if x.Reason != elisionReason {
			n++
		}
	}
	return n
}

const elisionReason = "elision marker: the author left lines out here"

// reElision matches a line an author put in place of left-out output:
// "...", "<<truncated>>", "[...]", "<snip>", "(output truncated)", "…".
var reElision = regexp.MustCompile(`^\s*(?:\.{3,}|…|\[\s*(?:\.{3}|…)\s*\]|\(\s*(?:\.{3}|…)\s*\)|<+\s*(?:truncated|snip|snipped|cut|omitted|output truncated|\.{3})\s*>+|\[\s*(?:truncated|snip|snipped|cut|omitted|output truncated)\s*\]|\(\s*(?:output truncated|truncated|snip|snipped|omitted)\s*\)|-+\s*(?:snip|cut|truncated)\s*-+|#\s*(?:\.{3}|truncated|snip))\s*$`)

// isElision reports whether a line is an author's elision marker.
func isElision(s string) bool {
	t := strings.TrimSpace(s)
	if t == "" || (t[0] != '.' && t[0] != '<' && t[0] != '[' && t[0] != '(' && t[0] != '-' && t[0] != '#' && !strings.HasPrefix(t, "…")) {
		return false
	}
	return reElision.MatchString(t)
}

// dropElisions removes elision markers from ls and records them.
func dropElisions(ls []line, s *skips) []line {
	n := 0
	for _, l := range ls {
		if isElision(l.text) {
			n++
		}
	}
	if n == 0 {
		return ls
	}
	out := make([]line, 0, len(ls)-n)
	for _, l := range ls {
		if isElision(l.text) {
			*s = append(*s, Skip{Line: l.no, Text: l.text, Reason: elisionReason})
			continue
		}
		out = append(out, l)
	}
	return out
}
