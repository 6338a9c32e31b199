package report

import (
	"encoding/json"
	"io"
)

// writeJSONReport writes the report as indented JSON (schema in docs/report-schema.md).
func writeJSONReport(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
