package cli

import (
	"context"
	"os"
	"path/filepath"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/analysis"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// checkBundleFlags validates --bundle and --tokens before a scan starts, so
// that a typo does not throw away a whole fleet's scan at the end.
func checkBundleFlags(bf BundleFlags) error {
	if bf.RedactNames && bf.NoRedact {
		return usageError("--redact-names and --no-redact contradict each other: keep one")
	}
	if bf.Tokens != "" {
		if bf.NoRedact {
			return usageError("--tokens makes no sense with --no-redact")
		}
		if _, err := loadTokens(bf.Tokens); err != nil {
			return usageError("%v", err)
		}
	}
	if bf.Path == "" {
		return nil
	}
	if err := checkTokenMapFree(bf.Path, bf); err != nil {
		return err
	}
	if err := bundle.CheckWritable(bf.Path); err != nil {
		return usageError("--bundle: %v", err)
	}
	dir := filepath.Dir(bf.Path)
	st, err := os.Stat(dir)
	if err != nil || !st.IsDir() {
		return usageError("--bundle %s: the folder %s does not exist", bf.Path, dir)
	}
	f, err := os.CreateTemp(dir, ".pvrdma-doctor-check-*")
	if err != nil {
		return usageError("--bundle %s: cannot write in %s: %v", bf.Path, dir, err)
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return nil
}

// attachBundle wires a live run's bundle export: --bundle writes one after
// the run (analysed as the report was, with the run's config, so its
// report matches what the user saw), and the TUI's export key writes one on
// demand.
func (p *Pipeline) attachBundle(bf BundleFlags) {
	if bf.Path != "" {
		p.SaveBundle = func(ctx context.Context, results []hostio.HostResult, with analysis.Options) error {
			return writeBundle(bf.Path, results, with, bf, p.IO.ErrOut, bundleRun{consume: true, abort: abortOf(ctx)})
		}
	}
	p.Bundle = bundleExporter(p.analysisOptions, bf)
}
