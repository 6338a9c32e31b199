// Package config reads pvrdma-doctor's config file: per-rule severity
// overrides and suppressions of findings (rule x host x subject, glob
// patterns, a mandatory reason, an optional expiry date), and applies them
// to a rule engine result.
package config

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"time"

	"gopkg.in/yaml.v3"

	"github.com/pvrdma-doctor/pvrdma-doctor/checks"
	"github.com/pvrdma-doctor/pvrdma-doctor/internal/hostio"
)

// Config is the parsed config file.
type Config struct {
	// Severity maps a rule ID to the severity its findings get.
	Severity map[string]string `yaml:"severity"`
	// Suppress lists findings to drop from the report.
	Suppress []Suppression `yaml:"suppress"`

	// Path is where the config was read from ("" when none).
	Path string `yaml:"-"`
}

// Suppression drops the findings of one rule that match host and subject.
type Suppression struct {
	// Rule is a rule ID (required; "*" matches every rule).
	Rule string `yaml:"rule"`
	// Host is a glob on the host name (default "*"): * matches any
	// characters, ? one character.
	Host string `yaml:"host"`
	// Subject is a glob on the finding's subject: a VM ("hpc-node02*"),
	// a device ("vmrdma1"), a switch... (default "*").
	Subject string `yaml:"subject"`
	// Reason is required: why this finding is accepted.
	Reason string `yaml:"reason"`
	// Expires (YYYY-MM-DD) ends the suppression after that day.
	Expires string `yaml:"expires"`

	line    int
	expires time.Time
}

// DefaultPath is ~/.config/pvrdma-doctor/config.yaml.
func DefaultPath(home string) string {
	return filepath.Join(home, ".config", "pvrdma-doctor", "config.yaml")
}

// Load reads a config file. When explicit is false (the default path), a
// missing file yields an empty config; an explicit missing file is an error.
func Load(file string, explicit bool) (*Config, error) {
	data, err := readCapped(file)
	if err != nil {
		if !explicit && errors.Is(err, fs.ErrNotExist) {
			return &Config{}, nil
		}
		return nil, fmt.Errorf("config: %w", err)
	}
	c, err := Parse(data)
	if err != nil {
		return nil, fmt.Errorf("config %s: %w", file, err)
	}
	c.Path = file
	return c, nil
}

// Parse decodes and validates a config strictly: unknown keys, unknown rule
// IDs, bad severities, bad globs, missing reasons and bad dates are errors
// naming the line.
func Parse(data []byte) (*Config, error) {
	var c Config
	var root yaml.Node
	if err := yaml.Unmarshal(data, &root); err != nil {
		return nil, err
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&c); err != nil && !errors.Is(err, io.EOF) {
		return nil, errors.New(plainYAMLError(err.Error()))
	}
	sevLines, supLines := lines(&root)
	for id, s := range c.Severity {
		line := sevLines[id]
		if _, ok := checks.Lookup(id); !ok {
			return nil, fmt.Errorf("line %d: severity: unknown rule %q (see: pvrdma-doctor rules list)", line, id)
		}
		if _, err := checks.ParseSeverity(s); err != nil {
			return nil, fmt.Errorf("line %d: severity of %s: %v", line, id, err)
		}
	}
	for i := range c.Suppress {
		s := &c.Suppress[i]
		if i < len(supLines) {
			s.line = supLines[i]
		}
		if s.Rule == "" {
			return nil, fmt.Errorf("line %d: suppression without a rule", s.line)
		}
		if s.Rule != "*" {
			r, ok := checks.Lookup(s.Rule)
			if !ok {
				return nil, fmt.Errorf("line %d: suppression of unknown rule %q (see: pvrdma-doctor rules list)", s.line, s.Rule)
			}
			s.Rule = r.ID
		}
		if strings.TrimSpace(s.Reason) == "" {
			return nil, fmt.Errorf("line %d: suppression of %s needs a reason", s.line, s.Rule)
		}
		if s.Host == "" {
			s.Host = "*"
		}
		if s.Subject == "" {
			s.Subject = "*"
		}
		if s.Expires != "" {
			t, err := time.Parse("2006-01-02", s.Expires)
			if err != nil {
				return nil, fmt.Errorf("line %d: expires %q: want a date like 2026-12-31", s.line, s.Expires)
			}
			s.expires = t
		}
	}
	return &c, nil
}

// lines finds the line of every severity key and suppression item.
func lines(root *yaml.Node) (map[string]int, []int) {
	sev := map[string]int{}
	var sup []int
	if root == nil || len(root.Content) == 0 || root.Content[0].Kind != yaml.MappingNode {
		return sev, sup
	}
	m := root.Content[0]
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		switch k.Value {
		case "severity":
			for j := 0; j+1 < len(v.Content); j += 2 {
				sev[v.Content[j].Value] = v.Content[j].Line
			}
		case "suppress":
			for _, item := range v.Content {
				sup = append(sup, item.Line)
			}
		}
	}
	return sev, sup
}

// Applied is the result of applying a config to findings.
type Applied struct {
	Result checks.Result
	// Suppressed are the findings removed by a suppression.
	Suppressed []checks.Finding
	// Notes tell the report about expired suppressions and overrides.
	Notes []string
}

// Apply overrides severities and removes suppressed failing findings
// (not-evaluated results are never suppressed: they say the scan is
// incomplete). now decides which suppressions have expired.
func (c *Config) Apply(res checks.Result, now time.Time) Applied {
	out := Applied{Result: checks.Result{Passed: res.Passed, Errors: res.Errors}}
	if c == nil {
		out.Result = res
		return out
	}
	today := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	expired := map[int]bool{}
	for i, s := range c.Suppress {
		if !s.expires.IsZero() && today.After(s.expires) {
			expired[i] = true
			out.Notes = append(out.Notes, fmt.Sprintf("suppression of %s (host %s, subject %s) expired on %s and no longer applies (config line %d)",
				s.Rule, s.Host, s.Subject, s.Expires, s.line))
		}
	}
	over := func(f checks.Finding) checks.Finding {
		if v, ok := c.Severity[f.RuleID]; ok {
			sev, _ := checks.ParseSeverity(v)
			f.Severity = sev
		}
		return f
	}
	for i := range out.Result.Passed {
		out.Result.Passed[i] = over(out.Result.Passed[i])
	}
	for _, f := range res.Findings {
		f = over(f)
		if f.Status == checks.StatusFail {
			if s, ok := c.match(f, expired); ok {
				f.Suppressed = true
				f.SuppressReason = s.Reason
				if s.Expires != "" {
					f.SuppressReason += " (until " + s.Expires + ")"
				}
				out.Suppressed = append(out.Suppressed, f)
				continue
			}
		}
		out.Result.Findings = append(out.Result.Findings, f)
	}
	checks.SortFindings(out.Result.Findings)
	checks.SortFindings(out.Suppressed)
	for id, v := range c.Severity {
		if r, ok := checks.Lookup(id); ok && !strings.EqualFold(string(r.Severity), v) {
			out.Notes = append(out.Notes, fmt.Sprintf("config: %s severity overridden from %s to %s", r.ID, r.Severity, strings.ToLower(v)))
		}
	}
	sort.Strings(out.Notes)
	return out
}

func (c *Config) match(f checks.Finding, expired map[int]bool) (Suppression, bool) {
	for i, s := range c.Suppress {
		if expired[i] {
			continue
		}
		if s.Rule != "*" && s.Rule != f.RuleID {
			continue
		}
		if !glob(s.Host, f.Host) || !glob(s.Subject, f.Subject) {
			continue
		}
		return s, true
	}
	return Suppression{}, false
}

// glob matches s against a pattern where * matches any run of characters
// (including "/" and spaces: subjects are free text) and ? one character;
// matching is case-sensitive.
func glob(pattern, s string) bool {
	var b strings.Builder
	b.WriteString("^")
	for _, r := range pattern {
		switch r {
		case '*':
			b.WriteString(".*")
		case '?':
			b.WriteString(".")
		default:
			b.WriteString(regexp.QuoteMeta(string(r)))
		}
	}
	b.WriteString("$")
	re, err := regexp.Compile(b.String())
	return err == nil && re.MatchString(s)
}

// Redacted returns a copy whose suppression host and subject patterns and
// reasons went through redact (a bundle's token replacement), so that a
// suppression naming a host or VM still matches that host's or VM's token
// when a redacted bundle is analysed. Wildcard parts that only match
// original names (esx0*) cannot be translated and then match nothing.
func (c *Config) Redacted(redact func(string) string) *Config {
	if c == nil || redact == nil {
		return c
	}
	out := *c
	out.Suppress = make([]Suppression, len(c.Suppress))
	for i, s := range c.Suppress {
		s.Host = redact(s.Host)
		s.Subject = redact(s.Subject)
		s.Reason = redact(s.Reason)
		out.Suppress[i] = s
	}
	return &out
}

var (
	reUnknownField = regexp.MustCompile(`field (\S+) not found in type [\w.]+`)
	reGoType       = regexp.MustCompile(` into (\[\])?(map\[\w+\])?[\w.]+`)
)

// plainYAMLError rewords yaml.v3's messages that name Go types
// ("field severty not found in type config.Config") for people.
func plainYAMLError(msg string) string {
	msg = reUnknownField.ReplaceAllString(msg, `unknown key "$1" (known: severity, suppress; in a suppression: rule, host, subject, reason, expires)`)
	return reGoType.ReplaceAllString(msg, "")
}

// maxConfigFile caps the config file: a wrong path (/dev/zero) must fail at
// once, not fill memory.
const maxConfigFile = 4 << 20

func readCapped(file string) ([]byte, error) {
	f, err := hostio.OpenInput(file) // a pipe within its wait, never a device
	if err != nil {
		return nil, err
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfigFile+1))
	if err == nil && len(b) > maxConfigFile {
		err = fmt.Errorf("%s is larger than %d MiB: not a config file", file, maxConfigFile>>20)
	}
	return b, err
}
