package integration

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/cmd/pvrdma-doctor/internal/cli"
	"github.com/pvrdma-doctor/pvrdma-doctor/fixtures/standin"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
)

// The plans' runbooks, as `pvrdma-doctor plan` renders them, run on the
// OpenSSH lab: one sshd per scenario on loopback answers for its hosts (one
// address per host), and its esxcli, esxcfg-module, vsish and reboot are
// the stateful stand-in esxstate (fixtures/standin/esxstate), which parses
// every command line against ESXi's documented syntax, refuses what ESXi
// refuses, and applies a valid change to the host as ESXi would apply that
// text (-p replaces the option string, module changes load at the next
// boot). The harness answers every question a runbook asks with "yes"
// (a pause's Enter, a confirm). Steps a person carries out elsewhere
// (vCenter, the switch, a guest) are pauses: the harness applies that
// step's action to the lab as the person would (their govc commands are
// proven against vCenter in fixtures/vclab); an ESXi step left to the admin
// has its command typed as printed; a host whose plan has a step at the
// server is not run (the lab has no hardware) and is reported. A reboot
// pause: the harness types the step's reboot command, then runs the
// runbook again with --from N. Then a scan over SSH again: every finding a
// step resolves is gone and no new finding appears (but one caused by a
// fault the plans leave, as the model proof allows).

// lab is the running OpenSSH lab.
type lab struct {
	dir, bin, key, user string
	// sshds serve each scenario's hosts (sshd listens on at most 16
	// addresses).
	sshds map[string]*sshd
	// listen is each scenario's ListenAddress lines.
	listen map[string]string
	// addr is each scenario's hosts' sshd addresses.
	addr map[string]map[string]string
	// order is each scenario's hosts, in the scenario's order.
	order map[string][]string
	// mu guards sshds (the scenarios run side by side).
	mu sync.Mutex
}

// buildEsxstate builds the stand-in once per test binary.
func buildEsxstate(t *testing.T, dir string) string {
	t.Helper()
	out := filepath.Join(dir, "esxstate")
	cmd := exec.Command("go", "build", "-o", out, "./fixtures/standin/esxstate")
	cmd.Dir = repoRoot(t)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build esxstate: %v\n%s", err, b)
	}
	return out
}

// startLab sets up every scenario (all when names is empty).
func startLab(t *testing.T, names ...string) *lab {
	t.Helper()
	needSSHD(t)
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go tool to build the stand-in")
	}
	l := &lab{dir: worldDir(t), addr: map[string]map[string]string{}, order: map[string][]string{}, user: currentUser(t),
		sshds: map[string]*sshd{}, listen: map[string]string{}}
	l.bin = filepath.Join(l.dir, "bin")
	es := buildEsxstate(t, l.dir)
	if err := standin.ESXi.Install(l.bin); err != nil {
		t.Fatal(err)
	}
	if err := standin.ESXi.Install(filepath.Join(l.dir, "sh")); err != nil {
		t.Fatal(err)
	}
	exe, err := os.ReadFile(es)
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"esxcli", "esxcfg-module", "vsish", "reboot"} {
		if err := os.WriteFile(filepath.Join(l.bin, n), exe, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	// vmkping, cat, esxcfg-nics and uname: the esxi-command stand-in, told
	// the session's scenario and host (hosts.map, by the address the
	// session came in on).
	for _, n := range standin.ESXi.Names {
		if n == "esxcli" || n == "vsish" {
			continue
		}
		// ESXi's cat is the system's; the stand-in answers only a .vmx
		// (the session's own shell startup files may cat other files).
		wrap := fmt.Sprintf(`#!/bin/sh
set -f
if [ %[2]s = cat ]; then case "$#:${1:-}" in 1:*.vmx) ;; *) exec /bin/cat "$@" ;; esac; fi
m=$(awk -v a="$(echo "$SSH_CONNECTION" | awk '{print $3}')" '$1 == a { print $2, $3 }' %[1]s/hosts.map)
PVRDMA_SCENARIO_DIR=%[1]s/${m%%%% *} PVRDMA_SCENARIO_HOST=${m#* } exec /bin/sh %[1]s/sh/%[2]s "$@"
`, l.dir, n)
		if err := os.WriteFile(filepath.Join(l.bin, n), []byte(wrap), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if len(names) == 0 {
		entries, err := os.ReadDir(filepath.Join(repoRoot(t), "fixtures", "scenarios"))
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range entries {
			if e.IsDir() {
				names = append(names, e.Name())
			}
		}
	}
	var hostsMap strings.Builder
	for i, sc := range names {
		var listen strings.Builder
		out, err := exec.Command(es, "init", l.dir, sc).CombinedOutput()
		if err != nil {
			t.Fatalf("esxstate init %s: %v\n%s", sc, err, out)
		}
		l.addr[sc] = map[string]string{}
		for j, h := range strings.Fields(string(out)) {
			ip := fmt.Sprintf("127.42.%d.%d", i+1, j+1)
			l.addr[sc][h] = ip
			l.order[sc] = append(l.order[sc], h)
			fmt.Fprintf(&hostsMap, "%s %s %s\n", ip, sc, h)
			fmt.Fprintf(&listen, "ListenAddress %s\n", ip)
		}
		l.listen[sc] = listen.String()
	}
	if err := os.WriteFile(filepath.Join(l.dir, "hosts.map"), []byte(hostsMap.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	l.key = filepath.Join(l.dir, "id_ed25519")
	pub := writePrivateKey(t, l.key, newEd25519(t))
	os.WriteFile(filepath.Join(l.dir, "authorized_keys"), ssh.MarshalAuthorizedKey(pub), 0o644)
	return l
}

// server is the sshd of a scenario's hosts, started on first use, with
// its known_hosts file.
func (l *lab) server(t *testing.T, sc string) *sshd {
	t.Helper()
	l.mu.Lock()
	defer l.mu.Unlock()
	if s := l.sshds[sc]; s != nil {
		return s
	}
	// SHLVL=1: bash, the login shell of the test's user, sources
	// ~/.bashrc for a command sent over SSH only as the first shell level
	// (SHLVL unset), and this makes it the second; the machine's rc files are no part of the lab (they would run with the
	// stand-ins first on the PATH, and slow every session).
	s := startSSHD(t, l.dir, "lab-"+sc, l.listen[sc]+fmt.Sprintf(`AuthorizedKeysFile %s
UsePAM no
KbdInteractiveAuthentication no
MaxStartups 100
SetEnv PATH=%s:/usr/bin:/bin PVRDMA_LAB=%s SHLVL=1
`, filepath.Join(l.dir, "authorized_keys"), l.bin, l.dir))
	var kh strings.Builder
	for _, ip := range l.addr[sc] {
		fmt.Fprintf(&kh, "[%s]:%d %s", ip, s.port, ssh.MarshalAuthorizedKey(s.hostKeys[ssh.KeyAlgoED25519]))
	}
	os.WriteFile(filepath.Join(l.dir, sc+".known_hosts"), []byte(kh.String()), 0o644)
	// sshd says it listens once per address: wait for all of them.
	for _, ip := range l.addr[sc] {
		for try := 0; ; try++ {
			c, err := net.DialTimeout("tcp", net.JoinHostPort(ip, strconv.Itoa(s.port)), time.Second)
			if err == nil {
				c.Close()
				break
			}
			if try > 100 {
				t.Fatalf("sshd does not listen on %s: %v", ip, err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	l.sshds[sc] = s
	return s
}

// args are the scan flags for a scenario's hosts.
func (l *lab) args(t *testing.T, sc string) []string {
	var b strings.Builder
	srv := l.server(t, sc)
	for _, h := range l.order[sc] {
		fmt.Fprintf(&b, "%s %s\n", h, net.JoinHostPort(l.addr[sc][h], strconv.Itoa(srv.port)))
	}
	hosts := filepath.Join(l.dir, sc+".hosts")
	if err := os.WriteFile(hosts, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return []string{"--hosts-file", hosts, "-i", l.key, "--user", l.user, "--known-hosts", filepath.Join(l.dir, sc+".known_hosts"),
		"--ssh-config", filepath.Join(l.dir, "no_config")}
}

// scan scans a scenario's hosts over SSH: the report and its raw JSON.
func (l *lab) scan(t *testing.T, sc string) (report.Report, []byte) {
	t.Helper()
	var out, errOut bytes.Buffer
	cli.Run(append([]string{"scan", "-o", "json", "--connect-timeout", "20s"}, l.args(t, sc)...),
		&cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, func(string) string { return "" })
	var r report.Report
	if err := json.Unmarshal(out.Bytes(), &r); err != nil {
		t.Fatalf("%s: scan: %v\n%s", sc, err, errOut.String())
	}
	for _, h := range r.Hosts {
		if h.Status != "collected" {
			var failed []string
			for _, c := range h.Commands {
				if c.Status != "collected" {
					failed = append(failed, fmt.Sprintf("%s: %s exit %d %s", c.Command, c.Status, c.ExitCode, c.Error))
				}
			}
			t.Fatalf("%s: %s not collected: %s %s\n%s\n%s", sc, h.Host, h.Status, h.Reason, strings.Join(failed, "\n"), errOut.String())
		}
	}
	return r, out.Bytes()
}

// runbooks writes the scenario's runbooks with `pvrdma-doctor plan` over
// SSH into a folder and returns it.
func (l *lab) runbooks(t *testing.T, sc string) string {
	t.Helper()
	dir := filepath.Join(l.dir, "plans", sc)
	var out, errOut bytes.Buffer
	code := cli.Run(append([]string{"plan", "--dir", dir, "--connect-timeout", "20s"}, l.args(t, sc)...),
		&cli.IOStreams{In: strings.NewReader(""), Out: &out, ErrOut: &errOut}, func(string) string { return "" })
	if _, err := os.Stat(dir); err != nil {
		t.Fatalf("%s: plan (exit %d) wrote no runbooks: %s%s", sc, code, out.String(), errOut.String())
	}
	return dir
}

// session runs a command on a scenario's host over SSH, each prompt
// answered by answer (nil: no input); the output and the exit status.
func (l *lab) session(t *testing.T, sc, host, command string, answer func(prompt string) string) (string, int) {
	t.Helper()
	b, err := os.ReadFile(l.key)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(b)
	if err != nil {
		t.Fatal(err)
	}
	srv := l.server(t, sc)
	c, err := ssh.Dial("tcp", net.JoinHostPort(l.addr[sc][host], strconv.Itoa(srv.port)), &ssh.ClientConfig{
		User: l.user, Auth: []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(srv.hostKeys[ssh.KeyAlgoED25519]), Timeout: 20 * time.Second,
		HostKeyAlgorithms: []string{ssh.KeyAlgoED25519},
	})
	if err != nil {
		t.Fatalf("ssh %s: %v", host, err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	stdin, _ := s.StdinPipe()
	stdout, _ := s.StdoutPipe()
	var errOut bytes.Buffer
	s.Stderr = &errOut
	if err := s.Start(command); err != nil {
		t.Fatal(err)
	}
	// A runbook waiting for an answer the harness did not give would
	// wait forever: a minute is far beyond any runbook's run.
	timer := time.AfterFunc(time.Minute, func() { s.Close(); c.Close() })
	defer timer.Stop()
	chunks := make(chan []byte)
	go func() {
		defer close(chunks)
		for {
			buf := make([]byte, 4096)
			n, err := stdout.Read(buf)
			if n > 0 {
				chunks <- buf[:n]
			}
			if err != nil {
				return
			}
		}
	}()
	var all, pending bytes.Buffer
	quiet := time.NewTimer(time.Hour)
	defer quiet.Stop()
	for open := true; open; {
		select {
		case b, ok := <-chunks:
			if !ok {
				open = false
				break
			}
			all.Write(b)
			pending.Write(b)
			quiet.Reset(quietBeforeAnswer)
		case <-quiet.C:
			// Output that stopped mid-line is a question waiting for a
			// line on stdin (a pause's Enter, a confirm's yes).
			if p := pending.String(); answer != nil && isPrompt(p) {
				stdin.Write([]byte(answer(p)))
				pending.Reset()
			}
		}
	}
	stdin.Close()
	code := 0
	if err := s.Wait(); err != nil {
		if ee, ok := err.(*ssh.ExitError); ok {
			code = ee.ExitStatus()
		} else {
			code = -1
		}
	}
	return all.String() + errOut.String(), code
}

// quietBeforeAnswer is how long a session's output stays unchanged
// before the harness takes an unfinished line as a question.
const quietBeforeAnswer = 100 * time.Millisecond

// isPrompt reports whether the output since the last answer ends in an
// unfinished line: a question waiting for a line on stdin, whatever its
// words (the runbook's pauses and confirms).
func isPrompt(p string) bool {
	i := strings.LastIndexByte(p, '\n')
	return strings.TrimSpace(p[i+1:]) != ""
}

// rawPlan is a plan as the JSON report carries it, each step's action
// kept as JSON (what the lab applies for a person's step).
type rawPlan struct {
	Host  string `json:"host"`
	Steps []struct {
		N        int             `json:"step"`
		Action   string          `json:"action"`
		On       string          `json:"on"`
		Command  string          `json:"command"`
		Params   json.RawMessage `json:"params"`
		Resolves []checks.Cause  `json:"resolves"`
	} `json:"steps"`
}

var (
	rePauseStep = regexp.MustCompile(`>>> Step (\d+) \(`)
	reFrom      = regexp.MustCompile(`run this script again with --from (\d+)`)
	reFailed    = regexp.MustCompile(`step \d+ failed`)
	// rePlaceholder is a value the admin fills in (plan.Render pauses on
	// these).
	rePlaceholder = regexp.MustCompile(`IFACE|ADDRESS|NETMASK|PORTGROUP`)
)

// runPlan runs one host's runbook to its end on the lab, a reboot pause
// by rebooting and continuing with --from: the transcript, and the
// problems (a step failed, a verify not holding, a person's step the lab
// refused).
func (l *lab) runPlan(t *testing.T, sc string, p rawPlan, script string) (string, []string) {
	t.Helper()
	var transcript strings.Builder
	var problems []string
	from := 1
	for round := 0; round < 6; round++ {
		rebootAt := 0
		// Every answer is "yes": a pause reads any line, a confirm runs
		// its command only on "yes".
		answer := func(prompt string) string {
			i := strings.LastIndex(prompt, ">>> ")
			if j := strings.LastIndex(prompt, "!!! "); j > i || i < 0 {
				return "yes\n" // a confirm (whatever its words): run it
			}
			q := prompt[i:]
			if m := reFrom.FindStringSubmatch(q); m != nil {
				rebootAt, _ = strconv.Atoi(m[1])
				return "yes\n"
			}
			if m := rePauseStep.FindStringSubmatch(q); m != nil {
				n, _ := strconv.Atoi(m[1])
				for _, st := range p.Steps {
					if st.N != n {
						continue
					}
					if st.On == "esxi" {
						// A step in the ESXi shell the runbook leaves to the
						// admin (a file to edit first, a finding to look
						// into): the admin types its command, as printed.
						if st.Command == "" || rePlaceholder.MatchString(st.Command) {
							continue
						}
						out, code := l.session(t, sc, p.Host, st.Command, nil)
						if code != 0 {
							problems = append(problems, fmt.Sprintf("step %d (%s): %s: exit %d: %s", n, st.Action, st.Command, code, strings.TrimSpace(out)))
						}
						continue
					}
					if msg := l.personDoes(sc, p.Host, st.Action, st.Params); msg != "" {
						problems = append(problems, fmt.Sprintf("step %d (%s, %s): %s", n, st.Action, st.On, msg))
					}
				}
			}
			return "yes\n"
		}
		out, code := l.session(t, sc, p.Host, fmt.Sprintf("sh %s --from %d", script, from), answer)
		transcript.WriteString(out)
		if code != 0 {
			problems = append(problems, fmt.Sprintf("the runbook exited %d", code))
		}
		for _, line := range strings.Split(out, "\n") {
			if strings.Contains(line, "NOT YET") || reFailed.MatchString(line) {
				problems = append(problems, strings.TrimSpace(line))
			}
		}
		if rebootAt == 0 {
			break
		}
		var cmd string
		for _, st := range p.Steps {
			if st.N == rebootAt-1 {
				cmd = st.Command
			}
		}
		out, code = l.session(t, sc, p.Host, cmd, nil)
		transcript.WriteString("\n[lab] " + cmd + "\n" + out)
		if code != 0 {
			problems = append(problems, fmt.Sprintf("%s: exit %d: %s", cmd, code, strings.TrimSpace(out)))
			break
		}
		from = rebootAt
	}
	return transcript.String(), problems
}

// personDoes applies a step a person carries out elsewhere to the lab;
// "" when done (or when it has no effect the lab models).
func (l *lab) personDoes(sc, host, kind string, params json.RawMessage) string {
	b, _ := json.Marshal(map[string]any{"action": kind, "host": host, "params": params})
	cmd := exec.Command(filepath.Join(l.dir, "esxstate"), "action", l.dir, sc)
	cmd.Stdin = bytes.NewReader(b)
	out, err := cmd.CombinedOutput()
	if err != nil && !strings.Contains(string(out), "no modelled effect") {
		return strings.TrimSpace(string(out))
	}
	return ""
}

// serious is a report's failing findings at warning or above, by key.
func serious(r report.Report) map[string]checks.Finding {
	out := map[string]checks.Finding{}
	for _, f := range r.Findings {
		if f.Status == checks.StatusFail && f.Severity.Rank() >= checks.Warning.Rank() && f.RuleID != "COLLECTION_FAILED" {
			out[f.Key()] = f
		}
	}
	return out
}

// labOutcome is one scenario's result on the lab.
type labOutcome struct {
	plans, steps int
	problems     []string
	// notRun are the host plans not run end to end, with the reason (a
	// step at the server: the lab has no hardware).
	notRun []string
	// underRemaining are new findings caused by a finding the plans do
	// not resolve (a NIC left without RDMA makes its peers' VM pairs
	// TCP once the others have it), as the model proof allows them.
	underRemaining []string
}

// hardwareStep is a plan's first step carried out at the server ("" when
// it has none).
func hardwareStep(p rawPlan) string {
	for _, st := range p.Steps {
		if st.On == "hardware" {
			return fmt.Sprintf("step %d (%s) is at the server", st.N, st.Action)
		}
	}
	return ""
}

// proveOnLab runs every host plan of a scenario and scans again.
func (l *lab) proveOnLab(t *testing.T, sc string) labOutcome {
	t.Helper()
	var o labOutcome
	before, raw := l.scan(t, sc)
	var rr struct {
		Plans []rawPlan `json:"plans"`
	}
	if err := json.Unmarshal(raw, &rr); err != nil {
		t.Fatal(err)
	}
	hosts := map[string]bool{}
	for _, h := range l.order[sc] {
		hosts[h] = true
	}
	var plans []rawPlan
	for _, p := range rr.Plans {
		if hosts[p.Host] {
			plans = append(plans, p)
		}
	}
	if len(plans) == 0 {
		return o
	}
	dir := l.runbooks(t, sc)
	resolved := map[string]checks.Cause{}
	for _, p := range plans {
		if why := hardwareStep(p); why != "" {
			o.notRun = append(o.notRun, p.Host+": "+why)
			continue
		}
		script := filepath.Join(dir, report.RunbookFileName(p.Host, "sh"))
		if _, err := os.Stat(script); err != nil {
			o.problems = append(o.problems, fmt.Sprintf("%s: no runbook %s", p.Host, filepath.Base(script)))
			continue
		}
		o.plans++
		o.steps += len(p.Steps)
		transcript, problems := l.runPlan(t, sc, p, script)
		for _, pr := range problems {
			o.problems = append(o.problems, p.Host+": "+pr)
		}
		if len(problems) > 0 || testing.Verbose() {
			t.Logf("%s/%s runbook transcript:\n%s", sc, p.Host, transcript)
		}
		for _, st := range p.Steps {
			for _, c := range st.Resolves {
				resolved[c.Key()] = c
			}
		}
	}
	after, _ := l.scan(t, sc)
	was, now := serious(before), serious(after)
	var kept []string
	for k, c := range resolved {
		if !hosts[c.Host] {
			continue // a guest's: the lab scans the hosts
		}
		if _, ok := now[k]; ok {
			kept = append(kept, k)
		}
	}
	sort.Strings(kept)
	for _, k := range kept {
		o.problems = append(o.problems, "still there after the plan: "+k)
	}
	var added []string
	for k := range now {
		if _, ok := was[k]; !ok {
			added = append(added, k)
		}
	}
	sort.Strings(added)
	for _, k := range added {
		f := now[k]
		if f.CausedBy != nil {
			_, before := was[f.CausedBy.Key()]
			_, still := now[f.CausedBy.Key()]
			if before && still {
				o.underRemaining = append(o.underRemaining, k+" under "+f.CausedBy.Key())
				continue
			}
		}
		o.problems = append(o.problems, "new after the plan: "+k+": "+f.Message)
	}
	return o
}

// Every scenario's host runbooks on the lab, then a scan.
func TestRunbooksOnTheOpenSSHLab(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the stand-in and runs every runbook")
	}
	l := startLab(t)
	var names []string
	for sc := range l.order {
		names = append(names, sc)
	}
	sort.Strings(names)
	start := time.Now()
	var mu sync.Mutex
	summary := map[string]string{}
	t.Run("scenarios", func(t *testing.T) {
		for _, sc := range names {
			t.Run(sc, func(t *testing.T) {
				t.Parallel()
				o := l.proveOnLab(t, sc)
				line := fmt.Sprintf("%d host plans run, %d steps, %d problems", o.plans, o.steps, len(o.problems))
				if len(o.notRun) > 0 {
					line += "; not runnable end to end: " + strings.Join(o.notRun, "; ")
				}
				if len(o.underRemaining) > 0 {
					line += "; new under a remaining fault: " + strings.Join(o.underRemaining, ", ")
				}
				mu.Lock()
				summary[sc] = line
				mu.Unlock()
				t.Log(line)
				for _, pr := range o.problems {
					t.Error(pr)
				}
			})
		}
	})
	for _, sc := range names {
		t.Logf("%s: %s", sc, summary[sc])
	}
	t.Logf("all scenarios in %s", time.Since(start).Round(time.Millisecond))
}

// planOf is a host's plan from a scan's JSON report.
func planOf(t *testing.T, raw []byte, host string) rawPlan {
	t.Helper()
	var rr struct {
		Plans []rawPlan `json:"plans"`
	}
	if err := json.Unmarshal(raw, &rr); err != nil {
		t.Fatal(err)
	}
	for _, p := range rr.Plans {
		if p.Host == host {
			return p
		}
	}
	t.Fatalf("no plan for %s", host)
	return rawPlan{}
}

// runEdited resets the scenario's lab hosts, writes the host's runbook
// with one line of it edited as an admin might mistype it, runs it and
// scans again: the transcript, the problems and the report after.
func (l *lab) runEdited(t *testing.T, sc, host, from, to string) (string, []string, report.Report) {
	t.Helper()
	if out, err := exec.Command(filepath.Join(l.dir, "esxstate"), "init", l.dir, sc).CombinedOutput(); err != nil {
		t.Fatalf("esxstate init %s: %v\n%s", sc, err, out)
	}
	_, raw := l.scan(t, sc)
	p := planOf(t, raw, host)
	dir := l.runbooks(t, sc)
	b, err := os.ReadFile(filepath.Join(dir, report.RunbookFileName(host, "sh")))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Count(string(b), from) != 1 {
		t.Fatalf("%s's runbook holds %q %d times, want once:\n%s", host, from, strings.Count(string(b), from), b)
	}
	script := filepath.Join(dir, "edited-"+report.RunbookFileName(host, "sh"))
	if err := os.WriteFile(script, []byte(strings.Replace(string(b), from, to, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	transcript, problems := l.runPlan(t, sc, p, script)
	after, _ := l.scan(t, sc)
	return transcript, problems, after
}

// The harness can fail: a mistyped option stops the runbook with ESXi's
// error, and a -p that leaves out an option the host had makes the
// finding come back, since -p replaces the whole option string.
func TestRunbookLabCatchesMistakes(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: builds the stand-in and runs runbooks")
	}
	const sc, host = "nics", "esx08"
	const good = `esxcli system module parameters set -m nmlx5_core -p 'trust_state=2 pfctx=0x08 pfcrx=0x08'`
	l := startLab(t, sc)
	pfc := "NMLX5_PFC_PARAMS|" + host + "|nmlx5_core"

	transcript, problems, after := l.runEdited(t, sc, host, good,
		`esxcli system module parameters set -m nmlx5_core --parameters-string 'trust_state=2 pfctx=0x08 pfcrx=0x08'`)
	for _, want := range []string{"Error: Invalid option --parameters-string for command system module parameters set", "step 4 failed"} {
		if !strings.Contains(transcript, want) {
			t.Errorf("a mistyped option: the transcript lacks %q:\n%s", want, transcript)
		}
	}
	if !slices.Contains(problems, "the runbook exited 1") {
		t.Errorf("a mistyped option: the runbook did not stop with exit 1: %q", problems)
	}
	if _, ok := serious(after)[pfc]; !ok {
		t.Errorf("a mistyped option changed the host: %s is gone", pfc)
	}

	// The host has "pfcrx=0x00 pfctx=0x08 trust_state=2": leaving pfctx
	// out of -p drops it, so PFC stays off after the reboot.
	transcript, problems, after = l.runEdited(t, sc, host, good,
		`esxcli system module parameters set -m nmlx5_core -p 'trust_state=2 pfcrx=0x08'`)
	if _, ok := serious(after)[pfc]; !ok {
		t.Errorf("-p without the host's pfctx: %s is gone after the plan (problems %q):\n%s", pfc, problems, transcript)
	}
	if !slices.ContainsFunc(problems, func(s string) bool { return strings.Contains(s, "NOT YET") }) {
		t.Errorf("-p without the host's pfctx: no verify read says NOT YET: %q", problems)
	}
}
