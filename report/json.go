package report

import (
	"encoding/json"
	"io"
)

// WriteJSON writes the report as indented JSON (schema in docs/report-schema.md).
func WriteJSON(w io.Writer, r *Report) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}
