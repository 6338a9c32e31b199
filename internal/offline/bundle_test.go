package offline

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/bundle"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/facts"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/redact"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/testutil"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

const mixedDir = "../../fixtures/scenarios/mixed"

// testAnalyze is cli's analyze() without the cli package.
func testAnalyze(rs []hostio.HostResult, redact func(string) string) bundle.Analysis {
	fl := facts.Build(rs)
	res := checks.Run(&fl)
	r := report.Build(rs, &fl, res, nil, report.Meta{Source: redact("test of esx01"), Now: time.Unix(0, 0), Version: "test"})
	return bundle.Analysis{Fleet: &fl, Checks: res, Report: r}
}

func loadMixed(t *testing.T) *Input {
	t.Helper()
	in, err := Load(mixedDir)
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func writeBytes(t *testing.T, rs []hostio.HostResult, redact bool) ([]byte, *bundle.Written) {
	t.Helper()
	var buf bytes.Buffer
	w, err := bundle.Write(&buf, rs, bundle.Options{Redact: redact, ToolVersion: "test", Now: time.Unix(1700000000, 0), Source: "scan of esx01", Analyze: testAnalyze,
		HTML: func(w io.Writer, r *report.Report) error {
			_, err := fmt.Fprintf(w, "<p>%s</p>", r.Verdict)
			return err
		}})
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes(), w
}

func loadBytes(t *testing.T, b []byte) *Input {
	t.Helper()
	in, err := LoadReader("test.tar.gz", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return in
}

func identity(s string) string { return s }

// failKeys are the failing findings as comparable lines, mapped by f.
func failKeys(fs []checks.Finding, f func(string) string) []string {
	var out []string
	for _, x := range fs {
		out = append(out, f(fmt.Sprintf("%s|%s|%s|%s|%s|%s", x.Status, x.RuleID, x.Host, x.Subject, x.Message, x.Fix)))
		for _, e := range x.Evidence {
			out = append(out, f(fmt.Sprintf("  ev %s|%s|%d|%s", e.Host, e.Command, e.Line, e.Text)))
		}
	}
	sort.Strings(out)
	return out
}

func TestSavedOutputsFolderAnalyzes(t *testing.T) {
	in := loadMixed(t)
	guests := 0
	for _, hr := range in.Results {
		if hr.Role == hostio.RoleGuest {
			guests++
		}
	}
	// Six hosts and, from their own folders, the seven guests (issue 23).
	if in.Kind != KindSaved || len(in.Results)-guests != 6 || guests != 7 || in.Partial() {
		t.Fatalf("kind %s, %d hosts, %d guests, problems %v", in.Kind, len(in.Results)-guests, guests, in.Problems)
	}
	a := testAnalyze(in.Results, identity)
	got := map[string]bool{}
	for _, f := range a.Checks.Findings {
		if f.Status == checks.StatusFail {
			got[f.RuleID+" "+f.Host] = true
		}
	}
	for _, want := range []string{"NO_RDMA_DEVICE esx02", "PVRDMA_VMKNIC_UNSET esx03", "PFC_DISABLED esx04"} {
		if !got[want] {
			t.Errorf("finding %s missing from saved-output analysis: %v", want, got)
		}
	}
	// A single host folder is one host named after the folder.
	one, err := Load(filepath.Join(mixedDir, "esx02"))
	if err != nil || len(one.Results) != 1 || one.Results[0].Host != "esx02" {
		t.Fatalf("single host folder: %v %+v", err, one)
	}
}

func TestRoundTripUnredacted(t *testing.T) {
	in := loadMixed(t)
	b, w := writeBytes(t, in.Results, false)
	if w.Tokens != nil || w.Manifest.Redacted {
		t.Fatal("unredacted bundle has tokens or says redacted")
	}
	back := loadBytes(t, b)
	if back.Kind != KindArchive || back.Partial() || back.Manifest == nil || back.Manifest.Redacted {
		t.Fatalf("kind %s problems %v", back.Kind, back.Problems)
	}
	if len(back.Ignored) != 0 {
		t.Errorf("ignored: %v", back.Ignored)
	}
	want := failKeys(testAnalyze(in.Results, identity).Checks.Findings, identity)
	got := failKeys(testAnalyze(back.Results, identity).Checks.Findings, identity)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings differ after the round trip:\n got %v\nwant %v", got, want)
	}
	for i := range in.Results {
		for j, c := range in.Results[i].Captures {
			d := back.Results[i].Captures[j]
			if c.Command != d.Command || c.Stdout != d.Stdout || c.Stderr != d.Stderr || c.Status != d.Status || c.Kind != d.Kind {
				t.Errorf("capture %s/%s differs after the round trip", c.Host, c.Command)
			}
		}
	}
	// Every file is in the manifest with a checksum, and the layout is the scenario's.
	if read, err := bundle.ReadArchive(bytes.NewReader(b), limits); err != nil {
		t.Fatal(err)
	} else if len(read.Problems) > 0 {
		t.Fatal(read.Problems)
	}
	files := rawFiles(t, b)
	for _, name := range []string{bundle.ManifestName, bundle.ResultsFile, bundle.FactsFile, bundle.FindingsFile, bundle.ReportJSON, bundle.ReportHTML,
		"hosts/esx01/esxcli_rdma_device_list.txt", "hosts/esx01/vmkping_-I_vmk1_-c_3_-d_-s_8972_192.168.50.12.txt"} {
		if _, ok := files[name]; !ok {
			t.Errorf("bundle lacks %s", name)
		}
	}
	if len(back.Manifest.Files) != len(files)-1 {
		t.Errorf("manifest lists %d files, archive has %d besides the manifest", len(back.Manifest.Files), len(files)-1)
	}
	var slim []hostio.HostResult
	if err := json.Unmarshal(files[bundle.ResultsFile], &slim); err != nil {
		t.Fatal(err)
	}
	for _, hr := range slim {
		for _, c := range hr.Captures {
			if c.Stdout != "" {
				t.Fatalf("results.json holds stdout of %s", c.Command)
			}
		}
	}
}

var (
	testIPv4 = regexp.MustCompile(`(?:^|[\s(:,])([0-9]{1,3}(?:\.[0-9]{1,3}){3})(?:$|[\s):,])`)
	testMAC  = regexp.MustCompile(`(?i)[0-9a-f]{2}(?::[0-9a-f]{2}){5}`)
	testUUID = regexp.MustCompile(`(?i)[0-9a-f]{2}(?: [0-9a-f]{2}){7}-[0-9a-f]{2}(?: [0-9a-f]{2}){7}|[0-9a-f]{8}-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{12}`)
	testPath = regexp.MustCompile(`/vmfs/volumes/[^\n]*`)
)

// identifiers lists every host name, IP, MAC, UUID, VM name and datastore
// path of the scenario, found independently of the redactor.
func identifiers(t *testing.T, rs []hostio.HostResult) []string {
	set := map[string]bool{}
	for _, hr := range rs {
		set[hr.Host] = true
		for _, c := range hr.Captures {
			for _, m := range testIPv4.FindAllStringSubmatch(c.Stdout+" "+c.Command, -1) {
				if !strings.HasPrefix(m[1], "255.") && m[1] != "0.0.0.0" {
					set[m[1]] = true
				}
			}
			for _, re := range []*regexp.Regexp{testMAC, testUUID, testPath} {
				for _, m := range re.FindAllString(c.Stdout, -1) {
					if m := strings.TrimSpace(m); m != "00:00:00:00:00:00" && m != "ff:ff:ff:ff:ff:ff" {
						set[m] = true // the loopback's and the broadcast address identify nothing
					}
				}
			}
			if c.Kind == catalog.KindVMProcessList {
				vms, err := parse.VMProcessList(c.Stdout)
				if err != nil {
					t.Fatal(err)
				}
				for _, vm := range vms {
					set[vm.DisplayName] = true
				}
			}
		}
	}
	return slices.Sorted(maps.Keys(set))
}

func TestRedactedBundleHasNoIdentifiersAndSameFindings(t *testing.T) {
	in := loadMixed(t)
	ids := identifiers(t, in.Results)
	if len(ids) < 40 {
		t.Fatalf("only %d identifiers found in the scenario: %v", len(ids), ids)
	}
	b, w := writeBytes(t, in.Results, true)
	if w.Tokens == nil || !w.Manifest.Redacted {
		t.Fatal("redacted bundle without token map or manifest flag")
	}
	files := rawFiles(t, b)
	for name, data := range files {
		for _, id := range ids {
			if strings.Contains(name, id) || bytes.Contains(data, []byte(id)) {
				t.Errorf("%s contains the identifier %q", name, id)
			}
		}
		if bytes.Contains(data, []byte(`"original"`)) {
			t.Errorf("%s holds the token map", name)
		}
	}
	back := loadBytes(t, b)
	if !back.Redacted() || back.Partial() {
		t.Fatalf("redacted %v problems %v", back.Redacted(), back.Problems)
	}
	// The original findings, passed through the same token map, are
	// exactly the findings of the redacted bundle.
	r := redact.NewRedactor()
	if err := r.Seed(w.Tokens); err != nil {
		t.Fatal(err)
	}
	want := failKeys(testAnalyze(in.Results, identity).Checks.Findings, r.Text)
	got := failKeys(testAnalyze(back.Results, identity).Checks.Findings, identity)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("findings differ modulo tokens:\n got:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	// Redacted commands are still allowlisted (the vmkping peers are tokens).
	for _, hr := range back.Results {
		for _, c := range hr.Captures {
			role := hr.Role
			if c.Kind == catalog.KindGuestBWClient || c.Kind == catalog.KindGuestBWServer {
				role = hostio.RoleGuestBandwidth
			}
			if err := collect.CheckAllowedFor(role, c.Command); err != nil {
				t.Errorf("redacted command not allowlisted: %v", err)
			}
		}
	}
}

// rewrite rebuilds an archive, letting edit change or drop files.
func rewrite(t *testing.T, b []byte, edit func(name string, data []byte) ([]byte, bool)) []byte {
	t.Helper()
	files := rawFiles(t, b)
	names := slices.Sorted(maps.Keys(files))
	var out bytes.Buffer
	gz := gzip.NewWriter(&out)
	tw := tar.NewWriter(gz)
	for _, n := range names {
		data, keep := edit(n, files[n])
		if !keep {
			continue
		}
		tw.WriteHeader(&tar.Header{Name: n, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg})
		tw.Write(data)
	}
	tw.Close()
	gz.Close()
	return out.Bytes()
}

func TestDamagedBundles(t *testing.T) {
	in := loadMixed(t)
	b, _ := writeBytes(t, in.Results, false)
	const target = "hosts/esx01/esxcli_rdma_device_list.txt"

	t.Run("checksum mismatch", func(t *testing.T) {
		bad := rewrite(t, b, func(n string, d []byte) ([]byte, bool) {
			if n == target {
				return bytes.ReplaceAll(d, []byte("Active"), []byte("Down  ")), true
			}
			return d, true
		})
		got := loadBytes(t, bad)
		if !got.Partial() || !strings.Contains(strings.Join(got.Problems, "\n"), "checksum mismatch: "+target) {
			t.Fatalf("problems: %v", got.Problems)
		}
		c, _ := got.Results[0].Find("esxcli rdma device list")
		if c.Status != hostio.StatusFailed || c.Stdout != "" || got.Results[0].Status != hostio.StatusPartial {
			t.Errorf("tampered output used: %+v host %s", c, got.Results[0].Status)
		}
		rep := testAnalyze(got.Results, identity).Report
		if !rep.Incomplete() {
			t.Error("report of a damaged bundle is not incomplete")
		}
	})
	t.Run("newer schema", func(t *testing.T) {
		bad := rewrite(t, b, func(n string, d []byte) ([]byte, bool) {
			if n == bundle.ManifestName {
				return bytes.Replace(d, []byte(`"schema_version": "1.0"`), []byte(`"schema_version": "2.3"`), 1), true
			}
			return d, true
		})
		got := loadBytes(t, bad)
		if !got.Partial() || !strings.Contains(got.Problems[0], "bundle schema 2.3 is newer") || len(got.Results) != 13 {
			t.Fatalf("problems: %v, %d hosts", got.Problems, len(got.Results))
		}
	})
	t.Run("missing results.json", func(t *testing.T) {
		bad := rewrite(t, b, func(n string, d []byte) ([]byte, bool) { return d, n != bundle.ResultsFile })
		got := loadBytes(t, bad)
		if !got.Partial() || len(got.Results) != 13 {
			t.Fatalf("problems %v, %d hosts", got.Problems, len(got.Results))
		}
		// Without results.json the commands' statuses are lost (a command
		// that was skipped reads as an empty output): the reasons of what
		// is not evaluated may differ, the failures may not.
		failing := func(fs []checks.Finding) []checks.Finding {
			var out []checks.Finding
			for _, f := range fs {
				if f.Status == checks.StatusFail {
					out = append(out, f)
				}
			}
			return out
		}
		want := failKeys(failing(testAnalyze(in.Results, identity).Checks.Findings), identity)
		if g := failKeys(failing(testAnalyze(got.Results, identity).Checks.Findings), identity); strings.Join(g, "\n") != strings.Join(want, "\n") {
			t.Errorf("findings from the host folders alone differ:\n%s", diffLines(g, want))
		}
	})
	t.Run("truncated", func(t *testing.T) {
		got, err := LoadReader("t.tar.gz", bytes.NewReader(b[:len(b)/2]))
		if err != nil {
			t.Fatal(err)
		}
		if !got.Partial() || !strings.Contains(strings.Join(got.Problems, "\n"), "truncated or corrupt") {
			t.Fatalf("problems: %v", got.Problems)
		}
		if len(got.Results) == 0 {
			t.Fatal("nothing analysable from half a bundle")
		}
	})
	t.Run("truncated before any file", func(t *testing.T) {
		_, err := LoadReader("t.tar.gz", bytes.NewReader(b[:20]))
		if err == nil || !strings.Contains(err.Error(), "not a bundle") {
			t.Fatalf("err %v", err)
		}
	})
	t.Run("not a bundle", func(t *testing.T) {
		_, err := LoadReader("x.bin", bytes.NewReader([]byte{0x7f, 'E', 'L', 'F', 0, 1, 2, 0xff}))
		if err == nil || !strings.Contains(err.Error(), "not a bundle") {
			t.Fatalf("err %v", err)
		}
		_, err = LoadReader("notes.txt", strings.NewReader("just some notes\nno prompt here\n"))
		if err == nil || !strings.Contains(err.Error(), "no shell prompt") {
			t.Fatalf("err %v", err)
		}
	})
}

func TestTranscript(t *testing.T) {
	rdma, _ := os.ReadFile(filepath.Join(mixedDir, "esx02", "esxcli_rdma_device_list.txt"))
	vms, _ := os.ReadFile(filepath.Join(mixedDir, "esx02", "esxcli_vm_process_list.txt"))
	text := "Last login: today\n[root@esx02:~] esxcli rdma device list\n" + string(rdma) +
		"[root@esx02:~] uptime\n 10:00:00 up 3 days\n" +
		"[root@esx02:~] esxcli   vm process list\n" + string(vms) + "[root@esx02:~] exit\n"
	in, err := FromTranscript(text)
	if err != nil {
		t.Fatal(err)
	}
	if len(in.Results) != 1 || in.Results[0].Host != "esx02" || len(in.Results[0].Captures) != len(collect.Stage1()) {
		t.Fatalf("%+v", in.Results)
	}
	// The stage-1 commands the transcript lacks are skipped captures saying
	// so, and the host is partial (like a scan that could not run them).
	hr := in.Results[0]
	if hr.Status != hostio.StatusPartial || !strings.Contains(hr.Reason, fmt.Sprintf("%d of the %d base commands not collected: not in the input (a pasted transcript)", len(collect.Stage1())-2, len(collect.Stage1()))) {
		t.Errorf("host status %s: %s", hr.Status, hr.Reason)
	}
	collected := 0
	for _, c := range hr.Captures {
		switch {
		case c.Status == hostio.StatusCollected:
			collected++
		case c.Status != hostio.StatusSkipped || c.Cause != hostio.CauseNotInTranscript:
			t.Errorf("missing command: %+v", c)
		}
	}
	if collected != 2 {
		t.Errorf("%d captures collected, want 2", collected)
	}
	// Commands that are not pvrdma-doctor's are passed over quietly.
	if len(in.Ignored) != 0 || len(in.Read) != 1 || len(in.Read[0].Other) != 2 || in.Read[0].Other[0].Typed != "uptime" || in.Read[0].Other[0].Line != 5 {
		t.Errorf("ignored %v, read %+v", in.Ignored, in.Read)
	}
	c, ok := in.Results[0].Find("esxcli vm process list")
	if !ok || c.Kind != catalog.KindVMProcessList {
		t.Fatalf("vm list: %+v", c)
	}
	fl := facts.Build(in.Results)
	if len(fl.Hosts[0].VMs) == 0 || len(fl.Hosts[0].Errors) != 0 {
		t.Errorf("facts from transcript: %d VMs, errors %v", len(fl.Hosts[0].VMs), fl.Hosts[0].Errors)
	}
	if _, err := FromTranscript("[root@esx02:~] uptime\nup\n"); err == nil || !strings.Contains(err.Error(), "no pvrdma-doctor command") {
		t.Errorf("only foreign commands: %v", err)
	}
}

// rawFiles reads every regular file of a .tar.gz independently of the
// bundle reader (which keeps only checksums of the derived files).
func rawFiles(t *testing.T, b []byte) map[string][]byte {
	t.Helper()
	return testutil.TarGzFiles(t, b)
}

// diffLines lists the lines only one side has.
func diffLines(got, want []string) string {
	g, w := map[string]bool{}, map[string]bool{}
	for _, l := range got {
		g[l] = true
	}
	for _, l := range want {
		w[l] = true
	}
	var out []string
	for _, l := range got {
		if !w[l] {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range want {
		if !g[l] {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}

// A bundle in a regular file is read at offsets (its derived files'
// member checked unread); a pipe or an in-memory reader as a stream.
func TestReaderAtOnlyForRegularFiles(t *testing.T) {
	p := filepath.Join(t.TempDir(), "b.tar.gz")
	if err := os.WriteFile(p, []byte("0123456789"), 0o644); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.Seek(3, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	at, size := readerAt(f)
	if at == nil || size != 7 {
		t.Fatalf("regular file: reader %v, size %d", at, size)
	}
	b := make([]byte, 7)
	if _, err := at.ReadAt(b, 0); err != nil || string(b) != "3456789" {
		t.Fatalf("read %q %v: not from the file's offset", b, err)
	}
	if at, _ := readerAt(bytes.NewReader(b)); at != nil {
		t.Error("an in-memory reader is read at offsets")
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	if at, _ := readerAt(r); at != nil {
		t.Error("a pipe is read at offsets")
	}
}
