package parse

import "fmt"

// Error is an output that a parser could not understand. Line is the 1-based
// line of the text passed to the parser (0 when the problem is not tied to a
// line, e.g. a missing mandatory key).
type Error struct {
	Line int
	Msg  string
}

// Error formats the error as "line 7: expected ...".
func (e *Error) Error() string {
	if e.Line > 0 {
		return fmt.Sprintf("line %d: %s", e.Line, e.Msg)
	}
	return e.Msg
}

// errorf builds an *Error at a line.
func errorf(line int, format string, a ...any) *Error {
	return &Error{Line: line, Msg: fmt.Sprintf(format, a...)}
}
