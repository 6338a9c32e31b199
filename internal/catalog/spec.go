// Package catalog is the command catalogue: one Spec per command
// pvrdma-doctor may ever send to a host. Everything that knows about a
// command reads it from here: the collector (the allowlist, KindOf, the
// stage-2 plan, dry-run templates, file names), the recognition of the
// spellings admins type (collect.Recognize), the facts builder (which
// parser reads an output and which fact it sets), diff (how two facts of
// a kind are matched) and the README's command table.
//
// Adding a command is adding a Spec (see docs/ARCHITECTURE.md).
package catalog

// README.md's command tables are generated from the catalogue (make generate).
//go:generate go test . -count=1 -run ^TestReadmeTable$ -update

import (
	"fmt"
	"reflect"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

// Arg is a value a stage 2 or 3 command takes from host output. Its
// placeholder appears in the spec's Line; the value must match Pattern
// exactly before it can reach a command line.
type Arg struct {
	// Placeholder is how the value appears in Line ("<vmnicN>").
	Placeholder string
	// Pattern is the regular expression a value must match (anchored).
	Pattern string
	// Check, when set, must accept the value too (what a pattern says
	// badly: every character of whole Unicode categories); the allowlist
	// applies it to the value in the line as well.
	Check func(string) bool
	re    *regexp.Regexp
	group int // the value's group in the spec's allowlist pattern
}

// Source is where the arguments of a stage 2 command come from.
type Source int

// The sources of stage 2 arguments, each read from one stage 1 output.
const (
	FromNothing Source = iota
	// FromRDMADevices: every device of `esxcli rdma device list`.
	FromRDMADevices
	// FromRDMAUplinks: every uplink paired with an RDMA device.
	FromRDMAUplinks
	// FromPVRDMABackends: every <worldID>_<index> entry of the vsish listing.
	FromPVRDMABackends
	// FromPeers: the PVRDMA vmknic addresses of the peers (stage 3).
	FromPeers
)

// FromFacts: the spec's Instances function reads the argument values from
// the host's stage-1 facts (any of them: the driver of each RDMA uplink,
// a device a listing shows). A new source is that one function: the
// collector plans it, the lab model renders it, and every value is
// validated against the spec's Args before it reaches a line. Its value is
// set apart from the other sources'.
const FromFacts Source = 200

// OptRole says what an option of a typed command does.
type OptRole int

const (
	// OptFilter limits the output to the items named by the value.
	OptFilter OptRole = iota
	// OptArg is an argument of the catalogue line (a spec Arg, in order).
	OptArg
	// OptFixed must have the value Value for the typed command to be the
	// catalogue command (another advanced option is another command).
	OptFixed
)

// Option is one option of an esxcli command, with its spellings.
type Option struct {
	Short, Long string
	Role        OptRole
	// Value, for OptFixed: the value required. Fold compares it ignoring
	// case and a trailing "/".
	Value string
	Fold  bool
}

// Form is one way an admin may type the command: esxcli (also localcli and
// vCLI's esxcli) with its options in any order, or a legacy tool whose
// output carries the same facts.
type Form struct {
	// Tool is "esxcli" or a legacy tool ("esxcfg-nics").
	Tool string
	// Words are the esxcli namespace and command ("network nic list"), or
	// the legacy tool's exact arguments ("-l").
	Words string
	Opts  []Option
	// Also lists further kinds whose facts the same output carries
	// (esxcfg-vmknic -l: vmknics and their IPv4 addresses).
	Also []hostio.Kind
}

// Parser reads a command's output into the fact its spec fills. Parse
// returns the parser's typed value (what `pvrdma-doctor parse` prints);
// with a *parse.PartialError the facts that could be read come with it,
// any other error loses the output. Stamp records on a parsed value the
// command line it came from (and the values the line carries, such as a
// device name the output does not repeat). List, One and Each build it
// from a typed parser, a stamp and the field it fills, so that the parser's
// type and the field's are one type, checked by the compiler.
type Parser struct {
	Parse func(text string) (any, error)
	Stamp func(v any, line string) any
	// Type is the type of one fact (the element of a list).
	Type reflect.Type
	// Facts is the facts struct the parser fills (HostFacts, GuestFacts).
	Facts reflect.Type
	// Func is the parser function's name as the runtime gives it
	// ("github.com/pvrdma-doctor/pvrdma-doctor/parse.NICList"): the
	// catalogue's test finds its fuzz target by it.
	Func string
	// add puts a parsed, stamped value into a *Facts; field returns a
	// pointer to the field on one (*[]T or **T); both report false for
	// another struct.
	add   func(dst, v any) bool
	field func(dst any) (any, bool)
}

// Fill parses text, stamps line on every fact read and adds them to dst,
// a pointer to the parser's facts struct (*HostFacts, *GuestFacts): a list
// is appended to, a single fact replaced. With a *parse.PartialError the
// facts that could be read are added; with any other error nothing is.
func (p Parser) Fill(dst any, text, line string) error {
	v, err := p.Parse(text)
	if v == nil {
		return err
	}
	if !p.add(dst, p.Stamp(v, line)) {
		return fmt.Errorf("catalog: %s fills a %s, not a %T", p.Type, p.Facts, dst)
	}
	return err
}

// Fills reports whether the parser fills dst (a *HostFacts or a
// *GuestFacts).
func (p Parser) Fills(dst any) bool {
	_, ok := p.field(dst)
	return ok
}

// Field is the field of dst (a pointer to the parser's facts struct) that
// the parser fills: a slice, or a pointer to a single fact; ok=false when
// dst is another struct.
func (p Parser) Field(dst any) (reflect.Value, bool) {
	ptr, ok := p.field(dst)
	if !ok {
		return reflect.Value{}, false
	}
	return reflect.ValueOf(ptr).Elem(), true
}

// SameField reports whether two parsers fill the same field of dst (the
// SSH and vCenter sources of VM configurations).
func SameField(a, b Parser, dst any) bool {
	x, ok1 := a.field(dst)
	y, ok2 := b.field(dst)
	return ok1 && ok2 && x == y
}

// DiffKey says how diff compares the facts of a kind between two scans
// (in catalogue order).
type DiffKey struct {
	// What prefixes an item's key where the key alone is unclear ("VM").
	What string
	// Key names one item: two items with the same key are the same thing.
	Key func(v reflect.Value) string
	// Skip are fields that change between scans without meaning anything
	// (world IDs, ping times).
	Skip []string
}

// Spec is everything about one command of the catalogue.
type Spec struct {
	Kind  hostio.Kind
	Stage int
	// Line is the command line; in stage 2 and 3 with the placeholders
	// of Args ("esxcli network nic get -n <vmnicN>").
	Line string
	Args []Arg
	// Quoted: the one argument stands between single quotes in Line (a
	// path with spaces); the allowlist admits exactly the spec's pattern
	// there, and FileName writes the argument reversibly (%XX).
	Quoted bool
	// Refuse is the error for argument values that fail their patterns:
	// a format taking every value (%q).
	Refuse string
	// From is where the arguments of a stage 2 command come from.
	From Source
	// Instances, for a stage 2 command of source FromFacts, are the
	// argument values of each instance, read from the host's stage-1 facts.
	Instances func(f *HostFacts) [][]string
	// InstancesRead are the stage-1 kinds Instances reads: only their
	// outputs are parsed to plan it (a hostile host's 300,000-line vsish
	// listing is not read into facts to find its uplinks' drivers).
	InstancesRead []hostio.Kind
	// Absent, for a command whose subject a host may not have (a driver
	// module that is not loaded, hardware that is not there), recognizes
	// that answer (exit status, output): it is a fact, nothing to read,
	// not a collection failure.
	Absent func(exitCode int, stdout, stderr string) bool
	// When says for what each instance of a stage 2/3 command runs.
	When string
	// Noun names the instances in the note of a host over the stage-2 cap
	// ("uplink details").
	Noun string
	// Example are argument values for the dry-run example and the tests.
	Example []string
	// Template, Allow (the allowlist pattern), File (the pattern of stored
	// outputs' names, groups in Build's argument order) and Build override
	// what is derived from Line and Args, for commands with optional parts
	// (vmkping).
	Template string
	Allow    string
	File     string
	Build    func(args ...string) (hostio.Command, error)
	// Prefixes make KindOf name this kind for lines starting with them
	// (vmkping typed by hand, with any options).
	Prefixes []string
	// Valid, when set, must accept the submatches of the allowlist
	// pattern (Allow) too: what the pattern cannot say (a peer address
	// that is a broadcast or loopback one).
	Valid func(m []string) bool
	// README is the command as the README's table shows it ("" = Line).
	README string
	// Forms are the equivalent spellings recognized in offline inputs.
	Forms []Form
	// Parser reads the output into the field of HostFacts (GuestFacts)
	// it fills (a slice is appended to, a pointer replaced).
	Parser Parser
	// Diff, when set, compares this fact in `pvrdma-doctor diff`.
	Diff *DiffKey
	// Carries lists further kinds of the same catalogue whose facts this
	// command's output may hold too (`ip addr` in its multi-line form
	// prints each interface's link line, MTU, state and MAC, above its
	// addresses): facts.Build fills them from it where no capture of that
	// kind was collected, and records it as their source when it holds any.
	Carries []hostio.Kind

	allow *regexp.Regexp
	// allowPrefix is the literal text every line allow matches begins
	// with: a line without it is not tried against the pattern (the
	// collector and every transport check each line they send).
	allowPrefix string
	file        *regexp.Regexp
}

// PVRDMADevicesDir is where vsish lists the PVRDMA backends of running VMs.
const PVRDMADevicesDir = "/vmkModules/vrdma/pvrdmaDevices/"

// Specs returns the catalogue in run order (stage 1 in the order its
// commands are sent, then stage 2 and 3).
func Specs() []*Spec { return specs }

// Lookup returns the spec of a kind.
func Lookup(k hostio.Kind) (*Spec, bool) {
	s, ok := byKind[k]
	return s, ok
}

var byKind = map[hostio.Kind]*Spec{}

func init() {
	// The VM specs join in stage order (a stable sort keeps each stage's
	// order: the .vmx reads stay the last stage-2 commands, the first the
	// per-host cap leaves out).
	specs = append(append(specs, driverSpecs...), vmSpecs...)
	sort.SliceStable(specs, func(i, j int) bool { return specs[i].Stage < specs[j].Stage })
	for _, s := range append(append(append([]*Spec(nil), specs...), guestSpecs...), bandwidthSpecs...) {
		if byKind[s.Kind] != nil {
			panic("catalog: duplicate kind " + string(s.Kind))
		}
		byKind[s.Kind] = s
		for i := range s.Args {
			s.Args[i].re = regexp.MustCompile(`^` + s.Args[i].Pattern + `$`)
		}
		pat := s.Allow
		if pat == "" {
			pat = regexp.QuoteMeta(s.Line)
			group := 1
			for i, a := range s.Args {
				pat = strings.Replace(pat, regexp.QuoteMeta(a.Placeholder), "("+a.Pattern+")", 1)
				s.Args[i].group = group
				group += 1 + s.Args[i].re.NumSubexp()
			}
		} else {
			for i := range s.Args {
				if s.Args[i].Check != nil {
					panic("catalog: an Arg's Check needs the allowlist pattern derived from Line: " + string(s.Kind))
				}
			}
		}
		s.allow = regexp.MustCompile(`^` + pat + `$`)
		s.allowPrefix, _ = s.allow.LiteralPrefix()
		file := s.File
		if s.Quoted {
			pre, _, _ := strings.Cut(s.Line, s.Args[0].Placeholder)
			file = regexp.QuoteMeta(strings.Trim(reFileUnsafe.ReplaceAllString(pre, "_"), "_")+"_") + `([A-Za-z0-9.%_-]+)`
		}
		if file == "" {
			file = filePattern(s.Line, s.Args)
		}
		s.file = regexp.MustCompile(`^` + file + `$`)
	}
}

var reFileUnsafe = regexp.MustCompile(`[^A-Za-z0-9._-]+`)

// FileName is the file a command's output is stored under, in scenarios,
// saved-output folders and bundles: the command line with every run of
// characters other than letters, digits, '.', '_' and '-' replaced by '_',
// plus ".txt". "esxcli rdma device list" -> "esxcli_rdma_device_list.txt".
func FileName(line string) string {
	if name, ok := quotedFileName(strings.TrimSpace(line)); ok {
		return name
	}
	return strings.Trim(fileSafe(strings.TrimSpace(line)), "_") + ".txt"
}

// fileSafe is reFileUnsafe.ReplaceAllString(s, "_") without the regexp
// machine (a bundle's reader names every capture's file: 24,000 of them
// for 1,000 hosts): every run of bytes other than letters, digits, dots,
// underscores and dashes becomes one underscore (the bytes of a multi-byte
// character are never safe, so a run of them is one run, as for the
// regexp).
func fileSafe(s string) string {
	safe := func(c byte) bool {
		return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '.' || c == '_' || c == '-'
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); {
		if safe(s[i]) {
			b.WriteByte(s[i])
			i++
			continue
		}
		b.WriteByte('_')
		for i < len(s) && !safe(s[i]) {
			i++
		}
	}
	return b.String()
}

// filePattern is the pattern of the file names (without ".txt") of a
// command's instances: the literal parts as FileName writes them, each
// argument a group. Arguments are validated to shapes FileName keeps, so
// the mapping is exact.
func filePattern(line string, args []Arg) string {
	var b strings.Builder
	rest := line
	for i, a := range args {
		lit, after, _ := strings.Cut(rest, a.Placeholder)
		lit = reFileUnsafe.ReplaceAllString(lit, "_")
		if i == 0 {
			lit = strings.TrimLeft(lit, "_")
		}
		b.WriteString(regexp.QuoteMeta(lit) + "(" + a.Pattern + ")")
		rest = after
	}
	if len(args) == 0 {
		return regexp.QuoteMeta(strings.TrimSuffix(FileName(line), ".txt"))
	}
	b.WriteString(regexp.QuoteMeta(strings.TrimRight(reFileUnsafe.ReplaceAllString(rest, "_"), "_")))
	return b.String()
}

// Fixed reports whether the command takes no arguments.
func (s *Spec) Fixed() bool { return len(s.Args) == 0 && s.Build == nil }

// Allowed reports whether line is exactly an instance of this command.
func (s *Spec) Allowed(line string) bool {
	if !strings.HasPrefix(line, s.allowPrefix) {
		return false
	}
	if !s.checked() && s.Valid == nil {
		return s.allow.MatchString(line)
	}
	m := s.allow.FindStringSubmatch(line)
	if m == nil || s.Valid != nil && !s.Valid(m) {
		return false
	}
	for _, a := range s.Args {
		if a.Check != nil && !a.Check(m[a.group]) {
			return false
		}
	}
	return true
}

// checked reports whether an argument has a Check.
func (s *Spec) checked() bool {
	for _, a := range s.Args {
		if a.Check != nil {
			return true
		}
	}
	return false
}

// Command builds the command line for argument values, each validated
// against its pattern first.
func (s *Spec) Command(args ...string) (hostio.Command, error) {
	if s.Build != nil {
		return s.Build(args...)
	}
	if len(args) != len(s.Args) {
		return hostio.Command{}, fmt.Errorf("%s takes %d arguments, got %d", s.Kind, len(s.Args), len(args))
	}
	line := s.Line
	for i, a := range s.Args {
		if !a.re.MatchString(args[i]) || a.Check != nil && !a.Check(args[i]) {
			vals := make([]any, len(args))
			for j := range args {
				vals[j] = args[j]
			}
			return hostio.Command{}, fmt.Errorf(s.Refuse, vals...)
		}
		line = strings.Replace(line, a.Placeholder, args[i], 1)
	}
	return hostio.Command{Kind: s.Kind, Line: line, Stage: s.Stage}, nil
}

// TemplateLine is the command with its placeholders, as dry-run shows it.
func (s *Spec) TemplateLine() string {
	if s.Template != "" {
		return s.Template
	}
	return s.Line
}

// ReadmeText is the command as the README's table shows it.
func (s *Spec) ReadmeText() string {
	if s.README != "" {
		return s.README
	}
	return "`" + s.TemplateLine() + "`"
}

// FileArgs returns the argument values of a stored output's file name
// (catalog.FileName without ".txt"), ok=false when it is not this command.
func (s *Spec) FileArgs(base string) ([]string, bool) {
	m := s.file.FindStringSubmatch(base)
	if m == nil {
		return nil, false
	}
	if s.Quoted {
		arg, ok := unescapeFileArg(m[1])
		return []string{arg}, ok
	}
	return m[1:], true
}

// StageFacts reads the collected captures of one stage into a host's
// facts, each with its spec's parser (what plans the commands of source
// FromFacts, from stage 1); given kinds, only the captures of those.
func StageFacts(caps []hostio.Capture, stage int, only ...hostio.Kind) HostFacts {
	var f HostFacts
	for _, c := range caps {
		s, ok := byKind[c.Kind]
		if !ok || s.Stage != stage || !c.OK() || s.Parser.Parse == nil || !s.Parser.Fills(&f) || s.IsAbsent(c) {
			continue
		}
		if len(only) > 0 && !slices.Contains(only, c.Kind) {
			continue
		}
		_ = s.Parser.Fill(&f, c.Stdout, c.Command) // what a bad output loses, facts reports
	}
	return f
}

// IsAbsent reports whether a capture is the answer of a host without the
// command's subject (Spec.Absent).
func (s *Spec) IsAbsent(c hostio.Capture) bool {
	return s.Absent != nil && c.ExitCode != 0 && s.Absent(c.ExitCode, c.Stdout, c.Stderr)
}

// Describe names a kind for people: the stage 1 command line, or the
// stage 2/3 template ("esxcli rdma device stats get -d <vmrdmaN>").
func Describe(k hostio.Kind) string {
	if s, ok := Lookup(k); ok {
		return s.TemplateLine()
	}
	return string(k)
}

// KindOf returns the kind of a command line: an allowlisted line, or a
// line of the shape of a stage 2/3 command with other arguments (its esxcli
// namespace, the text around its placeholders, or one of its Prefixes);
// "" if unknown.
func KindOf(line string) hostio.Kind {
	line = strings.TrimSpace(line)
	for _, s := range specs {
		if s.Allowed(line) {
			return s.Kind
		}
	}
	for _, s := range specs {
		if s.Stage > 1 && s.looksLike(line) {
			return s.Kind
		}
	}
	if GuestAllowed(line) {
		for _, s := range guestSpecs {
			if s.Allowed(line) {
				return s.Kind
			}
		}
	}
	for _, s := range bandwidthSpecs {
		if s.Allowed(line) {
			return s.Kind
		}
	}
	return apiKindOf(line)
}

func (s *Spec) looksLike(line string) bool {
	for _, p := range s.Prefixes {
		if strings.HasPrefix(line, p) {
			return true
		}
	}
	for _, f := range s.Forms {
		if f.Tool == "esxcli" && strings.HasPrefix(line, "esxcli "+f.Words) {
			return true
		}
	}
	if len(s.Args) > 0 && len(s.Forms) == 0 {
		pre, _, _ := strings.Cut(s.Line, s.Args[0].Placeholder)
		_, suf, _ := strings.Cut(s.Line, s.Args[len(s.Args)-1].Placeholder)
		return strings.HasPrefix(line, pre) && strings.HasSuffix(line, suf)
	}
	return false
}

// Stamping helpers shared by the specs.

// List adapts a parser of a list output whose items are appended to the
// list field into returns ("the RDMA devices").
func List[D, T any](p func(string) ([]T, error), stamp func(v *T, line string), into func(*D) *[]T) Parser {
	stampAll := func(v any, line string) any {
		items := v.([]T)
		for i := range items {
			stamp(&items[i], line)
		}
		return items
	}
	return named(typed[D, T](parse.Untyped(p), stampAll, into, func(f *[]T, v any) { *f = append(*f, v.([]T)...) }), p)
}

// named records on a Parser the name of the function it adapts.
func named(pr Parser, fn any) Parser {
	pr.Func = runtime.FuncForPC(reflect.ValueOf(fn).Pointer()).Name()
	return pr
}

// One adapts a parser of a single record that replaces the single fact
// into returns ("the ESXi version"); strict makes a partial parse lose
// the output too.
func One[D, T any](p func(string) (T, error), strict bool, stamp func(v *T, line string), into func(*D) **T) Parser {
	return named(typed[D, T](record(p, strict), stampOne(stamp), into, func(f **T, v any) { x := v.(T); *f = &x }), p)
}

// Each adapts a parser of a single record that is appended to the list
// field into returns (a stage-2 command run once per device: "the
// counters of each RDMA device").
func Each[D, T any](p func(string) (T, error), stamp func(v *T, line string), into func(*D) *[]T) Parser {
	return named(typed[D, T](record(p, false), stampOne(stamp), into, func(f *[]T, v any) { *f = append(*f, v.(T)) }), p)
}

// typed is a Parser of facts of type T filling, on a *D, the field F that
// into returns, put there by put.
func typed[D, T, F any](parseFn func(string) (any, error), stamp func(any, string) any, into func(*D) F, put func(F, any)) Parser {
	return Parser{
		Parse: parseFn,
		Stamp: stamp,
		Type:  reflect.TypeFor[T](),
		Facts: reflect.TypeFor[D](),
		add: func(dst, v any) bool {
			d, ok := dst.(*D)
			if ok {
				put(into(d), v)
			}
			return ok
		},
		field: func(dst any) (any, bool) {
			d, ok := dst.(*D)
			if !ok {
				return nil, false
			}
			return into(d), true
		},
	}
}

// Output adapts a parser whose output fills no fact (a command only
// `pvrdma-doctor parse` reads).
func Output[T any](p func(string) (T, error)) Parser {
	return named(Parser{
		Parse: parse.Untyped(p),
		Stamp: func(v any, _ string) any { return v },
		Type:  reflect.TypeFor[T](),
		add:   func(any, any) bool { return false },
		field: func(any) (any, bool) { return nil, false },
	}, p)
}

func record[T any](p func(string) (T, error), strict bool) func(string) (any, error) {
	if !strict {
		return parse.Untyped(p)
	}
	return func(text string) (any, error) {
		v, err := p(text)
		if err != nil {
			return nil, err
		}
		return v, nil
	}
}

func stampOne[T any](stamp func(v *T, line string)) func(any, string) any {
	return func(v any, line string) any {
		x := v.(T)
		stamp(&x, line)
		return x
	}
}

// SetRecordCommand sets Command on a record's Ref, every field and every
// nested record.
func SetRecordCommand(r *parse.Record, cmd string) {
	r.Command = cmd // its fields' too: they are read from the record's command
	for _, items := range r.Nested {
		for i := range items {
			SetRecordCommand(&items[i], cmd)
		}
	}
}

// Keyed makes a diff key of a typed accessor of the fact: the compiler
// checks the field it reads (a misspelt field does not compile), and the
// catalogue's test that T is the type its spec's parser fills.
func Keyed[T any](key func(T) string) func(reflect.Value) string {
	return func(v reflect.Value) string { return key(v.Interface().(T)) }
}

// Constant keys a single fact (there is one per host).
func Constant(name string) func(reflect.Value) string {
	return func(reflect.Value) string { return name }
}

// ParseOnly returns the outputs `pvrdma-doctor parse` reads that no scan
// runs (no kind, no fact).
func ParseOnly() []*Spec { return parseOnlySpecs }

// Usages lists the commands whose output `pvrdma-doctor parse` reads, in
// catalogue order: each spec's line (with its placeholders) and legacy
// forms, the outputs only `parse` reads, then the guest catalogue.
func Usages() []string {
	var out []string
	for _, list := range [][]*Spec{specs, parseOnlySpecs, guestSpecs} {
		for _, s := range list {
			out = append(out, s.TemplateLine())
			for _, f := range s.Forms {
				if f.Tool != "esxcli" {
					out = append(out, f.Tool+" "+f.Words)
				}
			}
		}
	}
	return out
}

// ReadmeTable renders the README's table of the commands run on a host,
// from the catalogue; maxStage2 is the collector's per-host cap.
func ReadmeTable(maxStage2 int) string {
	var b strings.Builder
	b.WriteString("| on each host | commands |\n|---|---|\n")
	stageRows(&b, specs,
		"first (every host)",
		fmt.Sprintf("then, per item the first commands list (at most %d per host)", maxStage2),
		"last, path probes (`--probes off` skips them)")
	var api []string
	for _, s := range apiSpecs {
		api = append(api, "`"+s.Line+"`: "+s.README)
	}
	fmt.Fprintf(&b, "| vCenter (`--vcenter`; the vSphere API, nothing runs on the hosts) | %s |\n", strings.Join(api, "; "))
	return b.String()
}

// stageRows writes a README table row per stage (heads[0] names stage 1):
// the README text of the stage's specs, in catalogue order.
func stageRows(b *strings.Builder, list []*Spec, heads ...string) {
	for i, head := range heads {
		var cells []string
		for _, s := range list {
			if s.Stage == i+1 {
				cells = append(cells, s.ReadmeText())
			}
		}
		fmt.Fprintf(b, "| %s | %s |\n", head, strings.Join(cells, ", "))
	}
}
