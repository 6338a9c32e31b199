package hostio

// Kind identifies what a command is, independent of its arguments. The
// kinds themselves are declared beside their specs in internal/catalog.
type Kind string

// Command is one validated, allowlisted command line.
type Command struct {
	Kind  Kind   `json:"kind"`
	Line  string `json:"command"`
	Stage int    `json:"stage"`
}
