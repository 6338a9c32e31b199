package report

import (
	"io"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/jsonstream"
)

// writeJSONReport writes the report as indented JSON (schema in
// docs/report-schema.md), a host, finding or pair at a time: the whole
// document is never held in memory.
func writeJSONReport(w io.Writer, r *Report) error {
	return jsonstream.Write(w, r, "  ")
}
