package checks

// docs/rules-and-reports.md's rule list is generated from the catalogue
// (make generate).
//go:generate go test . -count=1 -run ^TestDocsRuleList$ -update

import (
	_ "embed"
	"fmt"
	"slices"
	"sort"
	"strings"

	"github.com/pvrdma-doctor/pvrdma-doctor/internal/catalog"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
	"gopkg.in/yaml.v3"
)

// The catalogue: catalogueList names every rule (what runs: rules_AREA.go),
// catalogue.yaml holds their prose (title, why, fix, sources, releases).
// Both are joined once, when the package loads; a rule without prose, prose
// without a rule, or an unknown source is a programming error (a panic
// that every test shows).

// catalogueList is every rule of the catalogue, by area: each
// rules_AREA.go lists its rules (ID, default severity, scope, Needs, check)
// beside their checks, so a new rule of an area is written in one file;
// a new area adds its list here.
var catalogueList = slices.Concat(
	rulesVersion,
	rulesRDMA,
	rulesVmknic,
	rulesFirewall,
	rulesSwitch,
	rulesMTU,
	rulesLossless,
	rulesDriver,
	rulesProbe,
	rulesPath,
	rulesAdapter,
	rulesVM,
	rulesVMXNET3,
	rulesNative,
	rulesGPU,
	rulesGuest,
	rulesGuestVerbs,
	rulesMobility,
	rulesReadiness,
	rulesCollection,
)

// The inputs that list the subjects of several rules (Rule.ListedBy).
var (
	listedVMs      = []hostio.Kind{catalog.KindVMProcessList, catalog.KindPVRDMADeviceLs}
	listedAdapters = []hostio.Kind{catalog.KindPVRDMADeviceLs, catalog.KindPVRDMAProperties}
	listedGPUVMs   = []hostio.Kind{catalog.KindVMProcessList, catalog.KindHardwarePCI}
	listedProbes   = []hostio.Kind{catalog.KindVmkping}
)

//go:embed catalogue.yaml
var catalogueYAML []byte

// catalogueProse is catalogue.yaml.
type catalogueProse struct {
	Sources map[string]string `yaml:"sources"`
	Rules   map[string]struct {
		Title   string   `yaml:"title"`
		Why     string   `yaml:"why"`
		Fix     string   `yaml:"fix"`
		Sources []string `yaml:"sources"`
		Applies string   `yaml:"applies"`
	} `yaml:"rules"`
}

// pvrdmaReleases are the ESXi releases with PVRDMA, the releases most
// rules apply to.
const pvrdmaReleases = "ESXi 6.5 and later"

// catalogue indexes catalogueList by ID, with each rule's prose from
// catalogue.yaml and the defaults of Scope and Applies filled in.
var catalogue = func() map[string]*Rule {
	m, err := buildCatalogue(catalogueList, catalogueYAML)
	if err != nil {
		panic(err)
	}
	return m
}()

func buildCatalogue(rules []*Rule, text []byte) (map[string]*Rule, error) {
	var prose catalogueProse
	dec := yaml.NewDecoder(strings.NewReader(string(text)))
	dec.KnownFields(true)
	if err := dec.Decode(&prose); err != nil {
		return nil, fmt.Errorf("catalogue.yaml: %w", err)
	}
	m := map[string]*Rule{}
	for _, r := range rules {
		if _, dup := m[r.ID]; dup {
			return nil, fmt.Errorf("duplicate rule %s", r.ID)
		}
		p, ok := prose.Rules[r.ID]
		if !ok {
			return nil, fmt.Errorf("rule %s has no prose in catalogue.yaml", r.ID)
		}
		r.Title, r.Why, r.Fix, r.Applies = p.Title, p.Why, p.Fix, p.Applies
		r.Docs = nil
		for _, key := range p.Sources {
			src, ok := prose.Sources[key]
			if !ok {
				return nil, fmt.Errorf("rule %s: unknown source %q in catalogue.yaml", r.ID, key)
			}
			r.Docs = append(r.Docs, src)
		}
		if r.Scope == "" {
			r.Scope = HostScope
		}
		if r.Applies == "" {
			r.Applies = pvrdmaReleases
		}
		if r.Severity.Rank() == 0 || r.Title == "" || r.Why == "" || r.Fix == "" || r.Check == nil ||
			(r.Scope != HostScope && r.Scope != FleetScope && r.Scope != GuestScope) {
			return nil, fmt.Errorf("incomplete rule %s", r.ID)
		}
		m[r.ID] = r
	}
	var orphans []string
	for id := range prose.Rules {
		if m[id] == nil {
			orphans = append(orphans, id)
		}
	}
	if len(orphans) > 0 {
		sort.Strings(orphans)
		return nil, fmt.Errorf("catalogue.yaml has prose for rules that do not exist: %s", strings.Join(orphans, ", "))
	}
	return m, nil
}

// Rules returns the catalogue sorted by ID.
func Rules() []*Rule {
	out := make([]*Rule, 0, len(catalogue))
	for _, r := range catalogue {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// Lookup returns a rule by ID (case-insensitive).
func Lookup(id string) (*Rule, bool) {
	r, ok := catalogue[strings.ToUpper(strings.TrimSpace(id))]
	return r, ok
}
