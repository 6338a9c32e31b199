package cli

import (
	"encoding/json"
	"fmt"
	"io"
	"reflect"
	"sort"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/pvrdma-doctor/pvrdma-doctor/collect"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
	"github.com/pvrdma-doctor/pvrdma-doctor/parse"
)

func init() { register("parse", newCmdParse) }

// ParseOptions are the flags and dependencies of `parse`.
type ParseOptions struct {
	IO *IOStreams
	// Command is the command line as typed on ESXi that produced the input.
	Command string
	// File is the input file; "" or "-" reads standard input.
	File string
	// Output is "text" or "json".
	Output string
}

func newCmdParse(f *Factory) *cobra.Command {
	opts := &ParseOptions{IO: f.IO}
	cmd := &cobra.Command{
		Use:   "parse --command \"<command line>\" [FILE|-]",
		Short: "Parse saved ESXi or Linux guest command output into typed facts",
		Long: `Parse reads the output of one ESXi or Linux guest command (from FILE, or
standard input when FILE is "-" or missing) and prints the facts pvrdma-doctor
reads from it. The parser is chosen from --command, the command line as you
typed it on the host: long or short options in any order, "=" forms,
localcli, vCLI's remote forms (esxcli --server HOST ...),
--formatter=xml|keyvalue|csv|json, vsish -e get, any vmnicN/vmrdmaN/world ID
argument, any vmkping flags, and the legacy esxcfg-nics/esxcfg-vmknic/
esxcfg-vswitch -l are understood. In a guest: ibv_devinfo (with or without -v,
-d DEV), ibv_devices, ibstat, ip addr|a|link [show] (-o, -d), rdma link
[show], show_gids, lsmod (| grep), modinfo vmw_pvrdma, cat /etc/os-release,
uname -r|-a, dmesg (-T, | grep), ofed_info -s, dpkg -l, dpkg-query -W,
rpm -qa, ls /sys/class/infiniband, with or without sudo. A leading shell
prompt line in the input is ignored.

An output that holds the facts of another command too (ip addr show prints
each link's MTU, state and MAC above its addresses) shows those after its
own (with --output json: one object keyed by kind).

Use it to check what the tool understands from a pasted output, or to feed
parsed facts to other tools with --output json.

One bad line does not lose the output: a block or row that cannot be read
(or an author's elision such as "..." or "<<truncated>>") is skipped with a
warning on standard error naming its line, the rest is printed, and the exit
status is 5 (incomplete). Output of which most is unreadable is an error
(exit 1).

Supported commands:
  ` + strings.Join(catalog.Usages(), "\n  "),
		Example: `  pvrdma-doctor parse --command "esxcli rdma device list" rdma.txt
  ssh root@esx01 esxcli rdma device list | pvrdma-doctor parse --command "esxcli rdma device list" --output json
  pvrdma-doctor parse --command "vsish -e cat /vmkModules/vrdma/pvrdmaDevices/1001474360_0/properties" props.txt`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				opts.File = args[0]
			}
			return runParse(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Command, "command", "c", "", "command line that produced the output, as typed on ESXi or in the guest (required)")
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "text", "output format: text or json")
	return cmd
}

func runParse(opts *ParseOptions) error {
	if strings.TrimSpace(opts.Command) == "" {
		return usageError("--command is required: the command line that produced the output, e.g. --command \"esxcli rdma device list\"\nSupported commands:\n  %s", strings.Join(catalog.Usages(), "\n  "))
	}
	if opts.Output != "text" && opts.Output != "json" {
		return usageError("--output must be text or json, not %q", opts.Output)
	}
	in := hostio.StoppableReader(opts.IO.In)
	name := "standard input"
	if opts.File != "" && opts.File != "-" {
		f, err := hostio.OpenInput(opts.File)
		if err != nil {
			return WithExitCode(ExitError, err)
		}
		defer f.Close()
		in, name = f, opts.File
	}
	b, err := hostio.ReadAllCapped(in, name, hostio.DefaultMaxCommandOutput)
	if err != nil {
		return WithExitCode(ExitError, fmt.Errorf("reading %s: %w", name, err))
	}
	spec, ok := collect.ParserFor(opts.Command)
	if !ok || spec.Parser.Parse == nil {
		return WithExitCode(ExitUsage, fmt.Errorf("no parser for command %q; supported commands:\n  %s",
			strings.TrimSpace(opts.Command), strings.Join(catalog.Usages(), "\n  ")))
	}
	v, err := spec.Parser.Parse(string(b))
	skipped, partial := parse.Skipped(err)
	if err != nil && !partial {
		return WithExitCode(ExitError, fmt.Errorf("%s: cannot parse the output of %q: %w", name, strings.TrimSpace(opts.Command), err))
	}
	// The facts of the kinds this output carries too (`ip addr show`: the
	// links' MTU, state and MAC above their addresses), where it holds any.
	type carried struct {
		kind hostio.Kind
		line string
		v    any
	}
	var more []carried
	for _, k := range spec.Carries {
		cs, ok := catalog.Lookup(k)
		if !ok || cs.Parser.Parse == nil {
			continue
		}
		cv, cerr := cs.Parser.Parse(string(b))
		_, part := parse.Skipped(cerr)
		if rv := reflect.ValueOf(cv); (cerr == nil || part) && rv.IsValid() && !rv.IsZero() && (rv.Kind() != reflect.Slice || rv.Len() > 0) {
			more = append(more, carried{k, cs.TemplateLine(), cv})
		}
	}
	if opts.Output == "json" {
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		if len(more) == 0 {
			err = enc.Encode(v)
		} else {
			// One object keyed by kind: this command's facts and those it carries.
			all := map[hostio.Kind]any{spec.Kind: v}
			for _, c := range more {
				all[c.kind] = c.v
			}
			err = enc.Encode(all)
		}
	} else {
		// The facts hold text from the host: show control characters escaped.
		var text strings.Builder
		if err = writeText(&text, v); err == nil {
			for _, c := range more {
				fmt.Fprintf(&text, "\nAlso in this output, as `%s` prints it:\n", c.line)
				if err = writeText(&text, c.v); err != nil {
					break
				}
			}
		}
		if err == nil {
			_, err = io.WriteString(opts.IO.Out, textsafe.Clean(text.String()))
		}
	}
	if err != nil || !partial {
		return err
	}
	for _, s := range skipped {
		fmt.Fprintf(opts.IO.ErrOut, "warning: %s: %s\n", textsafe.Clean(name), textsafe.Clean(s.String()))
	}
	return WithExitCode(ExitIncomplete, fmt.Errorf("%s: partial output: %d part(s) could not be read and were skipped (listed above); the facts shown are those that could be read", name, len(skipped)))
}

// writeText prints parsed facts readably: a list of structs as a table of
// its scalar fields, a single struct as "Key: value" lines.
func writeText(w io.Writer, v any) error {
	rv := reflect.ValueOf(v)
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	switch rv.Kind() {
	case reflect.Slice:
		if rv.Len() == 0 {
			fmt.Fprintln(w, "(no items)")
			return nil
		}
		cols := scalarFields(rv.Type().Elem())
		var hdr []string
		for _, c := range cols {
			hdr = append(hdr, c.Name)
		}
		fmt.Fprintln(tw, strings.Join(append(hdr, "Line"), "\t"))
		for i := 0; i < rv.Len(); i++ {
			var cells []string
			for _, c := range cols {
				cells = append(cells, show(rv.Index(i).FieldByIndex(c.Index)))
			}
			cells = append(cells, show(rv.Index(i).FieldByName("Line")))
			fmt.Fprintln(tw, strings.Join(cells, "\t"))
		}
	case reflect.Struct:
		for _, c := range scalarFields(rv.Type()) {
			fmt.Fprintf(tw, "%s:\t%s\n", c.Name, show(rv.FieldByIndex(c.Index)))
		}
		writeMaps(tw, rv)
	default:
		fmt.Fprintf(tw, "%v\n", v)
	}
	return tw.Flush()
}

// scalarFields are the exported fields of t shown in text output: strings,
// numbers, booleans and string lists (the evidence Ref is shown as Line).
func scalarFields(t reflect.Type) []reflect.StructField {
	var out []reflect.StructField
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		if !f.IsExported() || f.Anonymous {
			continue
		}
		switch f.Type.Kind() {
		case reflect.String, reflect.Int, reflect.Int64, reflect.Float64, reflect.Bool:
			out = append(out, f)
		case reflect.Slice:
			if k := f.Type.Elem().Kind(); k == reflect.String || k == reflect.Int {
				out = append(out, f)
			}
		}
	}
	return out
}

// writeMaps prints the counters of RDMA stats, every key of a PVRDMA
// properties block, or the entries of a .vmx file.
func writeMaps(w io.Writer, rv reflect.Value) {
	if c := rv.FieldByName("Counters"); c.IsValid() && c.Kind() == reflect.Map {
		keys := c.MapKeys()
		sort.Slice(keys, func(i, j int) bool { return keys[i].String() < keys[j].String() })
		for _, k := range keys {
			fmt.Fprintf(w, "%s:\t%d\n", k.String(), c.MapIndex(k).Int())
		}
	}
	if p := rv.FieldByName("Props"); p.IsValid() {
		if rec, ok := p.Interface().(parse.Record); ok {
			for _, k := range rec.Keys() {
				fmt.Fprintf(w, "  %s:\t%s\n", k, rec.Get(k))
			}
		}
	}
	if e := rv.FieldByName("Entries"); e.IsValid() {
		if entries, ok := e.Interface().([]parse.VMXEntry); ok {
			for _, x := range entries {
				fmt.Fprintf(w, "%s\t= %q\n", x.Key, x.Value)
			}
		}
	}
}

func show(v reflect.Value) string {
	if !v.IsValid() {
		return ""
	}
	if v.Kind() == reflect.Slice {
		var s []string
		for i := 0; i < v.Len(); i++ {
			s = append(s, fmt.Sprint(v.Index(i).Interface()))
		}
		return strings.Join(s, ",")
	}
	if v.Kind() == reflect.String && v.String() == "" {
		return "-"
	}
	return fmt.Sprint(v.Interface())
}
