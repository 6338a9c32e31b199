package cli

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/report"
	"github.com/spf13/cobra"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/textsafe"
)

func init() { register("rules", newCmdRules) }

// RulesOptions are the flags and dependencies of `rules list` and `rules explain`.
type RulesOptions struct {
	IO     *IOStreams
	Output string
	ID     string
	// Rules returns the catalogue (tests inject their own).
	Rules func() []*checks.Rule
}

func newCmdRules(f *Factory) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "List the checks and explain what each one means",
		Long: `Every finding names a rule by its ID. 'rules list' shows the catalogue;
'rules explain ID' says what breaks, why it matters, how to fix it, where it is
documented and which ESXi releases it applies to.`,
		Args: cobra.NoArgs,
	}
	cmd.AddCommand(newCmdRulesList(f, nil), newCmdRulesExplain(f, nil))
	return cmd
}

func newCmdRulesList(f *Factory, runF func(*RulesOptions) error) *cobra.Command {
	opts := &RulesOptions{IO: f.IO, Rules: checks.Rules}
	cmd := &cobra.Command{
		Use:     "list",
		Short:   "List every rule: ID, severity and title",
		Example: "  pvrdma-doctor rules list\n  pvrdma-doctor rules list --output json",
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if runF != nil {
				return runF(opts)
			}
			return runRulesList(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "text", "output format: text or json (all metadata)")
	return cmd
}

func newCmdRulesExplain(f *Factory, runF func(*RulesOptions) error) *cobra.Command {
	opts := &RulesOptions{IO: f.IO, Rules: checks.Rules}
	cmd := &cobra.Command{
		Use:     "explain RULE_ID",
		Short:   "Explain one rule: why it matters, how to fix it, docs, versions",
		Example: "  pvrdma-doctor rules explain LOW_MTU",
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError("rules explain takes one rule ID (see: pvrdma-doctor rules list)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			opts.ID = args[0]
			if runF != nil {
				return runF(opts)
			}
			return runRulesExplain(opts)
		},
	}
	cmd.Flags().StringVarP(&opts.Output, "output", "o", "text", "output format: text or json")
	return cmd
}

// RuleDoc is the JSON form of a rule.
type RuleDoc struct {
	ID       string   `json:"id"`
	Severity string   `json:"severity"`
	Title    string   `json:"title"`
	Why      string   `json:"why"`
	Fix      string   `json:"fix"`
	Docs     []string `json:"docs"`
	Applies  string   `json:"applies"`
	Scope    string   `json:"scope"` // "host" or "fleet"
	// CanCause and CausedBy are the rules this rule's findings can cause,
	// and the rules whose findings can cause this rule's (the cause graph).
	CanCause []string `json:"can_cause"`
	CausedBy []string `json:"can_be_caused_by"`
	// Edges are those links, each with why the effect follows and the
	// documents that say so.
	Edges []EdgeDoc `json:"cause_edges"`
	// Needs are the commands without which the rule is not evaluated on a
	// host; ListedBy those that list its subjects (it evaluates what they
	// show, and is not evaluated where they are missing and it has
	// nothing to say).
	Needs    []string `json:"needs"`
	ListedBy []string `json:"listed_by"`
}

// EdgeDoc is one link of the cause graph that involves the rule.
type EdgeDoc struct {
	Cause   string   `json:"cause"`
	Effect  string   `json:"effect"`
	Why     string   `json:"why"`
	Sources []string `json:"sources"`
}

// commandsOf names the commands of kinds, as `rules explain` shows them.
func commandsOf(kinds []hostio.Kind) []string {
	out := []string{}
	for _, k := range kinds {
		out = append(out, catalog.Describe(k))
	}
	return out
}

func ruleDoc(r *checks.Rule) RuleDoc {
	scope := string(r.Scope)
	docs := r.Docs
	if docs == nil {
		docs = []string{}
	}
	causes, causedBy := checks.CanCause(r.ID), checks.CanBeCausedBy(r.ID)
	if causes == nil {
		causes = []string{}
	}
	if causedBy == nil {
		causedBy = []string{}
	}
	edges := []EdgeDoc{}
	for _, c := range causes {
		edges = append(edges, EdgeDoc{Cause: r.ID, Effect: c, Why: checks.CauseWhy(r.ID, c), Sources: checks.CauseSources(r.ID, c)})
	}
	for _, c := range causedBy {
		if c != r.ID { // a rule that causes its own kind is listed once
			edges = append(edges, EdgeDoc{Cause: c, Effect: r.ID, Why: checks.CauseWhy(c, r.ID), Sources: checks.CauseSources(c, r.ID)})
		}
	}
	return RuleDoc{ID: r.ID, Severity: string(r.Severity), Title: r.Title, Why: r.Why, Fix: r.Fix, Docs: docs, Applies: r.Applies, Scope: scope,
		CanCause: causes, CausedBy: causedBy, Edges: edges, Needs: commandsOf(r.Needs), ListedBy: commandsOf(r.ListedBy)}
}

func runRulesList(opts *RulesOptions) error {
	rules := opts.Rules()
	switch opts.Output {
	case "json":
		out := make([]RuleDoc, 0, len(rules))
		for _, r := range rules {
			out = append(out, ruleDoc(r))
		}
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	case "text", "":
	default:
		return usageError("unknown --output %q: use text or json", opts.Output)
	}
	_, err := fmt.Fprint(opts.IO.Out, textsafe.Clean(rulesTable(rules, 80)))
	return err
}

// rulesTable renders ID, severity and title within width columns; long
// titles wrap under the title column.
func rulesTable(rules []*checks.Rule, width int) string {
	idW := len("ID")
	for _, r := range rules {
		idW = max(idW, len(r.ID))
	}
	const sevW = len("SEVERITY")
	indent := idW + 2 + sevW + 2
	titleW := max(width-indent, 20)
	var b strings.Builder
	fmt.Fprintf(&b, "%-*s  %-*s  %s\n", idW, "ID", sevW, "SEVERITY", "TITLE")
	for _, r := range rules {
		lines := strings.Split(report.Wrap(r.Title, titleW), "\n")
		fmt.Fprintf(&b, "%-*s  %-*s  %s\n", idW, r.ID, sevW, r.Severity, lines[0])
		for _, l := range lines[1:] {
			fmt.Fprintf(&b, "%s%s\n", strings.Repeat(" ", indent), l)
		}
	}
	return b.String()
}

func runRulesExplain(opts *RulesOptions) error {
	var rule *checks.Rule
	rules := opts.Rules()
	for _, r := range rules {
		if strings.EqualFold(r.ID, strings.TrimSpace(opts.ID)) {
			rule = r
		}
	}
	if rule == nil {
		msg := fmt.Sprintf("unknown rule %q", opts.ID)
		if close := closeRuleIDs(opts.ID, rules); len(close) > 0 {
			msg += "; did you mean " + strings.Join(close, ", ") + "?"
		}
		return usageError("%s (see: pvrdma-doctor rules list)", msg)
	}
	switch opts.Output {
	case "json":
		enc := json.NewEncoder(opts.IO.Out)
		enc.SetIndent("", "  ")
		return enc.Encode(ruleDoc(rule))
	case "text", "":
	default:
		return usageError("unknown --output %q: use text or json", opts.Output)
	}
	var b strings.Builder
	wrap := func(indent, s string) {
		for _, l := range strings.Split(report.Wrap(s, 80-len(indent)), "\n") {
			b.WriteString(indent + l + "\n")
		}
	}
	fmt.Fprintf(&b, "%s (%s)\n", rule.ID, rule.Severity)
	wrap("", rule.Title)
	b.WriteString("\nWHY IT MATTERS\n")
	wrap("  ", rule.Why)
	b.WriteString("\nHOW TO FIX\n")
	wrap("  ", rule.Fix)
	b.WriteString("  (findings carry the exact command with this host's names filled in)\n")
	// doc writes one document: a URL is never wrapped (it must stay
	// clickable and copyable), the words after it are.
	doc := func(indent, label, d string) {
		if u, rest, _ := strings.Cut(d, " "); strings.HasPrefix(u, "http") {
			b.WriteString(indent + label + u + "\n")
			if rest != "" {
				wrap(indent+"  ", rest)
			}
			return
		}
		wrap(indent, label+d)
	}
	if len(rule.Docs) > 0 {
		b.WriteString("\nDOCUMENTATION\n")
		for _, d := range rule.Docs {
			doc("  ", "- ", d)
		}
	}
	b.WriteString("\nCAUSES AND CONSEQUENCES\n")
	// Each link cites the documents that say the effect follows.
	sources := func(cause, effect string) {
		for _, d := range checks.CauseSources(cause, effect) {
			doc("        ", "source: ", d)
		}
	}
	if cs := checks.CanCause(rule.ID); len(cs) > 0 {
		b.WriteString("  Can cause (reported nested under it, \"and therefore ...\"):\n")
		for _, c := range cs {
			wrap("    ", "- "+c+": "+checks.CauseWhy(rule.ID, c))
			sources(rule.ID, c)
		}
	} else {
		b.WriteString("  Can cause: no other rule's findings.\n")
	}
	if cs := checks.CanBeCausedBy(rule.ID); len(cs) > 0 {
		b.WriteString("  Can be caused by (then reported under that root cause):\n")
		for _, c := range cs {
			wrap("    ", "- "+c+": "+checks.CauseWhy(c, rule.ID))
			sources(c, rule.ID)
		}
	} else {
		b.WriteString("  Can be caused by: no other rule's findings (always a root cause).\n")
	}
	b.WriteString("\nWHAT IT READS\n")
	quote := func(cs []string) string { return "`" + strings.Join(cs, "`, `") + "`" }
	if len(rule.Needs) > 0 {
		wrap("  ", "Needs, on each host (without one it is not evaluated there, with the reason): "+quote(commandsOf(rule.Needs))+".")
	}
	if len(rule.ListedBy) > 0 {
		wrap("  ", "Its subjects are listed by "+quote(commandsOf(rule.ListedBy))+": it evaluates every subject the present "+
			"outputs show, and where one of them is missing and nothing is left to check it is not evaluated, with the reason.")
	}
	wrap("  ", "Inputs it reads for some subjects only (a VM's .vmx, an uplink's details, one adapter's vsish properties) are "+
		"checked per subject: a subject whose input is missing is not evaluated, by name, with the reason.")
	b.WriteString("\nAPPLIES TO\n")
	wrap("  ", rule.Applies)
	_, err := fmt.Fprint(opts.IO.Out, textsafe.Clean(b.String()))
	return err
}

// closeRuleIDs returns up to three rule IDs close to id: those containing
// it (or contained in it), then by edit distance.
func closeRuleIDs(id string, rules []*checks.Rule) []string {
	q := strings.ToUpper(strings.TrimSpace(strings.ReplaceAll(id, "-", "_")))
	if q == "" {
		return nil
	}
	type cand struct {
		id   string
		dist int
	}
	var cs []cand
	for _, r := range rules {
		d := levenshtein(q, r.ID)
		if strings.Contains(r.ID, q) || strings.Contains(q, r.ID) {
			d = 0
		}
		if d <= max(2, len(q)/3) {
			cs = append(cs, cand{r.ID, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].dist != cs[j].dist {
			return cs[i].dist < cs[j].dist
		}
		return cs[i].id < cs[j].id
	})
	var out []string
	for i := 0; i < len(cs) && i < 3; i++ {
		out = append(out, cs[i].id)
	}
	return out
}

func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
