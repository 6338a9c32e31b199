package cli

import (
	"bytes"
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/lab"
)

// Helpers shared by the command tests: running the CLI in-process and
// starting the simulated lab.

// execCLI runs pvrdma-doctor in-process under ctx with stdin as its
// standard input and env as its environment (nil: empty), and returns the
// exit status and what it wrote to standard output and standard error.
func execCLI(ctx context.Context, stdin string, env map[string]string, args []string) (code int, out, errOut string) {
	var o, e bytes.Buffer
	code = RunContext(ctx, args, &IOStreams{In: strings.NewReader(stdin), Out: &o, ErrOut: &e}, func(k string) string { return env[k] })
	return code, o.String(), e.String()
}

// runCLI runs pvrdma-doctor in-process on stdin, with an empty environment.
func runCLI(t *testing.T, stdin string, args ...string) (code int, out, errOut string) {
	t.Helper()
	return execCLI(context.Background(), stdin, nil, args)
}

// runWithEnv runs pvrdma-doctor in-process with an empty standard input
// and env as its environment.
func runWithEnv(env map[string]string, args ...string) (int, string, string) {
	return execCLI(context.Background(), "", env, args)
}

// loadScenario loads an embedded scenario, or fails the test.
var loadScenario = fixtures.MustLoad

// startLabDir starts the lab of sc (closed with the test) and writes its
// hosts file to dir/hosts of a new folder dir.
func startLabDir(t *testing.T, sc *fixtures.Scenario, opts lab.Options) (*lab.Lab, string) {
	t.Helper()
	l := lab.StartTB(t, sc, opts)
	dir := t.TempDir()
	if err := l.WriteHostsFile(filepath.Join(dir, "hosts")); err != nil {
		t.Fatal(err)
	}
	return l, dir
}

// labKnownHosts writes the host keys of the lab's hosts to
// dir/known_hosts and returns its path.
func labKnownHosts(t *testing.T, l *lab.Lab, dir string) string {
	t.Helper()
	kh := filepath.Join(dir, "known_hosts")
	if err := l.WriteKnownHosts(kh); err != nil {
		t.Fatal(err)
	}
	return kh
}

// servingLab is a `lab serve` run through the root command in the
// background.
type servingLab struct {
	// Text is what it printed up to its instructions' last line.
	Text   string
	ErrOut *syncBuffer
	cancel context.CancelFunc
	errc   chan error
}

// serveLab runs `pvrdma-doctor lab serve ARGS` through the root command
// (empty environment) until it has printed its instructions; the serve is
// cancelled when the test ends, if stop did not end it before.
func serveLab(t *testing.T, args ...string) *servingLab {
	t.Helper()
	out, errOut := &syncBuffer{}, &syncBuffer{}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	root := NewRootCmd(&Factory{IO: &IOStreams{In: strings.NewReader(""), Out: out, ErrOut: errOut}, Getenv: func(string) string { return "" }})
	root.SetArgs(append([]string{"lab", "serve"}, args...))
	s := &servingLab{ErrOut: errOut, cancel: cancel, errc: make(chan error, 1)}
	go func() { s.errc <- root.ExecuteContext(ctx) }()
	s.Text = waitFor(t, out, "Press Ctrl-C to stop.", s.errc)
	return s
}

// stop cancels the serve and waits for it to return with no error;
// otherwise the test fails with what.
func (s *servingLab) stop(t *testing.T, what string) {
	t.Helper()
	s.cancel()
	waitServeStopped(t, s.errc, what)
}

// runPrinted runs a scan command as `lab serve` printed it (lines joined
// at their trailing backslashes, "pvrdma-doctor" first), with env as the
// environment, no ssh config (dir/none) and JSON output.
func runPrinted(printed, dir string, env map[string]string) (int, string, string) {
	args := strings.Fields(strings.ReplaceAll(printed, "\\\n", " "))[1:]
	return runWithEnv(env, append(args, "--ssh-config", filepath.Join(dir, "none"), "-o", "json")...)
}
